import { isIP } from "node:net";
import { LabError, UsageError } from "../core/index.js";

/** Where a queue's Redis is, parsed from `--queue` / LAB_QUEUE. */
export interface QueueAddress {
  readonly host: string;
  readonly port: number;
  /** The Redis database number (the URL's path), 0 by default. */
  readonly db: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** `rediss://`: TLS to the server. */
  readonly tls: boolean;
  /** The host is this machine (localhost, 127.0.0.0/8, ::1). */
  readonly isLoopback: boolean;
  /** The URL with its password replaced by ***, for messages, logs and run.json. */
  readonly display: string;
}

/** Whether a host name or address is this machine only. */
function isLoopbackHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "0:0:0:0:0:0:0:1";
}

/**
 * Parses `redis://[user:pass@]HOST:PORT[/db]` (or `rediss://` for TLS). Workers hold the oracle
 * and results travel through the queue, so a Redis outside loopback must have a password:
 * a passwordless non-loopback URL is refused unless `insecure` (--insecure) says the network
 * is trusted. See docs/design/scale-out.md.
 */
export function parseQueueAddress(text: string, options: { insecure: boolean }): QueueAddress {
  const example =
    "redis://:PASSWORD@HOST:6379 (or rediss:// for TLS; redis://127.0.0.1:6379 on this machine)";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--queue expects a Redis URL such as ${example}; got "${text}".`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new UsageError(
      `--queue expects a URL starting with redis:// or rediss://; got one starting "${url.protocol}".`,
      `For example ${example}.`,
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "")
    throw new UsageError(`--queue names no host: "${text}".`, `For example ${example}.`);
  const port = url.port === "" ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  if (!/^\d{0,5}$/.test(dbText)) {
    throw new UsageError(
      `--queue's path must be a database number (redis://HOST:PORT/0); got "${url.pathname}".`,
    );
  }
  const db = dbText === "" ? 0 : Number(dbText);
  const username = url.username === "" ? undefined : decodeURIComponent(url.username);
  const password = url.password === "" ? undefined : decodeURIComponent(url.password);
  const isLoopback = isLoopbackHost(host);
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const credentials =
    username === undefined && password === undefined
      ? ""
      : `${username ?? ""}${password === undefined ? "" : ":***"}@`;
  const display = `${url.protocol}//${credentials}${shownHost}:${String(port)}${db === 0 ? "" : `/${String(db)}`}`;
  if (!isLoopback && password === undefined && !options.insecure) {
    // Not a UsageError: the command line is well formed, and its help would bury the reason.
    throw new LabError(
      "USAGE",
      `--queue ${display} is a Redis on another machine without a password: anyone who can reach it could read the tasks, change jobs and plant results.`,
      {
        hint: `Give Redis a password (requirepass, or an ACL user) and put it in the URL: ${example}. Pass --insecure only on a network you trust.`,
      },
    );
  }
  return {
    host,
    port,
    db,
    username,
    password,
    tls: url.protocol === "rediss:",
    isLoopback,
    display,
  };
}

/** Notes for the log about an address's security: clear text across the network. */
export function describeAddressRisks(address: QueueAddress): string[] {
  if (address.isLoopback || address.tls) return [];
  return [
    `queue ${address.display}: ${address.password === undefined ? "no password and " : ""}no TLS; the password, tasks and results cross the network in clear text. Use rediss:// where Redis serves TLS.`,
  ];
}
