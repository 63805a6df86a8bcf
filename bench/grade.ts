/**
 * Grading time per task, cold and warm, and lab's own overhead beyond the test process. How it
 * measures, and its options: USAGE.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { installLayersDir } from "../src/environment/index.js";
import { loadOracle, loadSuite, loadTask } from "../src/suite/index.js";
import { median } from "../src/report/index.js";
import { integerOption, parseScriptArgs } from "../scripts/args.js";
import { benchEnvironment, timeGoldGrade } from "./gold-grade.js";

const USAGE = `usage: npm run bench:grade -- [--suite starter] [--evals-dir DIR] [--repeat 3] [--tasks a,b]
         [--no-cold] [--cache-dir DIR]

Grading time per task, cold and warm, and lab's own overhead beyond the test process (goal:
under 1 s). Cold: the environment cache emptied before the task's first grade, so its era's
environment and its install layer are built (uv's own download cache stays warm, as on any
machine that has graded once). Warm: the same grades again with both cached. Overhead = the
whole grade minus the test command's own wall time. For the swebench tier: --suite swebench
--evals-dir DIR --tasks ... (after \`lab gen\`).

  --suite NAME      the suite (default: starter)
  --evals-dir DIR   where the suite is (default: ./evals, then lab's own)
  --tasks A,B       these tasks only (default: all of the suite's)
  --repeat N        warm grades per task, of which the median is shown (default: 3)
  --no-cold         warm grades only
  --cache-dir DIR   reuse this environment cache, warm grades only (default: a fresh one,
                    removed at the end)
`;

const { values } = parseScriptArgs({
  name: "grade",
  usage: USAGE,
  options: {
    suite: { type: "string", default: "starter" },
    "evals-dir": { type: "string" },
    repeat: { type: "string", default: "3" },
    tasks: { type: "string" },
    "no-cold": { type: "boolean", default: false },
    "cache-dir": { type: "string" },
  },
});
const repeat = integerOption("repeat", values.repeat);
// --cache-dir reuses an existing cache (warm only); otherwise a fresh one, removed at the end.
const ownCache = values["cache-dir"] === undefined;
const cacheDir = values["cache-dir"] ?? mkdtempSync(path.join(os.tmpdir(), "lab-bench-cache-"));
const cold = !values["no-cold"] && ownCache;
const environment = benchEnvironment(cacheDir);

async function gradeOnce(
  taskId: string,
): Promise<{ totalMs: number; testsMs: number; resolved: boolean; install: string }> {
  const suite = await loadSuite(values.suite, {
    evalsDir: values["evals-dir"],
    cwd: process.cwd(),
  });
  const task = await loadTask(suite, taskId);
  const oracle = await loadOracle(task);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "lab-bench-"));
  const { totalMs, grade } = await timeGoldGrade(task, oracle, {
    scratchDir: path.join(scratch, "grade"),
    logFile: path.join(scratch, "grade.log"),
    environment,
  });
  rmSync(scratch, { recursive: true, force: true });
  return {
    totalMs,
    testsMs: grade.phaseMs.tests ?? 0,
    resolved: grade.resolved,
    install: grade.install ?? "–",
  };
}

const suite = await loadSuite(values.suite, { evalsDir: values["evals-dir"], cwd: process.cwd() });
const rows: string[][] = [];
const overheads: number[] = [];
const ratios: number[] = [];
const s = (ms: number) => (ms / 1000).toFixed(2);
const taskIds = values.tasks?.split(",") ?? suite.taskIds;
for (const id of taskIds) {
  if (cold) {
    rmSync(path.join(cacheDir, "envs"), { recursive: true, force: true });
    rmSync(installLayersDir(cacheDir), { recursive: true, force: true });
  }
  const first = await gradeOnce(id);
  const warm: { totalMs: number; testsMs: number; install: string }[] = [];
  for (let i = 0; i < repeat; i++) warm.push(await gradeOnce(id));
  const warmTotal = median(warm.map((w) => w.totalMs)) ?? 0;
  const warmTests = median(warm.map((w) => w.testsMs)) ?? 0;
  overheads.push(warmTotal - warmTests);
  ratios.push(warmTotal / warmTests);
  rows.push([
    id,
    cold ? s(first.totalMs) : "–",
    s(warmTotal),
    s(warmTests),
    s(warmTotal - warmTests),
    first.resolved ? "yes" : "NO",
    [...new Set(warm.map((w) => w.install))].join("/"),
  ]);
}
if (ownCache) rmSync(cacheDir, { recursive: true, force: true });

const header = [
  "task",
  "cold grade s",
  "warm grade s",
  "warm tests s",
  "warm overhead s",
  "resolved",
  "warm install",
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
const line = (cells: string[]) =>
  `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
console.log(
  `lab grade benchmark: suite ${values.suite}, ${String(taskIds.length)} tasks, warm = median of ${String(repeat)}, ${String(os.availableParallelism())} cores, node ${process.version}`,
);
console.log(line(header));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const row of rows) console.log(line(row));
console.log(
  `warm overhead beyond the test process: median ${s(median(overheads) ?? 0)} s, max ${s(Math.max(...overheads))} s (goal: under 1 s)`,
);
console.log(`warm grade / bare test process: median ${(median(ratios) ?? 0).toFixed(2)}x`);
