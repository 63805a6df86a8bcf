import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

/** A free port of `host` (bound, read and released: another process could take it, rarely). */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
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
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as a hung host's. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
}

/** Files of a certificate authority and of a server certificate it signed (`makeTlsFiles`). */
export interface TlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

async function waitForPing(
  port: number,
  timeoutMs: number,
  options: { password?: string; host: string; tls?: TlsFiles },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Redis({
      port,
      host: options.host,
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      ...(options.password === undefined ? {} : { password: options.password }),
      ...(options.tls === undefined ? {} : { tls: { ca: readFileSync(options.tls.ca) } }),
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
 * A certificate authority and a server certificate for 127.0.0.1 and localhost that it signed,
 * made with openssl in `dir`: clients trust the server only when told of the authority.
 */
export function makeTlsFiles(dir: string): TlsFiles {
  mkdirSync(dir, { recursive: true });
  const files = {
    ca: path.join(dir, "ca.pem"),
    cert: path.join(dir, "server.pem"),
    key: path.join(dir, "server.key"),
  };
  const openssl = (...args: string[]): void => {
    const done = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (done.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${done.stderr}`);
  };
  // prettier-ignore
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=lab test CA",
    "-keyout", "ca.key", "-out", files.ca);
  // prettier-ignore
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
    "-keyout", files.key, "-out", "server.csr");
  writeFileSync(path.join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  // prettier-ignore
  openssl("x509", "-req", "-in", "server.csr", "-CA", files.ca, "-CAkey", "ca.key",
    "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", files.cert);
  return files;
}

/**
 * Starts redis-server on a free port of `host` (loopback by default) with its files in `dir`;
 * with `persistence`, an append-only file synced on every write, so a crash loses nothing
 * acknowledged; with `password`, clients must give it; with `tls`, it speaks only TLS
 * (rediss://) with that certificate.
 */
export async function startRedis(
  dir: string,
  options: { persistence?: boolean; password?: string; host?: string; tls?: TlsFiles } = {},
): Promise<RedisServer> {
  if (redisServerPath === null) throw new Error(redisMissingMessage);
  const binary = redisServerPath;
  const host = options.host ?? "127.0.0.1";
  mkdirSync(dir, { recursive: true });
  const port = await freePort(host);
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const start = async (): Promise<void> => {
    const args = [
      ...(options.tls === undefined
        ? ["--port", String(port)]
        : [
            "--port",
            "0",
            "--tls-port",
            String(port),
            "--tls-cert-file",
            options.tls.cert,
            "--tls-key-file",
            options.tls.key,
            "--tls-ca-cert-file",
            options.tls.ca,
            "--tls-auth-clients",
            "no",
          ]),
      "--bind",
      host,
      "--protected-mode",
      "no",
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
    await waitForPing(port, 10_000, { ...options, host });
  };
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(name);
    await exited;
  };
  await start();
  return {
    port,
    url: `${options.tls === undefined ? "redis" : "rediss"}://${host}:${String(port)}`,
    dir,
    stop: async () => {
      child?.kill("SIGCONT");
      await signal("SIGTERM");
    },
    kill: () => signal("SIGKILL"),
    start,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
  };
}
