import os from "node:os";
import path from "node:path";
import { defaultToolsDir } from "../agents/index.js";
import {
  sourceDescription,
  sourceFingerprint,
  sourceName,
  UsageError,
  type ChangeSource,
} from "../core/index.js";
import {
  nodePassEnvFrom,
  UV_PASSED_VARIABLES,
  type EnvironmentOptions,
} from "../environment/index.js";
import {
  MAX_TRIALS,
  type RunConfig,
  type SandboxSettings,
  type TrialLimits,
} from "../runner/index.js";
import {
  DEFAULT_SANDBOX,
  DOCKER_PASSED_VARIABLES,
  resolveSandboxProvider,
  type DockerSettings,
} from "../sandbox/index.js";
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
  /** The user's home folder. */
  readonly home: string;
  /** Where `lab tools install` puts agent CLIs (LAB_TOOLS_DIR). */
  readonly toolsDir: string;
  /** The user's settings of uv: its index, cache, certificates and proxies. */
  readonly uvPassEnv: Readonly<Record<string, string>>;
  /** The user's settings of npm: its registry, certificates and proxies (JS tasks). */
  readonly npmPassEnv?: Readonly<Record<string, string>> | undefined;
  /** How the docker sandbox reaches the engine and builds its image. */
  readonly docker: DockerSettings;
}

/** The docker sandbox's settings: the CLI's environment, lab's cache, LAB_DOCKER_* choices. */
export function dockerSettingsFrom(env: Env, home: string, cacheDir: string): DockerSettings {
  const cliEnv: Record<string, string> = {
    PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
  };
  for (const name of DOCKER_PASSED_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== "") cliEnv[name] = value;
  }
  const extra = (env.LAB_DOCKER_PACKAGES ?? "").split(/[\s,]+/).filter((name) => name !== "");
  for (const name of extra) {
    if (!/^[a-z0-9][a-z0-9+.-]+$/.test(name))
      throw new UsageError(
        `LAB_DOCKER_PACKAGES names "${name}", which is not a Debian package name.`,
        "List Debian packages separated by spaces or commas, e.g. LAB_DOCKER_PACKAGES=build-essential.",
      );
  }
  return {
    env: cliEnv,
    cacheDir,
    image: env.LAB_DOCKER_IMAGE === "" ? undefined : env.LAB_DOCKER_IMAGE,
    debianMirror: env.LAB_DEBIAN_MIRROR === "" ? undefined : env.LAB_DEBIAN_MIRROR,
    extraPackages: extra,
  };
}

/** The variables of `UV_PASSED_VARIABLES` that are set in `env`. */
export function uvPassEnvFrom(env: Env): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of UV_PASSED_VARIABLES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
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
  const scratchRoot = path.resolve(
    cwd,
    env.LAB_SCRATCH_DIR ?? path.join(os.tmpdir(), `lab-scratch-${String(os.userInfo().uid)}`),
  );
  // A sandbox mounts its own /dev, /proc and /sys: a work tree there would vanish inside it.
  // A folder in /dev/shm, the host's memory folder, is the exception: the sandbox binds it there.
  const inMemoryFolder = scratchRoot.startsWith("/dev/shm/");
  const shadowed = ["/dev", "/proc", "/sys"].find(
    (dir) => (scratchRoot === dir || scratchRoot.startsWith(`${dir}/`)) && !inMemoryFolder,
  );
  if (shadowed !== undefined) {
    throw new UsageError(
      `LAB_SCRATCH_DIR=${scratchRoot} is under ${shadowed}, which a sandbox replaces with its own: work trees there would not exist inside it.`,
      "For a scratch folder in memory, use a folder in /dev/shm (such as /dev/shm/lab-scratch) or on another tmpfs.",
    );
  }
  const resolvedCacheDir = path.resolve(cwd, cacheDir);
  return {
    cwd,
    evalsDir: evalsDir === undefined ? undefined : path.resolve(cwd, evalsDir),
    runsDir: path.resolve(cwd, flags.runsDir ?? env.LAB_RUNS_DIR ?? "runs"),
    cacheDir: resolvedCacheDir,
    scratchRoot,
    pyenvRoot: env.PYENV_ROOT ?? path.join(home, ".pyenv"),
    pathEnv: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    uv: env.LAB_UV,
    home,
    toolsDir: path.resolve(cwd, defaultToolsDir({ ...env, HOME: home })),
    uvPassEnv: uvPassEnvFrom(env),
    npmPassEnv: nodePassEnvFrom(env),
    docker: dockerSettingsFrom(env, home, resolvedCacheDir),
  };
}

/** Environment-building options from settings. */
export function environmentOptions(settings: LabSettings, signal: AbortSignal): EnvironmentOptions {
  return {
    cacheDir: settings.cacheDir,
    pathEnv: settings.pathEnv,
    home: settings.home,
    uvPassEnv: settings.uvPassEnv,
    npmPassEnv: settings.npmPassEnv,
    pyenvRoot: settings.pyenvRoot,
    uv: settings.uv,
    timeoutMs: 20 * 60_000,
    scratchRoot: settings.scratchRoot,
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
    paths?: readonly string[] | undefined;
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
    paths: entry.paths?.map((dir) => path.resolve(dir)),
    host: { PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: env.HOME ?? os.homedir() },
  };
}

/** Raw run options as given on the command line. */
export interface RunFlags {
  readonly suite: string;
  readonly tasks?: readonly string[] | undefined;
  /** --valid-only: only the tasks reviewed as valid. */
  readonly validOnly?: boolean | undefined;
  /** --strong-only: only the tasks the oracle audit calls strong. */
  readonly strongOnly?: boolean | undefined;
  readonly trials?: string | undefined;
  readonly concurrency?: string | undefined;
  readonly timeout?: string | undefined;
  readonly testTimeout?: string | undefined;
  readonly runId?: string | undefined;
  /** --label: the name reports give the run's tool. */
  readonly label?: string | undefined;
  readonly keep?: boolean | undefined;
  /** --sandbox: bwrap (default), docker or none. */
  readonly sandbox?: string | undefined;
  /** --no-network: the tool runs without network. */
  readonly noNetwork?: boolean | undefined;
  /** --memory: e.g. 4g. */
  readonly memory?: string | undefined;
  /** --disk: e.g. 10g. */
  readonly disk?: string | undefined;
  /** --max-cost-total: the run's spending cap in USD. */
  readonly maxCostTotal?: string | undefined;
}

/** A --max-cost-total: a positive amount in USD. */
function parseCostCap(text: string): number {
  const amount = Number(text.replace(/^\$/, ""));
  if (text.trim() === "" || !Number.isFinite(amount) || amount <= 0)
    throw new UsageError(
      `--max-cost-total expects a positive amount in USD, e.g. 20 or 7.50; got "${text}".`,
    );
  return amount;
}

/** Refuses trials per task past MAX_TRIALS (lab.config.json's schema checks its own). */
function checkTrials(trials: number, from: string): number {
  if (trials <= MAX_TRIALS) return trials;
  throw new UsageError(
    `${from} is at most ${String(MAX_TRIALS)} trials per task; got ${String(trials)}.`,
    "Ask for fewer: `lab plan --baseline RATE --difference RATE` says how many trials per task a comparison needs.",
  );
}

/** Resolves a run: flags > LAB_* variables > lab.config.json > defaults. Frozen. */
export function resolveRunConfig(options: {
  flags: RunFlags;
  env: Env;
  file: ConfigFile;
  settings: LabSettings;
  source: ChangeSource;
  toolTimeoutMs?: number | undefined;
  labVersion: string;
  signal: AbortSignal;
}): RunConfig {
  const { flags, env, file, settings, source } = options;
  const name = sourceName(source);
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
      (source.kind === "stated"
        ? `${flags.suite}-${name}-${source.version.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60)}`
        : name === "command"
          ? `${flags.suite}-command-${sourceFingerprint(source)}`
          : `${flags.suite}-${name}`),
  );
  const resolvedTrials =
    trials !== undefined
      ? checkTrials(parsePositiveInt(trials.value, trials.from), trials.from)
      : (file.defaults.trials ?? 1);
  const resolvedConcurrency =
    concurrency !== undefined
      ? parsePositiveInt(concurrency.value, concurrency.from)
      : (file.defaults.concurrency ?? 1);
  if (flags.tasks?.length === 0) throw new UsageError("--tasks was given no task ids.");
  const maxCostTotalUsd =
    flags.maxCostTotal === undefined ? undefined : parseCostCap(flags.maxCostTotal);
  const sandbox = resolveSandboxSettings({
    flags,
    env,
    file,
    settings,
    toolName: name,
    runId,
    pick,
  });
  return Object.freeze({
    cwd: settings.cwd,
    suite: flags.suite,
    evalsDir: settings.evalsDir,
    source,
    taskIds: flags.tasks,
    validOnly: flags.validOnly === true,
    strongOnly: flags.strongOnly === true,
    trials: resolvedTrials,
    concurrency: resolvedConcurrency,
    runId,
    ...(flags.label === undefined ? {} : { label: checkLabel(flags.label) }),
    ...(maxCostTotalUsd === undefined ? {} : { maxCostTotalUsd }),
    runsDir: settings.runsDir,
    limits,
    sandbox,
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
      validOnly: flags.validOnly === true,
      strongOnly: flags.strongOnly === true,
      ...(maxCostTotalUsd === undefined ? {} : { maxCostTotalUsd }),
      toolCommand: sourceDescription(source),
      sandbox: {
        provider: sandbox.provider.name,
        isolatesFilesystem: sandbox.provider.isolatesFilesystem,
        network: sandbox.network,
        ...sandbox.limits,
      },
    },
  });
}

/** A --label: one short line a report can show as a tool's name. */
function checkLabel(label: string): string {
  const trimmed = label.trim();
  if (trimmed === "" || trimmed.length > 60 || /[\n\r\t]/.test(trimmed))
    throw new UsageError(
      `--label expects a short name for the run's tool (1 to 60 characters on one line); got ${JSON.stringify(label)}.`,
    );
  return trimmed;
}

/** Default limits of a trial's sandbox; memory is unlimited unless asked for (docs/design/sandbox.md). */
export const DEFAULT_SANDBOX_LIMITS = { diskMb: 10 * 1024, maxProcesses: 4096 } as const;

/** The sandbox of a run: flags > LAB_* variables > lab.config.json (tool entry, then defaults) > defaults. */
function resolveSandboxSettings(options: {
  flags: RunFlags;
  env: Env;
  file: ConfigFile;
  settings: LabSettings;
  /** The tool's name, whose lab.config.json entry may set its network. */
  toolName: string;
  /** The run's id: docker labels its containers with it. */
  runId: string;
  pick: (flag: string | undefined, variable: string) => { value: string; from: string } | undefined;
}): SandboxSettings {
  const { flags, env, file, settings, toolName, runId, pick } = options;
  const entry = file.tools[toolName];
  const providerName =
    pick(flags.sandbox, "LAB_SANDBOX")?.value ?? file.defaults.sandbox ?? DEFAULT_SANDBOX;
  const memory =
    pick(flags.memory, "LAB_MEMORY") ?? optionalFrom(file.defaults.memory, "defaults.memory");
  const disk = pick(flags.disk, "LAB_DISK") ?? optionalFrom(file.defaults.disk, "defaults.disk");
  const networkOff =
    flags.noNetwork === true || env.LAB_NO_NETWORK === "1" || entry?.network === false;
  return {
    provider: resolveSandboxProvider(providerName, {
      pathEnv: settings.pathEnv,
      docker: settings.docker,
      runId,
    }),
    network: !networkOff,
    limits: {
      memoryMb: memory === undefined ? null : parseSizeMb(memory.value, memory.from),
      diskMb:
        disk === undefined ? DEFAULT_SANDBOX_LIMITS.diskMb : parseSizeMb(disk.value, disk.from),
      maxProcesses: file.defaults.maxProcesses ?? DEFAULT_SANDBOX_LIMITS.maxProcesses,
    },
    hostHome: settings.home,
  };
}

function optionalFrom(
  value: string | undefined,
  from: string,
): { value: string; from: string } | undefined {
  return value === undefined ? undefined : { value, from };
}

const SIZE_UNITS: Readonly<Record<string, number>> = { k: 1 / 1024, m: 1, g: 1024, t: 1024 * 1024 };

/** Parses "512m", "4g", "4G", "1.5g" or bare MiB ("2048") into MiB (at least 1). */
export function parseSizeMb(value: string, option: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt])?(?:i?b)?\s*$/i.exec(value);
  const amount = match?.[1];
  const mb =
    match === null || amount === undefined
      ? NaN
      : Math.round(Number(amount) * (SIZE_UNITS[(match[2] ?? "m").toLowerCase()] ?? 1));
  if (!(mb >= 1)) {
    throw new UsageError(
      `${option} expects a size such as 512m, 4g or 2048 (MiB); got "${value}".`,
    );
  }
  return mb;
}
