import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startLab, waitFor, type LabProcess } from "../helpers/lab-process.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import {
  redisMissingMessage,
  redisServerPath,
  startRedis,
  type RedisServer,
} from "../helpers/redis.js";
import { tempDir } from "../helpers/temp.js";
import { fixAndSleep, inspectQueue, startWorker } from "./helpers.js";

const root = tempDir("lab-queue-worker-stop-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const started: LabProcess[] = [];
const servers: RedisServer[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

/**
 * How long a worker may take to stop on SIGTERM: its 10 s for Redis to answer, the trial's
 * kill (SIGTERM, SIGKILL 5 s later), and room for a loaded machine.
 */
const STOP_WITHIN_MS = 25_000;

async function redisServer(name: string): Promise<RedisServer> {
  const server = await startRedis(path.join(root, "redis", name));
  servers.push(server);
  return server;
}

async function worker(redis: RedisServer, name: string): Promise<LabProcess> {
  const process = await startWorker(root, redis, name, { evalsDir, lockDuration: "30s" });
  started.push(process);
  return process;
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

/** Starts `lab run command` on `redis` over the fixture's task alpha and waits until `on` runs it. */
async function trialOn(redis: RedisServer, on: LabProcess, runId: string): Promise<LabProcess> {
  const coordinator = startLab(
    [
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
      fixAndSleep(600),
      "--tasks",
      "alpha",
      "--queue",
      redis.url,
    ],
    { cwd: root },
  );
  started.push(coordinator);
  await waitFor(
    () => on.stderr().includes(`${runId}: alpha #1: started`),
    60_000,
    "the worker to take the trial",
  );
  return coordinator;
}

/** Whether process `pid` has a TCP connection open to loopback `port` (/proc: its sockets). */
function isConnected(pid: number, port: number): boolean {
  const sockets = new Set<string>();
  for (const fd of readdirSync(`/proc/${String(pid)}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${String(pid)}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) sockets.add(inode);
    } catch {
      // Closed while listed.
    }
  }
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .some((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[2] === remote && fields[3] === "01" && sockets.has(fields[9] ?? "");
    });
}

/** Runs one command on `redis` as an operator would (redis-cli), on a connection of its own. */
async function operate(redis: RedisServer, ...command: string[]): Promise<void> {
  const client = new Redis({ port: redis.port, host: "127.0.0.1", lazyConnect: true });
  try {
    await client.connect();
    await client.call(command[0] ?? "PING", ...command.slice(1));
  } finally {
    client.disconnect();
  }
}

describe.skipIf(redisServerPath === null)("a worker stops on SIGTERM", () => {
  beforeAll(() => {
    writeFixtureSuite(evalsDir, "fixture", [addTask("alpha")]);
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

  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it("when idle", async () => {
    const redis = await redisServer("idle");
    const idle = await worker(redis, "idle");
    expect(await terminate(idle)).toBe(130);
    expect(idle.stderr()).toContain("lab worker: worker idle stopping\n");
  }, 120_000);

  it("mid-trial, handing the trial back to the queue", async () => {
    const redis = await redisServer("mid-trial");
    const busy = await worker(redis, "busy");
    await trialOn(redis, busy, "mid-trial");
    expect(await terminate(busy)).toBe(130);
    expect(busy.stderr()).toContain("mid-trial: alpha #1: stopped; handed back to the queue");
    const queue = inspectQueue(redis);
    try {
      expect(await queue.getWaitingCount()).toBe(1);
    } finally {
      await queue.close();
    }
  }, 120_000);

  it("when its Redis is gone (nothing listens on its port)", async () => {
    const redis = await redisServer("gone");
    const orphan = await worker(redis, "orphan");
    await redis.stop();
    await waitFor(() => orphan.stderr().includes("ECONNREFUSED"), 30_000, "the worker to notice");
    expect(await terminate(orphan)).toBe(130);
    expect(orphan.stderr()).toContain(
      "warning: the queue's Redis did not answer within 10 s: leaving without handing anything back",
    );
  }, 120_000);

  it("mid-trial when its Redis is gone, leaving the trial to its lock", async () => {
    const redis = await redisServer("gone-mid-trial");
    const busy = await worker(redis, "stranded");
    await trialOn(redis, busy, "gone-mid-trial");
    await redis.kill();
    expect(await terminate(busy)).toBe(130);
    expect(busy.stderr()).toContain(
      "warning: the queue's Redis did not answer within 10 s: leaving without handing anything back; 1 running job(s) go to another worker once their lock lapses (--lock-duration)",
    );
  }, 120_000);

  it("when its Redis hangs (connections open, no answers)", async () => {
    const redis = await redisServer("hung");
    const waiting = await worker(redis, "waiting");
    redis.pause();
    expect(await terminate(waiting)).toBe(130);
    expect(waiting.stderr()).toContain("the queue's Redis did not answer within 10 s");
  }, 120_000);

  it("when its Redis refuses its password", async () => {
    const redis = await redisServer("refusing-auth");
    const locked = await worker(redis, "locked-out");
    // A password set and every connection closed: the worker's reconnections are refused.
    await operate(redis, "CONFIG", "SET", "requirepass", "changed");
    const admin = new Redis({ port: redis.port, host: "127.0.0.1", password: "changed" });
    await admin.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    admin.disconnect();
    await waitFor(() => /NOAUTH|WRONGPASS/.test(locked.stderr()), 30_000, "the refusal");
    expect(await terminate(locked)).toBe(130);
  }, 120_000);

  it("when its Redis refuses its commands", async () => {
    const redis = await redisServer("refusing-commands");
    const denied = await worker(redis, "denied");
    // The default user may no longer run anything (an operator's ACL change).
    await operate(redis, "ACL", "SETUSER", "default", "-@all");
    await waitFor(() => denied.stderr().includes("NOPERM"), 30_000, "the refusal");
    expect(await terminate(denied)).toBe(130);
  }, 120_000);

  it("while starting, before its Redis answers", async () => {
    const redis = await redisServer("hung-at-start");
    redis.pause();
    const early = startLab(
      ["worker", "--queue", redis.url, "--name", "early", "--evals-dir", evalsDir],
      { cwd: root, env: { LAB_SCRATCH_DIR: path.join(root, "scratch", "early") } },
    );
    started.push(early);
    await waitFor(
      () => isConnected(early.child.pid ?? 0, redis.port),
      60_000,
      "the worker to reach Redis",
    );
    expect(await terminate(early)).toBe(130);
    expect(early.stderr()).not.toContain("serves queue");
  }, 120_000);
});

describe.skipIf(redisServerPath === null)("a worker's start", () => {
  afterAll(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });

  it("fails in seconds, saying so, when its Redis accepts connections and never answers", async () => {
    const redis = await redisServer("silent");
    redis.pause();
    const startedAt = Date.now();
    const silent = startLab(
      ["worker", "--queue", redis.url, "--name", "silent", "--evals-dir", evalsDir],
      { cwd: root, env: { LAB_SCRATCH_DIR: path.join(root, "scratch", "silent") } },
    );
    const code = await Promise.race([
      silent.exited,
      new Promise<null>((resolve) =>
        setTimeout(() => {
          resolve(null);
        }, 60_000),
      ),
    ]);
    if (code === null) silent.child.kill("SIGKILL");
    expect(code).toBe(1);
    expect(silent.stderr()).toBe(
      `lab worker: Cannot reach the queue's Redis at ${redis.url}: no answer within 5 s.\nhint: Start it (redis-server, or \`systemctl start redis-server\`), or check --queue / LAB_QUEUE.\n`,
    );
    expect(Date.now() - startedAt).toBeLessThan(60_000);
  }, 120_000);
});
