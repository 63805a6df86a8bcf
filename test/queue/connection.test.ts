import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkQueueReachable, parseQueueAddress } from "../../src/queue/index.js";
import { runLab } from "../helpers/lab.js";
import {
  freePort,
  redisMissingMessage,
  redisServerPath,
  startRedis,
  type RedisServer,
} from "../helpers/redis.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir("lab-queue-connection-");
let redis: RedisServer;

if (redisServerPath === null) console.warn(redisMissingMessage);

const at = (url: string) => parseQueueAddress(url, { insecure: false });

describe.skipIf(redisServerPath === null)("reaching the queue's Redis", () => {
  beforeAll(async () => {
    redis = await startRedis(path.join(root, "redis"), { password: "s3cret" });
  });

  afterAll(async () => {
    await redis.stop();
  });

  it("connects with the password, and says why it cannot without it or with a wrong one", async () => {
    const port = String(redis.port);
    await expect(checkQueueReachable(at(`redis://:s3cret@127.0.0.1:${port}`))).resolves.toEqual([]);
    await expect(checkQueueReachable(at(`redis://127.0.0.1:${port}`))).rejects.toThrow(
      `Cannot reach the queue's Redis at redis://127.0.0.1:${port}: Redis asks for a password and the URL gives none (NOAUTH).`,
    );
    await expect(checkQueueReachable(at(`redis://:wrong@127.0.0.1:${port}`))).rejects.toThrow(
      `Cannot reach the queue's Redis at redis://:***@127.0.0.1:${port}: Redis refused the URL's user or password (WRONGPASS).`,
    );
  });

  it("stops a run before it writes anything when nothing listens at the URL", async () => {
    const port = String(await freePort());
    const run = await runLab(
      ["run", "gold", "--suite", "starter", "--runs-dir", path.join(root, "runs")],
      { cwd: root, env: { LAB_QUEUE: `redis://:pw@127.0.0.1:${port}` } },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `lab run: Cannot reach the queue's Redis at redis://:***@127.0.0.1:${port}: nothing listens there (connection refused).\nhint: Start it (redis-server, or \`systemctl start redis-server\`), or check --queue / LAB_QUEUE.\n`,
    );
    expect(existsSync(path.join(root, "runs"))).toBe(false);
  });
});
