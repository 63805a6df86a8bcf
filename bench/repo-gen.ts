/**
 * Mining and validation time per candidate of `lab gen --from-repo`. How it measures, and its
 * options: USAGE.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateRepoSuite } from "../src/gen/index.js";
import { uvPassEnvFrom } from "../src/config/index.js";
import { buildAcceptanceHistory, startRunCounter } from "../test/helpers/pr-history.js";
import { integerOption, parseScriptArgs } from "../scripts/args.js";

const USAGE = `usage: npm run bench:repo-gen -- [--from-repo REPO --repo-name OWNER/NAME] [--limit N]
         [--proof-runs 3] [--concurrency 1] [--cache-dir DIR] [--cold] [--evals-dir DIR]

Mining and validation time per candidate of \`lab gen --from-repo\`: of the ten-change fixture
of the tests, or with --from-repo of a repository, e.g.
  npm run bench:repo-gen -- --from-repo /tmp/mirrors/pallets/flask --repo-name pallets/flask --limit 20
Mining covers walking the history and splitting every change; per candidate, "environment"
is inferring the environment and resolving its pins, "validate" the proof runs (each: a gold
grade and a grade with no change).

  --from-repo REPO      the repository to mine, a folder or a URL (default: the tests'
                        ten-change fixture)
  --repo-name NAME      its OWNER/NAME
  --limit N             walk at most N merged changes, newest first (default: all)
  --proof-runs N        proof runs per candidate (default: 3)
  --concurrency N       candidates at once (default: 1)
  --cache-dir DIR       the environment cache (default: the tests' shared cache for the
                        fixture, LAB_CACHE_DIR or ~/.cache/lab otherwise)
  --cold                a fresh environment cache, removed at the end
  --evals-dir DIR       where the suite is written, and kept (default: a temporary folder)
`;

const { values } = parseScriptArgs({
  name: "repo-gen",
  usage: USAGE,
  options: {
    "from-repo": { type: "string" },
    "repo-name": { type: "string" },
    limit: { type: "string" },
    "proof-runs": { type: "string", default: "3" },
    concurrency: { type: "string", default: "1" },
    "cache-dir": { type: "string" },
    "evals-dir": { type: "string" },
    cold: { type: "boolean", default: false },
  },
});
const limit = values.limit === undefined ? undefined : integerOption("limit", values.limit);
const proofRuns = integerOption("proof-runs", values["proof-runs"]);
const concurrency = integerOption("concurrency", values.concurrency);
// The tests' shared environment cache (test/helpers/temp.ts, which imports vitest).
const sharedCacheDir =
  process.env.LAB_TEST_CACHE_DIR ?? path.join(import.meta.dirname, "..", ".cache", "test-lab");
const scratch = mkdtempSync(path.join(os.tmpdir(), "lab-bench-repo-"));
let from = values["from-repo"];
const counter = from === undefined ? await startRunCounter() : undefined;
if (from === undefined) {
  from = path.join(scratch, "widget");
  buildAcceptanceHistory(from, counter?.url ?? "");
}
const cacheDir = values.cold
  ? path.join(scratch, "cache")
  : (values["cache-dir"] ??
    (values["from-repo"] === undefined
      ? sharedCacheDir
      : (process.env.LAB_CACHE_DIR ?? path.join(os.homedir(), ".cache", "lab"))));
const evalsDir = values["evals-dir"] ?? path.join(scratch, "evals");
const suite = path.basename(from).replace(/\.git$/, "");

const started = performance.now();
const result = await generateRepoSuite(
  {
    suiteDir: path.join(evalsDir, suite),
    from,
    branch: "main",
    limit,
    repoName: values["repo-name"],
    proofRuns,
    validate: true,
    concurrency,
    testTimeoutMs: 30 * 60_000,
    environment: {
      cacheDir,
      pathEnv: process.env.PATH ?? "/usr/bin:/bin",
      home: os.homedir(),
      uvPassEnv: uvPassEnvFrom(process.env),
      pyenvRoot: process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv"),
      uv: process.env.LAB_UV,
      timeoutMs: 20 * 60_000,
    },
    labVersion: "bench",
    signal: new AbortController().signal,
  },
  { emit: () => undefined },
);
const totalMs = performance.now() - started;

const s = (ms: number): string => (ms / 1000).toFixed(2);
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2 === 1
      ? (sorted[mid] ?? 0)
      : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const verdict = new Map<string, string>([
  ...result.kept.map((task) => [task.id, "kept"] as const),
  ...result.dropped.map((drop) => [drop.id, drop.category] as const),
]);
console.log(
  `${result.repo}: ${String(result.walked)} changes walked, ${String(result.candidates)} candidates, ${String(result.kept.length)} kept; cache ${cacheDir}`,
);
console.log(
  `mining: ${s(result.miningMs)} s in all, ${s(result.miningMs / Math.max(1, result.walked))} s per walked change`,
);
console.log("");
console.log(
  "| candidate | verdict | environment s | base+render s | validate s | proof runs | s per run |",
);
console.log("|---|---|---|---|---|---|---|");
for (const timing of result.timings) {
  const perRun = timing.proofRuns === 0 ? "" : s(timing.validateMs / timing.proofRuns);
  console.log(
    `| ${timing.id} | ${verdict.get(timing.id) ?? "?"} | ${s(timing.environmentMs)} | ${s(timing.renderMs)} | ${s(timing.validateMs)} | ${String(timing.proofRuns)} | ${perRun} |`,
  );
}
const validated = result.timings.filter((timing) => timing.proofRuns > 0);
const kept = validated.filter((timing) => verdict.get(timing.id) === "kept");
console.log("");
console.log(
  `median environment inference per candidate: ${s(median(result.timings.map((t) => t.environmentMs)))} s`,
);
console.log(
  `median validation per validated candidate: ${s(median(validated.map((t) => t.validateMs)))} s (kept ones: ${s(median(kept.map((t) => t.validateMs)))} s)`,
);
console.log(
  `median time per proof run (two grades): ${s(median(validated.map((t) => t.validateMs / t.proofRuns)))} s`,
);
console.log(
  `whole gen: ${s(totalMs)} s, ${s(totalMs / Math.max(1, result.candidates))} s per candidate`,
);
await counter?.close();
rmSync(scratch, { recursive: true, force: true });
