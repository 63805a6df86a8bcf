import os from "node:os";
import path from "node:path";
import { UsageError, type SandboxProvider } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { DEFAULT_SANDBOX, resolveSandboxProvider } from "../sandbox/index.js";
import { parseDuration, parsePositiveInt } from "./duration.js";
import type { ConfigFile } from "./file.js";
import { environmentOptions, toolEnvironment, type LabSettings } from "./resolve.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `lab worker`'s options as given on the command line. */
export interface WorkerFlags {
  readonly concurrency?: string | undefined;
  readonly sandbox?: string | undefined;
  readonly name?: string | undefined;
  readonly lockDuration?: string | undefined;
  readonly idleExit?: string | undefined;
  readonly mirrors?: string | undefined;
}

/** A worker's machine, resolved: flags > LAB_* variables > lab.config.json > defaults. */
export interface WorkerConfig {
  readonly name: string;
  readonly concurrency: number;
  readonly lockDurationMs: number;
  readonly idleExitMs: number | undefined;
  readonly sandbox: SandboxProvider;
  readonly environment: EnvironmentOptions;
  /** The allowlisted environment tools start from. */
  readonly toolEnv: Readonly<Record<string, string>>;
  readonly mirrorsDir: string | undefined;
}

/** Resolves `lab worker`'s settings. */
export function resolveWorkerConfig(options: {
  flags: WorkerFlags;
  env: Env;
  file: ConfigFile;
  settings: LabSettings;
  signal: AbortSignal;
}): WorkerConfig {
  const { flags, env, file, settings } = options;
  const concurrency = flags.concurrency ?? env.LAB_CONCURRENCY;
  const name = flags.name ?? `${os.hostname()}-${String(process.pid)}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/.test(name))
    throw new UsageError(
      `--name expects letters, digits, '.', '_', '@' or '-' (at most 100); got "${name}".`,
    );
  return {
    name,
    concurrency:
      concurrency === undefined
        ? (file.defaults.concurrency ?? 1)
        : parsePositiveInt(
            concurrency,
            flags.concurrency === undefined ? "LAB_CONCURRENCY" : "--concurrency",
          ),
    lockDurationMs:
      flags.lockDuration === undefined
        ? 30_000
        : parseDuration(flags.lockDuration, "--lock-duration"),
    idleExitMs:
      flags.idleExit === undefined ? undefined : parseDuration(flags.idleExit, "--idle-exit"),
    sandbox: resolveSandboxProvider(
      flags.sandbox ?? env.LAB_SANDBOX ?? file.defaults.sandbox ?? DEFAULT_SANDBOX,
      { pathEnv: settings.pathEnv },
    ),
    environment: environmentOptions(settings, options.signal),
    toolEnv: toolEnvironment(env),
    mirrorsDir:
      (flags.mirrors ?? env.LAB_MIRRORS) === undefined
        ? undefined
        : path.resolve(settings.cwd, flags.mirrors ?? env.LAB_MIRRORS ?? ""),
  };
}
