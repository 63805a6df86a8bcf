import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runLab } from "../helpers/lab.js";
import { startLab, type LabProcess } from "../helpers/lab-process.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import {
  makeTlsFiles,
  redisMissingMessage,
  redisServerPath,
  startRedis,
  type RedisServer,
  type TlsFiles,
} from "../helpers/redis.js";
import { tempDir } from "../helpers/temp.js";
import { fixAndSleep, results, startWorker, stopAll } from "./helpers.js";

const root = tempDir("lab-queue-security-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const servers: RedisServer[] = [];
const started: LabProcess[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

/** This machine's first address outside loopback: Redis there is "another machine" to lab. */
const outsideLoopback =
  Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && entry.family === "IPv4" && !entry.internal)?.address ??
  null;
if (redisServerPath !== null && outsideLoopback === null)
  console.warn("this machine has no IPv4 address outside loopback: the --insecure test is skipped");

function runArgs(runId: string, url: string, ...extra: string[]): string[] {
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
    url,
    ...extra,
  ];
}

describe.skipIf(redisServerPath === null)("the queue's Redis, guarded", () => {
  beforeAll(() => {
    writeFixtureSuite(evalsDir, "fixture", [addTask("alpha")]);
  });

  afterEach(async () => {
    await stopAll(started);
  });

  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it.skipIf(outsideLoopback === null)(
    "refuses a passwordless Redis outside loopback, and serves it with --insecure, warning of clear text",
    async () => {
      const redis = await startRedis(path.join(root, "open"), { host: outsideLoopback ?? "" });
      servers.push(redis);
      const display = redis.url;
      const refusal = `--queue ${display} is a Redis on another machine without a password: anyone who can reach it could read the tasks, change jobs and plant results.\nhint: Give Redis a password (requirepass, or an ACL user) and put it in the URL:`;

      const run = await runLab(runArgs("open", redis.url), { cwd: root });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`lab run: ${refusal}`);
      expect(existsSync(runsDir)).toBe(false);
      const worker = await runLab(["worker", "--evals-dir", evalsDir], {
        cwd: root,
        env: { LAB_QUEUE: redis.url },
      });
      expect(worker.code).toBe(2);
      expect(worker.stderr).toContain(`lab worker: ${refusal}`);

      const trusted = await startWorker(root, redis, "trusting", {
        evalsDir,
        args: ["--insecure"],
      });
      started.push(trusted);
      const warning = `queue ${display}: no password and no TLS; the password, tasks and results cross the network in clear text. Use rediss:// where Redis serves TLS.`;
      expect(trusted.stderr()).toContain(warning);
      const insecure = await runLab(runArgs("insecure", redis.url, "--insecure"), { cwd: root });
      expect(insecure.code).toBe(0);
      expect(insecure.stderr).toContain(warning);
      expect(insecure.stderr).toMatch(/run insecure completed: 1\/1 resolved/);
    },
    120_000,
  );

  it("runs trials over TLS (rediss://), trusting only a server whose certificate it can verify", async () => {
    const tls: TlsFiles = makeTlsFiles(path.join(root, "tls"));
    const redis = await startRedis(path.join(root, "tls-redis"), { tls, password: "s3cret" });
    servers.push(redis);
    const url = redis.url.replace("rediss://", "rediss://:s3cret@");
    const display = redis.url.replace("rediss://", "rediss://:***@");
    expect(url).toMatch(/^rediss:\/\/:s3cret@127\.0\.0\.1:\d+$/);

    // Without the authority that signed the server's certificate, lab does not talk to it.
    const untrusted = await runLab(runArgs("untrusted", url), { cwd: root });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain(`lab run: Cannot reach the queue's Redis at ${display}: `);
    expect(untrusted.stderr).toMatch(/certificate/);
    expect(existsSync(path.join(runsDir, "untrusted"))).toBe(false);

    // Node takes extra authorities from NODE_EXTRA_CA_CERTS, as on a team's machines.
    const env = { NODE_EXTRA_CA_CERTS: tls.ca };
    const worker = await startWorker(root, { ...redis, url }, "tls", { evalsDir, env });
    started.push(worker);
    expect(worker.stderr()).toContain(`worker tls serves queue ${display}`);
    // A process of its own: Node reads NODE_EXTRA_CA_CERTS when it starts.
    const run = startLab(runArgs("over-tls", url), { cwd: root, env });
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toMatch(/run over-tls completed: 1\/1 resolved/);
    expect(run.stderr()).not.toMatch(/clear text|DeprecationWarning/);
    expect(worker.stderr()).not.toMatch(/DeprecationWarning/);
    expect(results(path.join(runsDir, "over-tls")).alpha?.["1"]?.resolved).toBe(true);
  }, 120_000);
});
