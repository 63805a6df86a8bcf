import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { LabError } from "../../core/index.js";
import { runCommand } from "../../process/index.js";
import { lastLine } from "../uv.js";
import { fetchRegistryPackage, type NpmHost } from "./registry-package.js";
import { nodePackageName } from "./releases.js";

/** A Node runtime in lab's cache. */
export interface NodeRuntime {
  readonly version: string;
  /** Its folder, `CACHE/node/<version>/`. */
  readonly dir: string;
  /** Its bin folder, to put first on PATH; holds `node` only (see docs/design/node-runtime.md). */
  readonly binDir: string;
  /** The `node` executable. */
  readonly node: string;
  /** Whether this call fetched it (false: it was in the cache). */
  readonly fetched: boolean;
  /** How long fetching it took, in milliseconds; 0 from the cache. */
  readonly fetchMs: number;
}

/** Where lab keeps Node runtimes, managers and the release list. */
export function nodeCacheDir(cacheDir: string): string {
  return path.join(cacheDir, "node");
}

/**
 * Node `version` ("18.19.0") from the npm registry's node-<platform>-<arch> package, unpacked
 * in `cacheDir/node/<version>/` and checked to answer `node --version` with it before it is
 * renamed in. Fetched once per version: concurrent grades asking for it at once take turns
 * on a lock, and the second finds the first's.
 */
export async function ensureNodeRuntime(
  version: string,
  cacheDir: string,
  host: NpmHost,
): Promise<NodeRuntime> {
  const exact = semver.valid(version);
  if (exact === null || exact !== version) {
    throw new LabError("NODE_NOT_FOUND", `"${version}" is not an exact Node version.`, {
      hint: "Resolve the project's spec to a release first (nodeVersionFor).",
    });
  }
  const dir = path.join(nodeCacheDir(cacheDir), version);
  const spec = `${nodePackageName()}@${version}`;
  const fetched = await fetchRegistryPackage(spec, dir, host, async (staging) => {
    const node = path.join(staging, "bin", "node");
    const answer = existsSync(node)
      ? await runCommand([node, "--version"], {
          env: { PATH: host.pathEnv },
          timeoutMs: 60_000,
          captureStdout: true,
          signal: host.signal,
        })
      : null;
    const said = answer?.stdout?.trim() ?? "";
    if (answer?.exitCode !== 0 || said !== `v${version}`) {
      throw new LabError(
        "ENVIRONMENT_FAILED",
        `The Node of ${spec} does not run here: \`node --version\` ${answer === null ? "is missing (no bin/node)" : `answered ${JSON.stringify(said || lastLine(answer.stderrTail))}`}.`,
        {
          hint: `Node ${version} may not be built for this machine (${nodePackageName()}); a project that needs it cannot be graded here.`,
        },
      );
    }
  });
  return {
    version,
    dir,
    binDir: path.join(dir, "bin"),
    node: path.join(dir, "bin", "node"),
    fetched: fetched.fetched,
    fetchMs: fetched.durationMs,
  };
}

/** The Node versions in lab's cache, oldest first. */
export function listNodeRuntimes(cacheDir: string): string[] {
  const dir = nodeCacheDir(cacheDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(
      (name) => semver.valid(name) === name && existsSync(path.join(dir, name, "bin", "node")),
    )
    .sort(semver.compare);
}
