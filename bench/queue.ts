/**
 * Throughput of trials on the queue with 1, 2 and 4 workers on this machine, and what the
 * coordinator spends per trial. How it measures, and its options: USAGE.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  commandToolSpec,
  configFileSchema,
  resolveRunConfig,
  resolveSettings,
} from "../src/config/index.js";
import { Redis } from "ioredis";
import { createQueueExecutor, parseQueueAddress, QUEUE_PREFIX } from "../src/queue/index.js";
import { runSuite } from "../src/runner/index.js";
import { createCommandTool } from "../src/tools/index.js";
import { addTask, writeFixtureSuite } from "../test/helpers/fixture-suite.js";
import { startRedis } from "../test/helpers/redis.js";
import { fail, integerOption, numberOption, parseScriptArgs } from "../scripts/args.js";

const TASKS = 4;

const USAGE = `usage: npm run bench:queue -- [--workers 1,2,4] [--trials 12] [--sleep 2]

Throughput of trials on the queue with 1, 2 and 4 workers on this machine, and what the
coordinator spends per trial. Goals: near-linear scaling, under 50 ms of coordinator overhead
per trial.

It starts its own redis-server on a loopback port and real \`lab worker\` processes (each one
job at once, sandbox bwrap, one shared lab cache so environments are built once, in a warm-up
run). Each trial is a command tool that sleeps a fixed time, then the usual grade of a tiny
fixture task. The coordinator runs here, in-process, so its own time can be measured: hashing
and adding jobs, and per trial fetching the finished job, writing its files and indexing it.
Each queue row has a local row beside it: the same trials in one \`lab run\` with as many at
once, so what the queue adds is the difference. On one machine neither can beat its cores:
the sleep scales, the grade's CPU does not.

  --workers N,M     the numbers of workers, one row each (default: 1,2,4)
  --trials N        trials per row, a multiple of ${String(TASKS)}, the fixture's tasks (default: 12)
  --sleep S         seconds the command tool sleeps in each trial (default: 2)
`;

const { values } = parseScriptArgs({
  name: "queue",
  usage: USAGE,
  options: {
    workers: { type: "string", default: "1,2,4" },
    trials: { type: "string", default: "12" },
    sleep: { type: "string", default: "2" },
  },
});
const workerCounts = values.workers.split(",").map((count) => integerOption("workers", count));
const trialCount = integerOption("trials", values.trials, TASKS);
if (trialCount % TASKS !== 0)
  fail(
    `--trials expects a multiple of ${String(TASKS)} (the fixture's tasks); got ${values.trials}`,
  );
const sleepS = numberOption("sleep", values.sleep);
const repoRoot = path.resolve(import.meta.dirname, "..");
const root = mkdtempSync(path.join(os.tmpdir(), "lab-bench-queue-"));
const evalsDir = path.join(root, "evals");
const cacheDir = path.join(repoRoot, ".cache", "test-lab");

function median(numbers: readonly number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

writeFixtureSuite(
  evalsDir,
  "bench",
  Array.from({ length: TASKS }, (_, i) => addTask(`task${String(i)}`)),
);
const redis = await startRedis(path.join(root, "redis"));
const address = parseQueueAddress(redis.url, { insecure: false });

function startWorkers(count: number, tag: string): ChildProcess[] {
  const tsx = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;
  return Array.from({ length: count }, (_, i) =>
    spawn(
      process.execPath,
      [
        "--import",
        tsx,
        path.join(repoRoot, "src/cli/bin.ts"),
        "worker",
        "--queue",
        redis.url,
        "--name",
        `${tag}-${String(i + 1)}`,
        "--evals-dir",
        evalsDir,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          LAB_CACHE_DIR: cacheDir,
          LAB_SCRATCH_DIR: path.join(root, "scratch", `${tag}-${String(i + 1)}`),
        },
        stdio: "ignore",
      },
    ),
  );
}

/** Waits until `count` workers named `tag-*` have said they are alive in the registry. */
async function waitForWorkers(tag: string, count: number): Promise<void> {
  const client = new Redis({ host: "127.0.0.1", port: redis.port });
  try {
    for (;;) {
      const names = Object.keys(await client.hgetall(`${QUEUE_PREFIX}:workers`));
      if (names.filter((name) => name.startsWith(`${tag}-`)).length >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    client.disconnect();
  }
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.exitCode !== null) {
            resolve();
            return;
          }
          worker.once("exit", () => {
            resolve();
          });
          worker.kill("SIGINT");
        }),
    ),
  );
}

/**
 * Runs `trials` trials over the fixture suite, through the queue or here with `concurrency` at
 * once; its wall time, results and the coordinator's stats.
 */
async function measure(runId: string, trials: number, local?: { concurrency: number }) {
  const settings = resolveSettings(
    { evalsDir, runsDir: path.join(root, "runs") },
    { ...process.env, LAB_CACHE_DIR: cacheDir },
    root,
  );
  const tool = createCommandTool(
    commandToolSpec("command", { command: `sleep ${String(sleepS)}` }, process.env),
  );
  const config = resolveRunConfig({
    flags: {
      suite: "bench",
      runId,
      trials: String(trials / TASKS),
      concurrency: String(local?.concurrency ?? 1),
    },
    env: process.env,
    file: configFileSchema.parse({}),
    settings,
    source: { kind: "tool", tool },
    labVersion: (await import("../src/cli/shared.js")).LAB_VERSION,
    signal: new AbortController().signal,
  });
  const executor = createQueueExecutor({
    address,
    toolRequest: { name: "command", command: `sleep ${String(sleepS)}` },
    attempts: 3,
  });
  const started = performance.now();
  const result = await runSuite(config, { emit: () => undefined }, new AbortController().signal, {
    executor: local === undefined ? executor : undefined,
  });
  const wallMs = performance.now() - started;
  if (result.summary.infraErrors > 0 || result.results.length !== trials)
    throw new Error(`run ${runId}: ${JSON.stringify(result.summary)}`);
  return { wallMs, results: result.results, stats: executor.stats };
}

const row = (
  mode: string,
  count: number,
  wallMs: number,
  trialMs: number,
  stats?: { enqueueMs: number; collectMs: number[]; latencyMs: number[] },
): string => {
  const coordinatorMs =
    stats === undefined
      ? undefined
      : (stats.enqueueMs + stats.collectMs.reduce((a, b) => a + b, 0)) / trialCount;
  return [
    mode.padEnd(6),
    String(count).padStart(8),
    `${(wallMs / 1000).toFixed(1)} s`.padStart(7),
    ((trialCount / wallMs) * 60_000).toFixed(1).padStart(10),
    `${(trialMs / trialCount / 1000).toFixed(2)} s`.padStart(9),
    (oneAtOnce.get(mode) === undefined
      ? "1.00x"
      : `${((oneAtOnce.get(mode) ?? 0) / wallMs).toFixed(2)}x`
    ).padStart(7),
    (coordinatorMs === undefined ? "-" : `${coordinatorMs.toFixed(1)} ms`).padStart(11),
    (stats === undefined ? "-" : `${stats.enqueueMs.toFixed(0)} ms`).padStart(7),
    (stats === undefined ? "-" : `${median(stats.collectMs).toFixed(1)} ms`).padStart(9),
    (stats === undefined ? "-" : `${median(stats.latencyMs).toFixed(0)} ms`).padStart(8),
  ].join(" | ");
};
const oneAtOnce = new Map<string, number>();
const sumMs = (results: readonly { durationMs: number }[]): number =>
  results.reduce((sum, result) => sum + result.durationMs, 0);
const load = os.loadavg()[0] ?? 0;
console.log(
  `${String(trialCount)} trials per row (command tool sleeping ${String(sleepS)} s, then the grade of a fixture task); ${String(os.availableParallelism())} cores, load average ${load.toFixed(1)} at the start\n`,
);
console.log(
  "mode   | at once  |    wall | trials/min | per trial | speedup | coordinator | enqueue | collect | latency",
);
console.log(
  "-------|----------|---------|------------|-----------|---------|-------------|---------|---------|--------",
);
const print = (line: string): void => {
  console.log(line);
};
try {
  // Warm-up: builds the fixture's environment in the shared cache and starts the tools' sandbox.
  const warm = startWorkers(1, "warm");
  await measure("warm-up", TASKS);
  await stopWorkers(warm);

  for (const count of workerCounts) {
    const local = await measure(`local-${String(count)}`, trialCount, { concurrency: count });
    print(row("local", count, local.wallMs, sumMs(local.results)));
    if (count === 1) oneAtOnce.set("local", local.wallMs);

    const workers = startWorkers(count, `w${String(count)}`);
    await waitForWorkers(`w${String(count)}`, count);
    const queued = await measure(`queue-${String(count)}`, trialCount);
    await stopWorkers(workers);
    print(row("queue", count, queued.wallMs, sumMs(queued.results), queued.stats));
    if (count === 1) oneAtOnce.set("queue", queued.wallMs);
  }
} finally {
  await redis.stop();
  rmSync(root, { recursive: true, force: true });
}

console.log(
  "\nat once: local, `lab run --concurrency N`; queue, N workers of one job each. per trial: a trial's own time (its result.json's durationMs). speedup: against the same mode with 1 at once. coordinator: its own time per trial, hashing and adding jobs plus collecting; enqueue: the run's hashing, connecting and adding jobs, once (a fixed cost, spread over more trials in a larger run); collect: median per trial, from fetching the finished job to its files written, indexed and the job removed; latency: median from a worker finishing a trial to its result.json written here.",
);
