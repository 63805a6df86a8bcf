/**
 * `lab report` over 100 000 stored trial records (4 tools x 1 000 tasks x 25 trials by
 * default). How it measures, and its options: USAGE.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../src/cli/main.js";
import { buildReport, loadReport, renderReportMarkdown } from "../src/report/index.js";
import {
  seededRandom,
  syntheticTask,
  writeSyntheticRuns,
  type SyntheticOutcome,
  type SyntheticRun,
} from "../test/helpers/synthetic-runs.js";
import { fail, integerOption, parseScriptArgs } from "../scripts/args.js";

const USAGE = `usage: npm run bench:report -- [--tools 4] [--tasks 1000] [--trials 25] [--repeat 5] [--dir DIR]

\`lab report\` over 100 000 stored trial records (4 tools x 1 000 tasks x 25 trials by default).
Writes synthetic runs into a temporary runs folder (result.json per trial and tasks.json, as
the runner lays them out), then times the whole in-process \`lab report\` (Markdown): cold,
with no results index (every result.json read, the index written), then warm, with the index
the runner keeps. Also times each stage of a warm report. Goal: warm under 2 s. Wall and CPU
time are both shown: CPU time moves less when the machine is busy.

  --tools N     tools, one run each (default: 4, at most 26)
  --tasks N     tasks (default: 1000)
  --trials N    trials per tool and task (default: 25)
  --repeat N    warm reports, of which the median and the best are shown (default: 5)
  --dir DIR     keep the synthetic store in DIR, and reuse it on the next run with the same
                shape; DIR is emptied first when it holds no store of this shape (default: a
                temporary folder, removed at the end)
`;

const { values } = parseScriptArgs({
  name: "report",
  usage: USAGE,
  options: {
    tools: { type: "string", default: "4" },
    tasks: { type: "string", default: "1000" },
    trials: { type: "string", default: "25" },
    repeat: { type: "string", default: "5" },
    dir: { type: "string" },
  },
});
const toolCount = integerOption("tools", values.tools);
// Tools are named tool-a to tool-z.
if (toolCount > 26) fail(`--tools expects at most 26 tools; got ${values.tools}`);
const taskCount = integerOption("tasks", values.tasks);
const trialCount = integerOption("trials", values.trials);
const repeat = integerOption("repeat", values.repeat);

const runsDir = values.dir ?? mkdtempSync(path.join(os.tmpdir(), "lab-bench-report-"));
const shape = path.join(
  runsDir,
  `.bench-${String(toolCount)}x${String(taskCount)}x${String(trialCount)}`,
);
const random = seededRandom(42);
const repos = ["astropy", "django", "flask", "requests", "sympy", "sphinx", "pytest", "xarray"];
const tasks = Array.from({ length: taskCount }, (_, i) => {
  const difficulty = random();
  return {
    difficulty,
    info: syntheticTask(`task-${String(i).padStart(5, "0")}`, repos[i % repos.length] ?? "x", {
      kind: ["logic", "edge-case", "type-mismatch"][i % 3] ?? "logic",
      goldLines: 1 + Math.floor(difficulty * 80),
      goldFiles: 1 + Math.floor(difficulty * 4),
      modules: 1 + Math.floor(difficulty * 3),
      hasReproduction: random() < 0.5,
      hasStackTrace: random() < 0.3,
      descriptionChars: 200 + Math.floor(random() * 3000),
    }),
  };
});
const runs: SyntheticRun[] = Array.from({ length: toolCount }, (_, t) => {
  const skill = 0.35 + 0.15 * t;
  const outcomes: Record<string, SyntheticOutcome[]> = {};
  for (const task of tasks) {
    outcomes[task.info.id] = Array.from({ length: trialCount }, () =>
      random() < 0.002 ? "infra" : random() < skill * (1.2 - task.difficulty),
    );
  }
  return {
    tool: `tool-${String.fromCharCode(97 + t)}`,
    suite: "bench",
    outcomes,
    tasks: tasks.map((task) => task.info),
    telemetry: () => ({
      costUsd: 0.05 + 0.1 * t + random() * 0.05,
      inputTokens: 20_000 + Math.floor(random() * 10_000),
      outputTokens: 2_000 + Math.floor(random() * 1_000),
      cacheReadTokens: 50_000,
      toolMs: 30_000 + Math.floor(random() * 60_000),
    }),
  };
});

const records = toolCount * taskCount * trialCount;
console.log(
  `writing ${records.toLocaleString("en")} trial records (${String(toolCount)} tools x ${String(taskCount)} tasks x ${String(trialCount)} trials) to ${runsDir}`,
);
let start = performance.now();
if (existsSync(shape)) {
  console.log("  reusing the store written by an earlier run");
} else {
  rmSync(runsDir, { recursive: true, force: true });
  mkdirSync(runsDir, { recursive: true });
  writeSyntheticRuns(runsDir, runs);
  writeFileSync(shape, "");
  console.log(`  written in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

const io = {
  stdout: { write: () => true },
  stderr: { write: (text: string) => process.stderr.write(text) },
  cwd: runsDir,
  env: { ...process.env, LAB_RUNS_DIR: runsDir },
  signal: new AbortController().signal,
};
/** Wall and CPU milliseconds of one whole `lab report`. */
async function timeReport(): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const began = performance.now();
  const code = await main(["report", "--suite", "bench"], io);
  if (code !== 0) throw new Error(`lab report exited ${String(code)}`);
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - began, cpu: (used.user + used.system) / 1000 };
}

for (const run of runs)
  rmSync(path.join(runsDir, `bench-${run.tool}`, "results.jsonl"), { force: true });
const cold = await timeReport();
const warm: { wall: number; cpu: number }[] = [];
for (let i = 0; i < repeat; i++) warm.push(await timeReport());
warm.sort((a, b) => a.wall - b.wall);

start = performance.now();
const loaded = await loadReport(runsDir, "bench");
const loadMs = performance.now() - start;
start = performance.now();
const report = buildReport("bench", loaded.runs, loaded.tasks);
const modelMs = performance.now() - start;
start = performance.now();
renderReportMarkdown(report);
const renderMs = performance.now() - start;

const ms = (value: number): string => `${(value / 1000).toFixed(2)} s`;
const both = (time: { wall: number; cpu: number }): string =>
  `${ms(time.wall)} (CPU ${ms(time.cpu)})`;
const middle = warm[Math.floor(warm.length / 2)] ?? { wall: 0, cpu: 0 };
console.log(
  `\nlab report over ${records.toLocaleString("en")} trial records (${String(os.cpus().length)} CPUs, Node ${process.version}, load average ${os.loadavg()[0]?.toFixed(1) ?? "?"})`,
);
console.log(`  cold, no index (reads every result.json, writes results.jsonl): ${both(cold)}`);
console.log(
  `  warm, with the index: median ${both(middle)}, best ${both(warm[0] ?? middle)} of ${String(repeat)} (goal: under 2 s)`,
);
console.log(
  `  stages of a warm report: read ${ms(loadMs)}, statistics ${ms(modelMs)}, Markdown ${ms(renderMs)}`,
);

if (values.dir === undefined) rmSync(runsDir, { recursive: true, force: true });
