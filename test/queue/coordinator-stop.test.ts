import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
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
import { fixAndSleep, startWorker, stopAll } from "./helpers.js";

const root = tempDir("lab-queue-coordinator-stop-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const started: LabProcess[] = [];
const servers: RedisServer[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

/** How long a coordinator may take to stop on SIGTERM: its 5 s for Redis, and room for a loaded machine. */
const STOP_WITHIN_MS = 15_000;

async function redisServer(name: string): Promise<RedisServer> {
  const server = await startRedis(path.join(root, "redis", name));
  servers.push(server);
  return server;
}

function runArgs(redis: RedisServer, runId: string): string[] {
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
    fixAndSleep(0),
    "--queue",
    redis.url,
  ];
}

/** Starts a coordinator run on `redis` with no worker, and waits until its jobs are queued. */
async function coordinator(redis: RedisServer, runId: string): Promise<LabProcess> {
  const run = startLab(runArgs(redis, runId), { cwd: root });
  started.push(run);
  await waitFor(() => run.stderr().includes("trial job(s) added"), 60_000, "the jobs queued");
  return run;
}

/** Sends SIGTERM and waits for the exit: its code, or null if still running after the bound. */
async function terminate(process: LabProcess): Promise<number | null> {
  process.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      resolve(null);
    }, STOP_WITHIN_MS);
  });
  try {
    return await Promise.race([process.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The run's recorded status, and whether it left its lock. */
function leftBehind(runId: string): { status: unknown; locked: boolean } {
  const dir = path.join(runsDir, runId);
  const record = JSON.parse(readFileSync(path.join(dir, "run.json"), "utf8")) as {
    status?: unknown;
  };
  return { status: record.status, locked: existsSync(path.join(dir, "run.lock")) };
}

describe.skipIf(redisServerPath === null)("a coordinator stops on SIGTERM", () => {
  beforeAll(() => {
    writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
  });

  // A test that fails leaves nothing running behind it.
  afterEach(async () => {
    for (const server of servers) server.resume();
    for (const process of started.splice(0))
      if (process.child.exitCode === null && process.child.signalCode === null) {
        process.child.kill("SIGKILL");
        await process.exited;
      }
    for (const server of servers.splice(0)) await server.stop();
  });

  it("when its Redis is up, withdrawing its waiting jobs", async () => {
    const redis = await redisServer("up");
    const run = await coordinator(redis, "up");
    expect(await terminate(run)).toBe(130);
    expect(run.stderr()).toContain("removed 2 waiting trial job(s) from the queue");
    expect(leftBehind("up")).toEqual({ status: "cancelled", locked: false });
  }, 120_000);

  it("when its Redis is gone, and a rerun with Redis back resumes the run", async () => {
    const redis = await redisServer("gone");
    const run = await coordinator(redis, "gone");
    await redis.stop();
    expect(await terminate(run)).toBe(130);
    expect(run.stderr()).toContain(
      "warning: the queue's Redis did not answer within 5 s: this run's trial jobs stay queued, and rerunning this command collects them",
    );
    expect(leftBehind("gone")).toEqual({ status: "cancelled", locked: false });

    await redis.start();
    started.push(await startWorker(root, redis, "back", { evalsDir }));
    const rerun = await runLab(runArgs(redis, "gone"), { cwd: root });
    expect(rerun.stderr).toMatch(/run gone completed: 2\/2 resolved/);
    expect(rerun.code).toBe(0);
    await stopAll(started.splice(0));
  }, 180_000);

  it("when its Redis hangs (connections open, no answers)", async () => {
    const redis = await redisServer("hung");
    const run = await coordinator(redis, "hung");
    redis.pause();
    expect(await terminate(run)).toBe(130);
    expect(run.stderr()).toContain("the queue's Redis did not answer within 5 s");
    expect(leftBehind("hung")).toEqual({ status: "cancelled", locked: false });
  }, 120_000);

  it("when its Redis refuses its password", async () => {
    const redis = await redisServer("refusing-auth");
    const run = await coordinator(redis, "refusing-auth");
    // A password set and every connection closed: the coordinator's reconnections are refused.
    const operator = new Redis({ port: redis.port, host: "127.0.0.1" });
    await operator.call("CONFIG", "SET", "requirepass", "changed");
    operator.disconnect();
    const admin = new Redis({ port: redis.port, host: "127.0.0.1", password: "changed" });
    await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    admin.disconnect();
    expect(await terminate(run)).toBe(130);
    expect(leftBehind("refusing-auth")).toEqual({ status: "cancelled", locked: false });
  }, 120_000);

  it("while starting, before its Redis answers", async () => {
    const redis = await redisServer("hung-at-start");
    const run = startLab(runArgs(redis, "hung-at-start"), { cwd: root });
    started.push(run);
    // Past the reachability check (it has its own timeout), then Redis hangs.
    await waitFor(() => run.stderr().includes("trials go to queue"), 60_000, "the check");
    redis.pause();
    expect(await terminate(run)).toBe(130);
    expect(existsSync(path.join(runsDir, "hung-at-start", "run.lock"))).toBe(false);
  }, 120_000);
});

describe.skipIf(redisServerPath === null)("a gen on a queue stops on SIGTERM", () => {
  afterEach(async () => {
    for (const process of started.splice(0))
      if (process.child.exitCode === null && process.child.signalCode === null) {
        process.child.kill("SIGKILL");
        await process.exited;
      }
    for (const server of servers.splice(0)) await server.stop();
  });

  it("when its Redis is gone", async () => {
    const redis = await redisServer("gen-gone");
    const gen = startLab(
      ["gen", "--suite", "fixture", "--evals-dir", evalsDir, "--queue", redis.url],
      { cwd: root, env: { LAB_CACHE_DIR: path.join(root, "gen-cache") } },
    );
    started.push(gen);
    await waitFor(() => gen.stderr().includes("proofs go to queue"), 60_000, "the gen to start");
    await redis.stop();
    expect(await terminate(gen)).toBe(130);
  }, 120_000);
});
