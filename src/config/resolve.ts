import os from "node:os";
import path from "node:path";
import { UsageError, type Tool } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import type { RunConfig, TrialLimits } from "../runner/index.js";
import { checkRunId } from "../store/index.js";
import type { CommandToolSpec } from "../tools/index.js";
import { parseDuration, parsePositiveInt } from "./duration.js";
import type { ConfigFile } from "./file.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where lab keeps things, from flags and LAB_* variables. */
export interface LabSettings {
  readonly cwd: string;
  readonly evalsDir: string | undefined;
  readonly runsDir: string;
  readonly cacheDir: string;
  readonly scratchRoot: string;
  readonly pyenvRoot: string;
  readonly pathEnv: string;
  readonly uv: string | undefined;
}

/** Resolves lab's folders: flags > LAB_* variables > defaults. */
export function resolveSettings(
  flags: { evalsDir?: string | undefined; runsDir?: string | undefined },
  env: Env,
  cwd: string,
): LabSettings {
  const home = env.HOME ?? os.homedir();
  const cacheDir =
    env.LAB_CACHE_DIR ?? path.join(env.XDG_CACHE_HOME ?? path.join(home, ".cache"), "lab");
  const evalsDir = flags.evalsDir ?? env.LAB_EVALS_DIR;
  return {
    cwd,
    evalsDir: evalsDir === undefined ? undefined : path.resolve(cwd, evalsDir),
    runsDir: path.resolve(cwd, flags.runsDir ?? env.LAB_RUNS_DIR ?? "runs"),
    cacheDir: path.resolve(cwd, cacheDir),
    scratchRoot: path.resolve(
      cwd,
      env.LAB_SCRATCH_DIR ?? path.join(os.tmpdir(), `lab-scratch-${String(os.userInfo().uid)}`),
    ),
    pyenvRoot: env.PYENV_ROOT ?? path.join(home, ".pyenv"),
    pathEnv: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    uv: env.LAB_UV,
  };
}

/** Environment-building options from settings. */
export function environmentOptions(settings: LabSettings, signal: AbortSignal): EnvironmentOptions {
  return {
    cacheDir: settings.cacheDir,
    pathEnv: settings.pathEnv,
    pyenvRoot: settings.pyenvRoot,
    uv: settings.uv,
    timeoutMs: 20 * 60_000,
    signal,
  };
}

/** Variables every tool process may see; everything else of lab's environment is withheld. */
export const TOOL_ENV_ALLOWLIST = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
] as const;

/** The allowlisted base environment for tools. */
export function toolEnvironment(env: Env): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of TOOL_ENV_ALLOWLIST) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** Turns a config file's tool entry (or --command) into a command tool spec, resolving its variables. */
export function commandToolSpec(
  name: string,
  entry: {
    command: string;
    env?: readonly string[] | undefined;
    timeout?: string | undefined;
    version?: string | undefined;
    versionCommand?: string | undefined;
  },
  env: Env,
): CommandToolSpec {
  const passEnv: Record<string, string> = {};
  const missingEnv: string[] = [];
  for (const variable of entry.env ?? []) {
    const value = env[variable];
    if (value === undefined) missingEnv.push(variable);
    else passEnv[variable] = value;
  }
  return {
    name,
    command: entry.command,
    passEnv,
    missingEnv,
    timeoutMs:
      entry.timeout === undefined
        ? undefined
        : parseDuration(entry.timeout, `tools.${name}.timeout`),
    version: entry.version,
    versionCommand: entry.versionCommand,
  };
}

/** Raw run options as given on the command line. */
export interface RunFlags {
  readonly suite: string;
  readonly tasks?: readonly string[] | undefined;
  readonly trials?: string | undefined;
  readonly concurrency?: string | undefined;
  readonly timeout?: string | undefined;
  readonly testTimeout?: string | undefined;
  readonly runId?: string | undefined;
  readonly keep?: boolean | undefined;
}

/** Resolves a run: flags > LAB_* variables > lab.config.json > defaults. Frozen. */
export function resolveRunConfig(options: {
  flags: RunFlags;
  env: Env;
  file: ConfigFile;
  settings: LabSettings;
  tool: Tool;
  toolTimeoutMs?: number | undefined;
  labVersion: string;
  signal: AbortSignal;
}): RunConfig {
  const { flags, env, file, settings, tool } = options;
  const pick = (
    flag: string | undefined,
    variable: string,
  ): { value: string; from: string } | undefined => {
    if (flag !== undefined)
      return {
        value: flag,
        from: `--${variable.toLowerCase().replace(/^lab_/, "").replace(/_/g, "-")}`,
      };
    const fromEnv = env[variable];
    return fromEnv === undefined ? undefined : { value: fromEnv, from: variable };
  };
  const trials = pick(flags.trials, "LAB_TRIALS");
  const concurrency = pick(flags.concurrency, "LAB_CONCURRENCY");
  const timeout = pick(flags.timeout, "LAB_TIMEOUT");
  const testTimeout = pick(flags.testTimeout, "LAB_TEST_TIMEOUT");
  const limits: TrialLimits = {
    setupMs: 10 * 60_000,
    toolMs:
      timeout !== undefined
        ? parseDuration(timeout.value, timeout.from)
        : (options.toolTimeoutMs ??
          (file.defaults.timeout === undefined
            ? 30 * 60_000
            : parseDuration(file.defaults.timeout, "defaults.timeout"))),
    installMs: 20 * 60_000,
    testMs:
      testTimeout !== undefined
        ? parseDuration(testTimeout.value, testTimeout.from)
        : file.defaults.testTimeout === undefined
          ? 30 * 60_000
          : parseDuration(file.defaults.testTimeout, "defaults.testTimeout"),
  };
  const runId = checkRunId(
    flags.runId ??
      (tool.name === "command"
        ? `${flags.suite}-command-${tool.fingerprint}`
        : `${flags.suite}-${tool.name}`),
  );
  const resolvedTrials =
    trials !== undefined
      ? parsePositiveInt(trials.value, trials.from)
      : (file.defaults.trials ?? 1);
  const resolvedConcurrency =
    concurrency !== undefined
      ? parsePositiveInt(concurrency.value, concurrency.from)
      : (file.defaults.concurrency ?? 1);
  if (flags.tasks?.length === 0) throw new UsageError("--tasks was given no task ids.");
  return Object.freeze({
    cwd: settings.cwd,
    suite: flags.suite,
    evalsDir: settings.evalsDir,
    tool,
    taskIds: flags.tasks,
    trials: resolvedTrials,
    concurrency: resolvedConcurrency,
    runId,
    runsDir: settings.runsDir,
    limits,
    environment: environmentOptions(settings, options.signal),
    toolEnv: toolEnvironment(env),
    labVersion: options.labVersion,
    scratchRoot: settings.scratchRoot,
    keepScratch: flags.keep === true,
    recorded: {
      trials: resolvedTrials,
      concurrency: resolvedConcurrency,
      limits,
      tasks: flags.tasks ?? null,
      toolCommand: tool.description,
    },
  });
}
