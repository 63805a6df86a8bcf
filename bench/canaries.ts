/** What the canary tests cost a grade (goal: under 0.1 s). How it measures, and its options: USAGE. */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { selectTestDirectives } from "../src/core/index.js";
import { gradeChange } from "../src/grader/index.js";
import { checkCanaries, planCanaries, plantCanaries } from "../src/grader/canaries.js";
import { parseTestLog, type TestLogParser } from "../src/grader/parse-log.js";
import { jsTestFilesOf } from "../src/grader/plan.js";
import { median } from "../src/report/index.js";
import { loadOracle, loadSuite, loadTask } from "../src/suite/index.js";
import { integerOption, parseScriptArgs } from "../scripts/args.js";
import { benchEnvironment, timeGoldGrade } from "./gold-grade.js";

const USAGE = `usage: npm run bench:canaries -- [--suite starter] [--evals-dir DIR] [--tasks a,b]
         [--repeat 5] [--cache-dir DIR] [--paired N]

What the canary tests cost a grade (goal: under 0.1 s). lab's own work: for each task, its
hidden test modules as a grade has them (a checkout by setup.sh with the test patch applied),
the canaries planted into them and a grade's log judged by them, --repeat times; the grader's
log of a real gold grade stands for the log.

  --suite NAME      the suite (default: starter)
  --evals-dir DIR   where the suite is (default: ./evals, then lab's own)
  --tasks A,B       these tasks only (default: all of the suite's)
  --repeat N        plants and judgements per task (default: 5)
  --cache-dir DIR   lab's cache, for the grades' environments (default: ~/.cache/lab)
  --paired N        also the test process's extra time: gold graded N times with canaries and
                    N times without, alternating, and the medians of the whole grade and of
                    its tests phase (default: 0, not measured)

With LAB_BENCH_KEEP set (to anything), its scratch folder is kept.
`;

const { values } = parseScriptArgs({
  name: "canaries",
  usage: USAGE,
  options: {
    suite: { type: "string", default: "starter" },
    "evals-dir": { type: "string" },
    tasks: { type: "string" },
    repeat: { type: "string", default: "5" },
    paired: { type: "string", default: "0" },
    "cache-dir": { type: "string" },
  },
});
const repeat = integerOption("repeat", values.repeat);
const paired = integerOption("paired", values.paired, 0);
const root = mkdtempSync(path.join(os.tmpdir(), "lab-bench-canaries-"));
const environment = benchEnvironment(
  values["cache-dir"] ?? path.join(os.homedir(), ".cache", "lab"),
);
const suite = await loadSuite(values.suite, { evalsDir: values["evals-dir"], cwd: process.cwd() });
const ids = values.tasks?.split(",") ?? suite.taskIds;
const ms = (value: number | null): string => (value === null ? "–" : `${value.toFixed(1)} ms`);

console.log(
  `canaries on ${suite.name}: ${String(ids.length)} task(s), ${String(repeat)} repeat(s)`,
);
console.log("task | modules | canaries | plant (median) | judge (median) | log size");
const totals: number[] = [];
for (const id of ids) {
  const task = await loadTask(suite, id);
  const oracle = await loadOracle(task);
  const spec = oracle.environment;
  // A JS task's canaries go into its hidden test files; its log holds the runner's results.
  const plan =
    spec.kind === "node"
      ? planCanaries(
          { testCommand: "", logParser: spec.runner },
          jsTestFilesOf(oracle.testPatch),
          true,
          [],
          oracle.failToPass,
        )
      : planCanaries(
          spec,
          selectTestDirectives(oracle.testPatch, spec.testDirectiveRule ?? "files"),
        );
  const parser: TestLogParser = spec.kind === "node" ? "js-results" : spec.logParser;
  if (plan.style === null) {
    console.log(`${id} | none: ${plan.why}`);
    continue;
  }
  const base = path.join(root, id, "base");
  execFileSync("bash", [path.join(task.dir, "setup.sh"), base], { stdio: "ignore" });
  execFileSync("git", ["apply", "-"], { cwd: base, input: oracle.testPatch });
  // A real grade's log, with its own canaries: the judge's input.
  const graded = await gradeChange(
    task,
    oracle,
    { patch: oracle.goldPatch },
    {
      scratchDir: path.join(root, id, "grade"),
      logFile: path.join(root, id, "grader.log"),
      environment,
      setupTimeoutMs: 600_000,
      installTimeoutMs: 1_200_000,
      testTimeoutMs: 1_800_000,
      keepScratch: false,
    },
  );
  const log = readFileSync(path.join(root, id, "grader.log"), "utf8");
  const plantMs: number[] = [];
  const judgeMs: number[] = [];
  let count = 0;
  for (let i = 0; i < repeat; i++) {
    const repo = path.join(root, id, `repo-${String(i)}`);
    cpSync(base, repo, { recursive: true });
    let started = performance.now();
    const planted = await plantCanaries(plan, repo);
    plantMs.push(performance.now() - started);
    if (planted === null) continue;
    count = planted.canaries.length;
    started = performance.now();
    const parse = (text: string) => parseTestLog(text, parser);
    const all = parse(log);
    started = performance.now();
    checkCanaries(planted, log, parse, { exitCode: 1, timedOut: false, limitExceeded: null }, all);
    judgeMs.push(performance.now() - started);
    rmSync(repo, { recursive: true, force: true });
  }
  const total = (median(plantMs) ?? 0) + (median(judgeMs) ?? 0);
  totals.push(total);
  console.log(
    `${id} | ${String(plan.files.length)} | ${String(count)} | ${ms(median(plantMs))} | ${ms(median(judgeMs))} | ${String(Math.round(log.length / 1024))} KB; gold ${graded.grade.resolved ? "resolved" : "NOT resolved"}`,
  );
}
console.log(
  `lab's own work per grade: median ${ms(median(totals))}, max ${ms(totals.length === 0 ? null : Math.max(...totals))} (goal: under 100 ms)`,
);

if (paired > 0) {
  console.log(
    `\npaired gold grades, ${String(paired)} with and ${String(paired)} without canaries`,
  );
  console.log("task | grade with | grade without | tests with | tests without");
  const differences: number[] = [];
  for (const id of ids) {
    const task = await loadTask(suite, id);
    const oracle = await loadOracle(task);
    const times = {
      on: [] as number[],
      off: [] as number[],
      testsOn: [] as number[],
      testsOff: [] as number[],
    };
    for (let i = 0; i < 2 * paired; i++) {
      const on = i % 2 === 0;
      const { totalMs, grade } = await timeGoldGrade(task, oracle, {
        scratchDir: path.join(root, id, `paired-${String(i)}`),
        logFile: path.join(root, id, `paired-${String(i)}.log`),
        environment,
        canaries: on,
      });
      (on ? times.on : times.off).push(totalMs);
      (on ? times.testsOn : times.testsOff).push(grade.phaseMs.tests ?? 0);
    }
    differences.push((median(times.on) ?? 0) - (median(times.off) ?? 0));
    console.log(
      `${id} | ${ms(median(times.on))} | ${ms(median(times.off))} | ${ms(median(times.testsOn))} | ${ms(median(times.testsOff))}`,
    );
  }
  console.log(
    `a grade with canaries minus one without, median over tasks: ${ms(median(differences))} (load average ${os.loadavg()[0]?.toFixed(1) ?? "?"})`,
  );
}
if (process.env.LAB_BENCH_KEEP === undefined) rmSync(root, { recursive: true, force: true });
