import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runLab } from "../helpers/lab.js";
import { startLab, waitFor, type LabProcess } from "../helpers/lab-process.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import {
  redisMissingMessage,
  redisServerPath,
  startRedis,
  type RedisServer,
} from "../helpers/redis.js";
import { tempDir } from "../helpers/temp.js";
import {
  fixAndSleep,
  indexLines,
  inspectQueue,
  results,
  startWorker,
  starts,
  stopAll,
} from "./helpers.js";

const root = tempDir("lab-queue-coordinator-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const TASKS = ["alpha", "beta", "gamma", "delta"];
let redis: RedisServer;
let queue: Queue;
const started: LabProcess[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

function runArgs(runId: string, command: string, ...extra: string[]): string[] {
  return [
    "run",
    "command",
    "--suite",
    "fixture",
    "--evals-dir",
    evalsDir,
    "--runs-dir",
    runsDir,
    "--run-id",
    runId,
    "--command",
    command,
    "--queue",
    redis.url,
    ...extra,
  ];
}

async function worker(
  name: string,
  options: { config?: string; lockDuration?: string } = {},
): Promise<LabProcess> {
  const process = await startWorker(root, redis, name, { evalsDir, ...options });
  started.push(process);
  return process;
}

/** A lab.config.json whose tool `fixer` fixes the task at once and says it is `version`. */
function config(version: string): string {
  const file = path.join(root, `lab.config.${version}.json`);
  writeFileSync(file, JSON.stringify({ tools: { fixer: { command: fixAndSleep(0), version } } }));
  return file;
}

/** Jobs of lab's queue that no worker has finished. */
async function unfinished(): Promise<number> {
  const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized");
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe.skipIf(redisServerPath === null)("a coordinator and its Redis, killed", () => {
  beforeAll(async () => {
    writeFixtureSuite(
      evalsDir,
      "fixture",
      TASKS.map((id) => addTask(id)),
    );
    // Every write is on disk before Redis answers: a crash loses nothing it acknowledged.
    redis = await startRedis(path.join(root, "redis"), { persistence: true });
    queue = inspectQueue(redis);
  });

  // A test that fails leaves no worker behind to take the next test's trials.
  afterEach(async () => {
    await stopAll(started);
  });

  afterAll(async () => {
    await stopAll(started);
    await queue.close();
    await redis.stop();
  });

  it("collects, after a restart, the trials that finished while it was dead, running none twice", async () => {
    const workers = [await worker("w1"), await worker("w2")];
    const first = startLab(runArgs("restarted", fixAndSleep(1)), { cwd: root });
    const run = path.join(runsDir, "restarted");
    await waitFor(() => Object.keys(results(run)).length > 0, 60_000, "a first result");
    first.child.kill("SIGKILL");
    await first.exited;
    const before = Object.keys(results(run)).length;
    expect(before).toBeLessThan(TASKS.length);
    // The workers go on without a coordinator.
    await waitFor(async () => (await unfinished()) === 0, 60_000, "the workers to finish");

    const second = await runLab(runArgs("restarted", fixAndSleep(1)), { cwd: root });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      `resuming run restarted: command (version unknown) on fixture, ${String(TASKS.length - before)} trial(s) to do, ${String(before)} already done`,
    );
    expect(second.stderr).toContain(
      `0 trial job(s) added, ${String(TASKS.length - before)} finished while no coordinator watched`,
    );
    for (const task of TASKS) {
      expect(results(run)[task]?.["1"]?.resolved).toBe(true);
      expect(starts(workers, "restarted", task)).toBe(1);
    }
    expect(indexLines(run)).toBe(TASKS.length);
    expect(await queue.getJobCounts("completed", "failed")).toEqual({ completed: 0, failed: 0 });
    await stopAll(workers);
  }, 180_000);

  it("loses no finished result when Redis crashes and restarts from its append-only file", async () => {
    // Locks outlive the outage, so no running trial is taken for a dead worker's.
    const workers = [
      await worker("r1", { lockDuration: "20s" }),
      await worker("r2", { lockDuration: "20s" }),
    ];
    const args = runArgs("redis-crash", fixAndSleep(2), "--trials", "2");
    const first = startLab(args, { cwd: root });
    const run = path.join(runsDir, "redis-crash");
    const recorded = () =>
      Object.values(results(run)).reduce((sum, trials) => sum + Object.keys(trials).length, 0);
    await waitFor(() => recorded() > 0, 60_000, "a first result");
    // A result finishes on a worker with no coordinator to collect it: it lives only in Redis.
    first.child.kill("SIGKILL");
    await first.exited;
    await waitFor(
      async () => ((await queue.getJobCounts("completed")).completed ?? 0) > 0,
      60_000,
      "a result left in Redis",
    );
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.start();

    // The restarted coordinator re-attaches to every job; Redis crashes once more under it.
    const second = startLab(args, { cwd: root });
    await waitFor(() => second.stderr().includes("trial job(s) added"), 60_000, "re-attaching");
    const collected = recorded();
    await waitFor(() => recorded() > collected, 60_000, "another result");
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.start();
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toMatch(/: 0 trial job\(s\) added, /);
    expect(second.stderr()).toMatch(/run redis-crash completed: 8\/8 resolved/);
    for (const task of TASKS) {
      for (const trial of ["1", "2"]) expect(results(run)[task]?.[trial]?.resolved).toBe(true);
    }
    const ran = workers
      .map((worker) => worker.stderr().match(/redis-crash: \S+ #\d: started/g)?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(ran).toBe(8);
    expect(indexLines(run)).toBe(8);
    await stopAll(workers);
  }, 180_000);

  it("on Ctrl-C removes the run's waiting jobs, and a rerun enqueues them again", async () => {
    // A worker whose tool is another version refuses the run: its jobs wait in the queue.
    const args = [
      "run",
      "fixer",
      "--suite",
      "fixture",
      "--evals-dir",
      evalsDir,
      "--runs-dir",
      runsDir,
      "--run-id",
      "interrupted",
      "--config",
      config("1"),
      "--queue",
      redis.url,
    ];
    const old = await worker("old", { config: config("2") });
    const coordinator = startLab(args, { cwd: root });
    await waitFor(
      () => coordinator.stderr().includes("worker old refuses this run's trials"),
      60_000,
      "the refusal",
    );
    expect(coordinator.stderr()).toContain(
      "worker old refuses this run's trials: tool \"fixer\" is version 2 here and 1 in the run: install the run's version on this worker",
    );
    coordinator.child.kill("SIGINT");
    expect(await coordinator.exited).toBe(130);
    expect(coordinator.stderr()).toMatch(/removed 4 waiting trial job\(s\) from the queue/);
    expect(await unfinished()).toBe(0);
    expect(existsSync(path.join(runsDir, "interrupted", "run.json"))).toBe(true);
    await stopAll([old]);

    await worker("current", { config: config("1") });
    const rerun = await runLab(args, { cwd: root });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain("4 trial job(s) added");
    // The worker that refused is gone, and so is its refusal.
    expect(rerun.stderr).not.toContain("refuses");
    expect(rerun.stderr).toMatch(/run interrupted completed: 4\/4 resolved/);
  }, 180_000);

  it("queues again, on a rerun, the jobs an earlier coordinator queued for another tool version", async () => {
    const args = (version: string) => [
      "run",
      "fixer",
      "--suite",
      "fixture",
      "--evals-dir",
      evalsDir,
      "--runs-dir",
      runsDir,
      "--run-id",
      "upgraded",
      "--config",
      config(version),
      "--queue",
      redis.url,
    ];
    // No worker yet: the jobs of version 3 wait in the queue when their coordinator dies.
    const first = startLab(args("3"), { cwd: root });
    await waitFor(() => first.stderr().includes("4 trial job(s) added"), 60_000, "the jobs");
    first.child.kill("SIGKILL");
    await first.exited;
    expect(await unfinished()).toBe(4);

    // The tool is upgraded everywhere; workers would refuse the jobs that name version 3.
    const upgraded = await worker("upgraded", { config: config("4") });
    const rerun = await runLab(args("4"), { cwd: root });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toContain(
      "4 trial job(s) added (4 replacing jobs queued earlier with another tool version or settings)",
    );
    expect(rerun.stderr).not.toContain("refuses");
    expect(rerun.stderr).toMatch(/run upgraded completed: 4\/4 resolved/);
    expect(starts([upgraded], "upgraded", "alpha")).toBe(1);
    expect(await unfinished()).toBe(0);
    await stopAll([upgraded]);
  }, 180_000);
});
