import { open, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { LabError } from "../core/index.js";

/** How long a builder waits for another one before giving up. */
const WAIT_LIMIT_MS = 60 * 60_000;

/**
 * Runs `work` holding `<dir>/build.lock`, a file naming its holder (host and pid). A lock whose
 * holder on this host is gone is taken over; otherwise this waits, saying so once.
 */
export async function withBuildLock<T>(
  dir: string,
  progress: (message: string) => void,
  work: () => Promise<T>,
): Promise<T> {
  const lock = path.join(dir, "build.lock");
  const me = `${os.hostname()} ${String(process.pid)}`;
  const started = Date.now();
  let said = false;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      await handle.writeFile(`${me}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = (await readFile(lock, "utf8").catch(() => "")).trim();
    if (holder !== "" && isStale(holder)) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() - started > WAIT_LIMIT_MS) {
      throw new LabError(
        "SANDBOX_UNAVAILABLE",
        `Another lab (${holder}) has been building the sandbox image for an hour.`,
        { hint: `If it is gone, remove ${lock}.` },
      );
    }
    if (!said) {
      progress(`waiting for another lab (${holder || "starting"}) building the sandbox image`);
      said = true;
    }
    await delay(1000);
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Whether a lock's holder ("HOST PID") is a process of this host that no longer runs. */
function isStale(holder: string): boolean {
  const [host, pid] = holder.split(" ");
  if (host !== os.hostname() || pid === undefined || !/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
