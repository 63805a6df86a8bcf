/**
 * What fetching one Node runtime from the npm registry costs (ensureNodeRuntime). How it
 * measures, and its options: USAGE.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ensureNodeRuntime, nodePassEnvFrom } from "../src/environment/index.js";
import { fail, parseScriptArgs } from "../scripts/args.js";

const USAGE = `usage: npm run bench:node-runtime -- [--version 18.19.0]

What fetching one Node runtime from the npm registry costs (ensureNodeRuntime). Fetches the
version twice into fresh cache folders under a fresh HOME: first with npm's own cache empty
(cold), then with it holding the tarball (warm), and once more from lab's cache. The tarball
is downloaded once or twice; nothing is kept.

  --version X.Y.Z   the Node version (default: 18.19.0)
`;

const { values } = parseScriptArgs({
  name: "node-runtime",
  usage: USAGE,
  options: { version: { type: "string", default: "18.19.0" } },
});
const version = values.version;
if (!/^\d+\.\d+\.\d+$/.test(version))
  fail(`--version expects a Node version such as 18.19.0; got "${version}"`);
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
