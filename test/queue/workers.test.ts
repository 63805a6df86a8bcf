import { cpSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
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
import { fixAndSleep, indexLines, results, startWorker, starts, stopAll } from "./helpers.js";

const root = tempDir("lab-queue-workers-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
let redis: RedisServer;
const started: LabProcess[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

/** `lab run command` over the fixture suite through the queue. */
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
  options: { evalsDir?: string; config?: string } = {},
): Promise<LabProcess> {
  const process = await startWorker(root, redis, name, { evalsDir, ...options });
  started.push(process);
  return process;
}

describe.skipIf(redisServerPath === null)("workers on a queue", () => {
  beforeAll(async () => {
    writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
    redis = await startRedis(path.join(root, "redis"));
  });

  // A test that fails leaves no worker behind to take the next test's trials.
  afterEach(async () => {
    await stopAll(started);
  });

  afterAll(async () => {
    await stopAll(started);
    await redis.stop();
  });

  it("hands the trial of a worker killed midway to another worker, and records it once", async () => {
    // The survivor is started first and frozen: a worker's start can outlast the trial's 4 s on
    // a loaded machine, and the doomed one must still be midway when it is killed.
    const second = await worker("survivor");
    second.child.kill("SIGSTOP");
    const first = await worker("doomed");
    const coordinator = startLab(runArgs("killed", fixAndSleep(4), "--tasks", "alpha"), {
      cwd: root,
    });
    await waitFor(
      () => first.stderr().includes("killed: alpha #1: started"),
      60_000,
      "the first worker to take the trial",
    );
    first.child.kill("SIGKILL");
    second.child.kill("SIGCONT");
    expect(await coordinator.exited).toBe(0);
    expect(second.stderr()).toContain("killed: alpha #1: started");
    expect(second.stderr()).toMatch(/killed: alpha #1: resolved/);
    expect(coordinator.stderr()).toContain("[1/1] alpha #1: resolved");
    const run = path.join(runsDir, "killed");
    expect(Object.keys(results(run).alpha ?? {})).toEqual(["1"]);
    expect(results(run).alpha?.["1"]?.resolved).toBe(true);
    expect(indexLines(run)).toBe(1);
    await stopAll([second]);
  }, 120_000);

  it("hands its running trial back to the queue when stopped with Ctrl-C, spending no attempt", async () => {
    const leaving = await worker("leaving");
    const coordinator = startLab(
      runArgs("handed-back", fixAndSleep(4), "--tasks", "alpha", "--attempts", "1"),
      { cwd: root },
    );
    await waitFor(
      () => leaving.stderr().includes("handed-back: alpha #1: started"),
      60_000,
      "the leaving worker to take the trial",
    );
    const staying = await worker("staying");
    leaving.child.kill("SIGINT");
    expect(await leaving.exited).toBe(130);
    expect(leaving.stderr()).toContain("handed-back: alpha #1: stopped; handed back to the queue");
    // With a single attempt allowed, only a hand-back that spends none lets the trial finish.
    expect(await coordinator.exited).toBe(0);
    expect(staying.stderr()).toMatch(/handed-back: alpha #1: resolved/);
    expect(results(path.join(runsDir, "handed-back")).alpha?.["1"]?.resolved).toBe(true);
    await stopAll([staying]);
  }, 120_000);

  it("retries a trial that failed for infrastructure reasons on another worker", async () => {
    // A worker whose copy of the suite lacks the task's source tree: its setup.sh fails there.
    // The task folders are whole, so the content hash agrees and the worker takes the job.
    const brokenEvals = path.join(root, "broken-evals");
    cpSync(path.join(evalsDir, "fixture"), path.join(brokenEvals, "fixture"), { recursive: true });
    rmSync(path.join(brokenEvals, "fixture", "repos", "alpha"), { recursive: true });
    const broken = await worker("broken", { evalsDir: brokenEvals });
    // A healthy worker, started beforehand (a start can take longer than a retry's back-off on
    // a loaded machine) and frozen, so the broken worker takes the first attempt.
    const healthy = await worker("healthy");
    healthy.child.kill("SIGSTOP");
    const coordinator = startLab(
      runArgs("retried", fixAndSleep(0), "--tasks", "alpha", "--attempts", "5"),
      { cwd: root },
    );
    try {
      await waitFor(
        () => broken.stderr().includes("attempt(s) left"),
        60_000,
        "the broken worker to fail its attempt",
      );
    } finally {
      healthy.child.kill("SIGCONT");
    }
    expect(await coordinator.exited).toBe(0);
    expect(broken.stderr()).toMatch(
      /retried: alpha #1: infra error on worker broken \(setup\): .*; 4 attempt\(s\) left/,
    );
    expect(healthy.stderr()).toMatch(/retried: alpha #1: resolved/);
    expect(results(path.join(runsDir, "retried")).alpha?.["1"]?.resolved).toBe(true);
    await stopAll([healthy]);

    // With only the broken worker, the trial is tried up to --attempts and then recorded as
    // the infra error it is, out of every rate.
    const exhausted = await runLab(
      runArgs("exhausted", fixAndSleep(0), "--tasks", "alpha", "--attempts", "2"),
      { cwd: root },
    );
    expect(exhausted.code).toBe(0);
    expect(exhausted.stderr).toMatch(/\[1\/1\] alpha #1: infra error \(setup\): /);
    expect(broken.stderr()).toContain("exhausted: alpha #1: infra error (setup), no attempt left");
    expect(starts([broken], "exhausted", "alpha")).toBe(2);
    await stopAll([broken]);
  }, 180_000);

  it("refuses a trial whose task differs on the worker, says so on both sides, and leaves it to a worker that matches", async () => {
    const staleEvals = path.join(root, "stale-evals");
    cpSync(path.join(evalsDir, "fixture"), path.join(staleEvals, "fixture"), { recursive: true });
    writeFileSync(
      path.join(staleEvals, "fixture", "tasks", "alpha", "prompt.txt"),
      "An older text.\n",
    );
    const stale = await worker("stale", { evalsDir: staleEvals });
    const coordinator = startLab(runArgs("refused", fixAndSleep(0)), { cwd: root });
    await waitFor(
      () => coordinator.stderr().includes("worker stale refuses this run's trials"),
      60_000,
      "the coordinator to show the refusal",
    );
    // beta is the same on the stale worker: it runs there.
    await waitFor(() => results(path.join(runsDir, "refused")).beta !== undefined, 60_000, "beta");
    expect(coordinator.stderr()).toMatch(
      /worker stale refuses this run's trials: task alpha of suite "fixture" differs here \(content hash [0-9a-f]+, the run's [0-9a-f]+\): give this worker the coordinator's copy of /,
    );
    expect(stale.stderr()).toMatch(
      /warning: refusing refused-[0-9a-f]+: task alpha of suite "fixture" differs here/,
    );
    expect(starts([stale], "refused", "alpha")).toBe(0);
    const matching = await worker("matching");
    expect(await coordinator.exited).toBe(0);
    expect(matching.stderr()).toMatch(/refused: alpha #1: resolved/);
    expect(results(path.join(runsDir, "refused")).alpha?.["1"]?.resolved).toBe(true);
    await stopAll([stale, matching]);
  }, 180_000);
});
