import { execFileSync } from "node:child_process";
import path from "node:path";
import type { SandboxSpec } from "../../src/core/index.js";
import { defaultDockerSettings, type DockerSettings } from "../../src/sandbox/index.js";
import { sharedCacheDir } from "../helpers/temp.js";

/**
 * Whether bubblewrap can make a sandbox here (scripts/test.sh installs it). Without it the
 * sandbox tests skip; the runner's and CLI's tests, which use the default sandbox, fail with
 * SANDBOX_UNAVAILABLE and say how to install it.
 */
export function hasBwrap(): boolean {
  try {
    execFileSync("bwrap", ["--unshare-user", "--ro-bind", "/", "/", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the docker tests cannot run here (no docker command, or no engine answering), or null
 * when they can. scripts/test.sh installs docker.io and starts dockerd when run as root.
 */
export function dockerUnavailable(): string | null {
  try {
    execFileSync("docker", ["version", "--format", "{{.Server.Version}}"], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 30_000,
    });
    return null;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim().split("\n").pop();
    return stderr === undefined || stderr === ""
      ? "no docker command on PATH"
      : `no Docker engine answers (${stderr})`;
  }
}

/**
 * Why the docker sandbox's slow end-to-end tests (hostile tools, killed runs) do not run here,
 * or null: no engine, or LAB_TEST_DOCKER=contract (scripts/test.sh's second Node leg, which
 * runs only the contract: the provider is the same code on either Node).
 */
export function dockerEndToEndUnavailable(): string | null {
  if (process.env.LAB_TEST_DOCKER === "contract")
    return "LAB_TEST_DOCKER=contract: only the docker sandbox's contract runs";
  return dockerUnavailable();
}

/** The lines docker prints for `args` (a listing: `images`, `ps`, `image inspect`), blanks left out. */
export function dockerLines(args: readonly string[]): string[] {
  return execFileSync("docker", args, { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "");
}

/** The docker provider's settings in tests: lab's PATH, the shared cache (image build lock). */
export function testDockerSettings(): DockerSettings {
  return defaultDockerSettings(process.env.PATH ?? "/usr/bin:/bin", sharedCacheDir);
}

/**
 * A sandbox of a work tree and nothing else: no tool, no hidden folders, no network, no limits;
 * its state and HOME beside the work tree.
 */
export function bareSpec(workTree: string, fields: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    workTree,
    stateDir: `${workTree}-state`,
    readOnlyPaths: [],
    toolPaths: [],
    writablePaths: [],
    hiddenPaths: [],
    hostHome: path.join(path.dirname(workTree), "home"),
    pathEnv: "/usr/bin:/bin",
    network: false,
    limits: { memoryMb: null, diskMb: null, maxProcesses: null },
    ...fields,
  };
}
