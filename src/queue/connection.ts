import { isIP } from "node:net";
import { Redis } from "ioredis";
import { errorMessage, LabError } from "../core/index.js";
import type { QueueAddress } from "./address.js";

/** How to connect to Redis: what BullMQ and ioredis both take. */
export interface ConnectionSettings {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /** TLS (rediss://); the server name is sent for a host name, as an address may not be (RFC 6066). */
  readonly tls?: { readonly servername?: string };
  readonly maxRetriesPerRequest: null;
}

/**
 * ioredis options for an address. Commands wait through a Redis restart instead of failing
 * (`maxRetriesPerRequest: null`, which BullMQ's workers need anyway): a coordinator or worker
 * rides out an outage and goes on where it was.
 */
export function redisOptions(address: QueueAddress): ConnectionSettings {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username === undefined ? {} : { username: address.username }),
    ...(address.password === undefined ? {} : { password: address.password }),
    ...(address.tls ? { tls: isIP(address.host) === 0 ? { servername: address.host } : {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** Why a connection failed, in words. */
function describeRedisError(error: unknown): string {
  const message = errorMessage(error);
  if (/NOAUTH/.test(message)) return "Redis asks for a password and the URL gives none (NOAUTH)";
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message))
    return "Redis refused the URL's user or password (WRONGPASS)";
  if (/ECONNREFUSED/.test(message)) return "nothing listens there (connection refused)";
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return "the host name does not resolve";
  if (/ETIMEDOUT|timed out/i.test(message)) return "no answer within 5 s";
  return message;
}

/**
 * Connects once, without retrying, so a wrong URL or a Redis that does not answer fails in
 * seconds with a clear message (QUEUE_UNAVAILABLE) instead of waiting forever; returns
 * warnings about the server (an eviction policy that would drop jobs).
 */
export async function checkQueueReachable(address: QueueAddress): Promise<string[]> {
  const client = new Redis({
    ...redisOptions(address),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5000,
    // connectTimeout ends at the TCP handshake: a hung Redis (or a host that accepts and is
    // silent) must fail the check too, not hold it forever.
    commandTimeout: 5000,
  });
  // The reason (ECONNREFUSED, WRONGPASS) comes as an error event; connect() then only says closed.
  let reason: unknown = null;
  client.on("error", (error) => {
    reason ??= error;
  });
  try {
    await client.connect();
    const info = await client.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    if (version !== null && Number(version[1]) < 5) {
      throw new LabError(
        "QUEUE_UNAVAILABLE",
        `The queue's Redis at ${address.display} is version ${version[1] ?? "?"}.${version[2] ?? "?"}; lab's queue (BullMQ) needs Redis 5 or later.`,
        { hint: "Upgrade Redis (Debian: apt-get install redis-server)." },
      );
    }
    const warnings: string[] = [];
    const policy = await client.config("GET", "maxmemory-policy").catch(() => null);
    const value = Array.isArray(policy) ? (policy as unknown[])[1] : undefined;
    if (typeof value === "string" && value !== "noeviction") {
      warnings.push(
        `queue ${address.display}: Redis's maxmemory-policy is ${value}; under memory pressure it may evict jobs and results. Set it to noeviction.`,
      );
    }
    return warnings;
  } catch (error) {
    if (error instanceof LabError) throw error;
    throw new LabError(
      "QUEUE_UNAVAILABLE",
      `Cannot reach the queue's Redis at ${address.display}: ${describeRedisError(reason ?? error).replace(/\.$/, "")}.`,
      {
        hint: address.isLoopback
          ? "Start it (redis-server, or `systemctl start redis-server`), or check --queue / LAB_QUEUE."
          : "Check the host, port and password in --queue / LAB_QUEUE, and that this machine may reach it.",
        cause: error,
      },
    );
  } finally {
    client.disconnect();
  }
}

/** Opens a client for lab's own keys beside BullMQ's (the worker registry, refusals). */
export function openRedis(address: QueueAddress): Redis {
  const client = new Redis(redisOptions(address));
  // Errors surface as failed commands; the client reconnects by itself.
  client.on("error", () => undefined);
  return client;
}
