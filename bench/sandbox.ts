/**
 * The sandbox's start-up overhead per trial, and what it adds to a warm grade. How it measures,
 * and its options: USAGE.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dockerSettingsFrom } from "../src/config/index.js";
import { LabError, type SandboxLimits, type SandboxProvider } from "../src/core/index.js";
import { runCommand } from "../src/process/index.js";
import { median } from "../src/report/index.js";
import {
  createBwrapProvider,
  createDockerProvider,
  createNoneProvider,
} from "../src/sandbox/index.js";
import { loadOracle, loadSuite, loadTask } from "../src/suite/index.js";
import { integerOption, parseScriptArgs } from "../scripts/args.js";
import { benchEnvironment, timeGoldGrade } from "./gold-grade.js";

const USAGE = `usage: npm run bench:sandbox -- [--repeat 50] [--grades 10] [--task ID] [--no-docker]
         [--suite NAME --evals-dir DIR --cache-dir DIR]

The sandbox's start-up overhead per trial, and what it adds to a warm grade.

Start-up: make a trial's sandbox, run \`true\` in it, dispose of it; against running the same
\`true\` unsandboxed through src/process. Each sample is a whole trial's share: cgroups made and
removed, mounts computed, one bwrap process (or one container) with every namespace. Limits
are lab's defaults (disk and processes). Goal: bwrap under 100 ms. For docker also the time
from asking for a command to that command running inside its container (a timestamp taken
inside): goal under 1 s.

Warm grade: the gold patch of one task graded again and again with its environment and
install layer cached, by each provider in turn (interleaved, so load hits all alike).
Overhead = the grade's wall time minus the bare test process (the test phase under none).
Goal: docker within 1.5x bwrap's overhead.

  --repeat N        start-up samples per provider (default: 50; docker a fifth, at least 5)
  --grades N        warm grades per provider (default: 10)
  --task ID         the task graded (default: envcfg-optional-fields)
  --no-docker       bwrap and none only
  --suite NAME      the task's suite (default: starter), e.g. a generated swebench suite to
                    see the same figures on a real project's grade
  --evals-dir DIR   where that suite is (default: ./evals, then lab's own)
  --cache-dir DIR   the lab cache holding its environments (default: a fresh one, removed at
                    the end)
`;

const { values } = parseScriptArgs({
  name: "sandbox",
  usage: USAGE,
  options: {
    repeat: { type: "string", default: "50" },
    grades: { type: "string", default: "10" },
    task: { type: "string", default: "envcfg-optional-fields" },
    "no-docker": { type: "boolean", default: false },
    suite: { type: "string", default: "starter" },
    "evals-dir": { type: "string" },
    "cache-dir": { type: "string" },
  },
});
const repeat = integerOption("repeat", values.repeat);
const grades = integerOption("grades", values.grades);
const root = mkdtempSync(path.join(os.tmpdir(), "lab-bench-sandbox-"));
const cacheDir = values["cache-dir"] ?? path.join(root, "cache");
const pathEnv = process.env.PATH ?? "/usr/bin:/bin";
const limits: SandboxLimits = { memoryMb: null, diskMb: 10 * 1024, maxProcesses: 4096 };

async function sample(run: () => Promise<unknown>, times = repeat): Promise<number[]> {
  await run(); // warm up: first spawn, cgroup detection, page cache
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return samples;
}

let index = 0;
/** One trial's sandbox: made, `argv` run in it, disposed; returns the command's stdout. */
async function trialWith(
  provider: SandboxProvider,
  argv: readonly string[] = ["true"],
  network = true,
): Promise<string> {
  const trial = path.join(root, `trial-${String(index++)}`);
  const workTree = path.join(trial, "work");
  mkdirSync(workTree, { recursive: true });
  const sandbox = await provider.create({
    workTree,
    stateDir: path.join(trial, "sandbox"),
    readOnlyPaths: [],
    toolPaths: [],
    writablePaths: [],
    hiddenPaths: [],
    hostHome: os.homedir(),
    pathEnv,
    network,
    limits,
  });
  try {
    const result = await sandbox.exec(argv, {
      cwd: workTree,
      env: { PATH: pathEnv },
      timeoutMs: 60_000,
    });
    if (result.exitCode !== 0)
      throw new Error(`sandboxed ${argv[0] ?? ""} failed: ${result.stderrTail}`);
    return result.stdoutTail;
  } finally {
    await sandbox.dispose();
    rmSync(trial, { recursive: true, force: true });
  }
}

function describe(name: string, times: number[], baseline?: number): string {
  const sorted = [...times].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  const mid = median(times) ?? 0;
  const extra = baseline === undefined ? "" : `  overhead ${(mid - baseline).toFixed(1)} ms`;
  return `${name.padEnd(34)} median ${mid.toFixed(1).padStart(7)} ms  p95 ${p95.toFixed(1).padStart(7)} ms${extra}`;
}

const bwrap = createBwrapProvider({ pathEnv: `${pathEnv}:/usr/bin:/bin` });
await bwrap.checkReady();
const none = createNoneProvider();
let docker: SandboxProvider | undefined = values["no-docker"]
  ? undefined
  : createDockerProvider({
      // The user's engine (DOCKER_HOST, a context) as lab itself would reach it.
      settings: dockerSettingsFrom(
        process.env,
        os.homedir(),
        path.join(os.homedir(), ".cache", "lab"),
      ),
    });
try {
  await docker?.checkReady({
    progress: (message) => {
      console.error(`docker: ${message}`);
    },
  });
} catch (error) {
  // No engine here: the bwrap figures are still worth having.
  if (!(error instanceof LabError)) throw error;
  console.error(
    `docker left out: ${error.message}${error.hint === undefined ? "" : ` ${error.hint}`}`,
  );
  docker = undefined;
}

const direct = await sample(() =>
  runCommand(["true"], { cwd: root, env: { PATH: pathEnv }, timeoutMs: 30_000 }),
);
const noneTimes = await sample(() => trialWith(none));
const bwrapTimes = await sample(() => trialWith(bwrap));
const offline = await sample(() => trialWith(bwrap, ["true"], false));
// Containers take a good part of a second: a fifth of the samples.
const dockerRepeat = Math.max(5, Math.round(repeat / 5));
const dockerTimes = docker === undefined ? [] : await sample(() => trialWith(docker), dockerRepeat);
const firstCommand: number[] = [];
if (docker !== undefined) {
  for (let i = 0; i <= dockerRepeat; i++) {
    const asked = Date.now();
    const inside = Number(await trialWith(docker, ["date", "+%s%3N"]));
    if (i > 0) firstCommand.push(inside - asked);
  }
}

const base = median(direct) ?? 0;
console.log(
  `sandbox start-up per trial, ${String(repeat)} runs each of \`true\` (${(await bwrap.describeLimits(limits)).summary}); load average ${os.loadavg()[0]?.toFixed(1) ?? "?"}`,
);
console.log(describe("unsandboxed (runCommand)", direct));
console.log(describe("none (limits only)", noneTimes, base));
console.log(describe("bwrap", bwrapTimes, base));
console.log(describe("bwrap, network off", offline, base));
const overhead = (median(bwrapTimes) ?? 0) - base;
console.log(
  `bwrap overhead ${overhead.toFixed(1)} ms per trial: ${overhead < 100 ? "under" : "OVER"} the 100 ms goal`,
);
if (docker !== undefined) {
  console.log(describe(`docker (${String(dockerRepeat)} runs)`, dockerTimes, base));
  console.log(describe("docker: asked to command running", firstCommand));
  const start = median(firstCommand) ?? 0;
  console.log(
    `docker start to first command ${(start / 1000).toFixed(2)} s: ${start < 1000 ? "under" : "OVER"} the 1 s goal`,
  );
}

// Warm grades: the same gold patch, graded by each provider in turn.
const suite = await loadSuite(values.suite, { cwd: process.cwd(), evalsDir: values["evals-dir"] });
const task = await loadTask(suite, values.task);
const oracle = await loadOracle(task);
const environment = benchEnvironment(cacheDir);
async function gradeWith(provider: SandboxProvider): Promise<{ totalMs: number; testsMs: number }> {
  const scratch = mkdtempSync(path.join(root, "grade-"));
  const { totalMs, grade } = await timeGoldGrade(task, oracle, {
    scratchDir: path.join(scratch, "grade"),
    logFile: path.join(scratch, "grade.log"),
    environment,
    sandbox: { provider },
  });
  rmSync(scratch, { recursive: true, force: true });
  if (!grade.resolved)
    throw new Error(`${task.info.id}'s gold patch did not resolve under ${provider.name}`);
  return { totalMs, testsMs: grade.phaseMs.tests ?? 0 };
}
const graders = [none, bwrap, ...(docker === undefined ? [] : [docker])];
const graded = new Map<string, { totalMs: number; testsMs: number }[]>(
  graders.map((provider) => [provider.name, []]),
);
for (const provider of graders) await gradeWith(provider); // the cold grade builds the caches
for (let i = 0; i < grades; i++) {
  for (const provider of graders) graded.get(provider.name)?.push(await gradeWith(provider));
}
rmSync(root, { recursive: true, force: true });

const bareTests = median((graded.get("none") ?? []).map((g) => g.testsMs)) ?? 0;
const overheadOf = (name: string): number =>
  (median((graded.get(name) ?? []).map((g) => g.totalMs)) ?? 0) - bareTests;
console.log(
  `warm grades of ${task.info.id}'s gold patch, ${String(grades)} each, interleaved; bare test process (none) ${(bareTests / 1000).toFixed(2)} s; load average ${os.loadavg()[0]?.toFixed(1) ?? "?"}`,
);
for (const provider of graders) {
  const total = median((graded.get(provider.name) ?? []).map((g) => g.totalMs)) ?? 0;
  console.log(
    `${provider.name.padEnd(8)} warm grade median ${(total / 1000).toFixed(2)} s, overhead beyond the test process ${(overheadOf(provider.name) / 1000).toFixed(2)} s`,
  );
}
if (docker !== undefined) {
  const ratio = overheadOf("docker") / overheadOf("bwrap");
  console.log(
    `docker grade overhead ${ratio.toFixed(2)}x bwrap's: ${ratio <= 1.5 ? "within" : "OVER"} the 1.5x goal`,
  );
}
