import os from "node:os";
import { LabError } from "../core/index.js";
import { findOnPath, runCommand, type ExecResult } from "../process/index.js";
import { SYSTEM_PATH } from "./limits.js";

/**
 * The variables of the user's environment the docker CLI is given, by name: where the engine
 * is (a context, a host, TLS) and where the CLI's own configuration lives.
 */
export const DOCKER_PASSED_VARIABLES = [
  "DOCKER_HOST",
  "DOCKER_CONTEXT",
  "DOCKER_CONFIG",
  "DOCKER_CERT_PATH",
  "DOCKER_TLS_VERIFY",
  "DOCKER_API_VERSION",
  "XDG_RUNTIME_DIR",
] as const;

/** How lab reaches the Docker engine and builds its images (from config/, which reads the environment). */
export interface DockerSettings {
  /** The docker CLI's environment: PATH, HOME and the passed variables that are set. */
  readonly env: Readonly<Record<string, string>>;
  /** lab's cache folder; image builds keep their lock, logs and root file systems in `docker/`. */
  readonly cacheDir: string;
  /** An image to run instead of lab's own (LAB_DOCKER_IMAGE); it needs bash and coreutils. */
  readonly image?: string | undefined;
  /** The Debian mirror debootstrap fetches from (LAB_DEBIAN_MIRROR); default: the one apt uses. */
  readonly debianMirror?: string | undefined;
  /**
   * Debian packages to add to lab's base image (LAB_DOCKER_PACKAGES), e.g. build-essential for
   * tasks whose install compiles C; they are part of the image's tag.
   */
  readonly extraPackages?: readonly string[] | undefined;
}

/** Settings from a PATH alone, for callers without a configuration (tests, the bench). */
export function defaultDockerSettings(pathEnv: string, cacheDir: string): DockerSettings {
  return { env: { PATH: `${pathEnv}:${SYSTEM_PATH}`, HOME: os.homedir() }, cacheDir };
}

/** The docker CLI, found on the settings' PATH. */
export interface DockerCli {
  readonly binary: string;
  readonly settings: DockerSettings;
  /** Runs `docker ARGS`; never throws for a non-zero exit. `env` is added to the CLI's own. */
  run(
    args: readonly string[],
    options?: {
      timeoutMs?: number;
      logFile?: string;
      env?: Readonly<Record<string, string>>;
      signal?: AbortSignal;
    },
  ): Promise<ExecResult>;
  /** Runs `docker ARGS` and returns its stdout; a LabError naming `what` when it fails. */
  output(args: readonly string[], what: string, timeoutMs?: number): Promise<string>;
}

const INSTALL_HINT =
  "Install Docker (Debian/Ubuntu: `apt-get install docker.io`; elsewhere Docker Engine or Docker Desktop) and start it, or use `--sandbox bwrap`.";

/** The docker CLI on the settings' PATH; SANDBOX_UNAVAILABLE when there is none. */
export function requireDockerCli(settings: DockerSettings): DockerCli {
  const binary = findOnPath("docker", settings.env.PATH ?? SYSTEM_PATH);
  if (binary === null) {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      "The docker sandbox needs the `docker` command, and there is none on PATH.",
      { hint: INSTALL_HINT },
    );
  }
  return createDockerCli(binary, settings);
}

/** The docker CLI on the settings' PATH, or null. */
export function findDockerCli(settings: DockerSettings): DockerCli | null {
  const binary = findOnPath("docker", settings.env.PATH ?? SYSTEM_PATH);
  return binary === null ? null : createDockerCli(binary, settings);
}

function createDockerCli(binary: string, settings: DockerSettings): DockerCli {
  const cli: DockerCli = {
    binary,
    settings,
    run(args, options = {}) {
      return runCommand([binary, ...args], {
        env: { ...settings.env, ...options.env },
        timeoutMs: options.timeoutMs ?? 60_000,
        logFile: options.logFile,
        signal: options.signal,
      });
    },
    async output(args, what, timeoutMs) {
      const result = await cli.run(args, timeoutMs === undefined ? {} : { timeoutMs });
      if (result.exitCode !== 0) {
        const reason = (result.stderrTail || result.stdoutTail).trim() || describeEnd(result);
        throw new LabError("SANDBOX_UNAVAILABLE", `docker could not ${what}: ${reason}`, {
          hint: "Check that the Docker engine is running (`docker info`).",
        });
      }
      return result.stdoutTail;
    },
  };
  return cli;
}

function describeEnd(result: ExecResult): string {
  if (result.timedOut) return "it timed out";
  return `exit ${String(result.exitCode ?? result.signal)}`;
}

/** What lab needs to know of the engine. */
export interface EngineInfo {
  readonly version: string;
  /** The engine's architecture as Node names it (x64, arm64): the Node layer's. */
  readonly arch: string;
}

/** Asks the engine for its version; SANDBOX_UNAVAILABLE, saying how to start one, when none answers. */
export async function checkEngine(cli: DockerCli): Promise<EngineInfo> {
  const result = await cli.run(["version", "--format", "{{.Server.Version}} {{.Server.Arch}}"], {
    timeoutMs: 30_000,
  });
  const [version, arch] = result.stdoutTail.trim().split(" ");
  if (result.exitCode !== 0 || version === undefined || version === "" || arch === undefined) {
    const reason = result.stderrTail.trim().split("\n").pop() ?? describeEnd(result);
    throw new LabError("SANDBOX_UNAVAILABLE", `No Docker engine answers: ${reason}`, {
      hint: "Start it (`sudo systemctl start docker`, or `sudo dockerd &` where there is no systemd; Docker Desktop on macOS), check DOCKER_HOST or the docker context, or use `--sandbox bwrap`.",
    });
  }
  const nodeArch: Readonly<Record<string, string>> = {
    amd64: "x64",
    arm64: "arm64",
    aarch64: "arm64",
  };
  return { version, arch: nodeArch[arch] ?? arch };
}

/** Escapes one `key=value` field of `docker run --mount`, which is CSV: quote it if it needs it. */
export function mountField(key: string, value: string): string {
  const field = `${key}=${value}`;
  return /[",\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}
