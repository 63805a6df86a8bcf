/**
 * What fetching one Node runtime from the npm registry costs (ensureNodeRuntime).
 *
 *   npx tsx bench/node-runtime.ts [--version 18.19.0]
 *
 * Fetches the version twice into fresh cache folders under a fresh HOME: first with npm's own
 * cache empty (cold), then with it holding the tarball (warm), and once more from lab's cache.
 * The tarball is downloaded once or twice; nothing is kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { ensureNodeRuntime, nodePassEnvFrom } from "../src/environment/index.js";

const { values } = parseArgs({ options: { version: { type: "string", default: "18.19.0" } } });
const version = values.version;
const root = mkdtempSync(path.join(os.tmpdir(), "lab-bench-node-"));
const host = {
  pathEnv: process.env.PATH ?? "/usr/bin:/bin",
  home: path.join(root, "home"),
  passEnv: nodePassEnvFrom(process.env),
};
try {
  console.log(`Node ${version}, load average ${os.loadavg()[0]?.toFixed(1) ?? "?"} at the start`);
  for (const label of ["cold (npm's cache empty)", "warm (npm's cache holds it)"]) {
    const cacheDir = mkdtempSync(path.join(root, "cache-"));
    const runtime = await ensureNodeRuntime(version, cacheDir, host);
    const started = performance.now();
    await ensureNodeRuntime(version, cacheDir, host);
    const cached = performance.now() - started;
    console.log(
      `${label}: fetched, unpacked and checked in ${(runtime.fetchMs / 1000).toFixed(1)} s; from lab's cache ${cached.toFixed(1)} ms`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
