import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Redis } from "ioredis";

/** The redis-server binary on PATH, or null: the queue tests then skip, saying why. */
export const redisServerPath: string | null = (() => {
  const found = spawnSync("bash", ["-c", "command -v redis-server"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : null;
})();

/** Why the queue tests are skipped here, when they are. */
export const redisMissingMessage =
  "redis-server is not installed: the queue tests are skipped. Install it (apt-get install redis-server; scripts/test.sh does when run as root).";

/** A free loopback port (bound, read and released: another process could take it, rarely). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        resolve(typeof address === "object" && address !== null ? address.port : 0);
      });
    });
  });
}

/** A real redis-server on a random loopback port, in a folder of its own. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** Stops it (SIGTERM) and waits. */
  stop(): Promise<void>;
  /** Kills it hard (SIGKILL), as a crash would, and waits. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder (with persistence, with its data). */
  start(): Promise<void>;
}

async function waitForPing(port: number, timeoutMs: number, password?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      ...(password === undefined ? {} : { password }),
    });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch {
      client.disconnect();
      if (Date.now() > deadline)
        throw new Error(`redis-server on port ${String(port)} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Starts redis-server on a free loopback port with its files in `dir`; with `persistence`, an
 * append-only file synced on every write, so a crash loses nothing acknowledged; with
 * `password`, clients must give it.
 */
export async function startRedis(
  dir: string,
  options: { persistence?: boolean; password?: string } = {},
): Promise<RedisServer> {
  if (redisServerPath === null) throw new Error(redisMissingMessage);
  const binary = redisServerPath;
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const start = async (): Promise<void> => {
    const args = [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--logfile",
      path.join(dir, "redis.log"),
      "--save",
      "",
      ...(options.persistence === true
        ? ["--appendonly", "yes", "--appendfsync", "always"]
        : ["--appendonly", "no"]),
      ...(options.password === undefined ? [] : ["--requirepass", options.password]),
    ];
    const started = spawn(binary, args, { stdio: "ignore" });
    child = started;
    exited = new Promise((resolve) => {
      started.once("exit", () => {
        resolve();
      });
    });
    await waitForPing(port, 10_000, options.password);
  };
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(name);
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${String(port)}`,
    dir,
    stop: () => signal("SIGTERM"),
    kill: () => signal("SIGKILL"),
    start,
  };
}
