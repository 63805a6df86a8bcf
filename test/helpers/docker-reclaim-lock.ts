import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * `lab cache clear` removes every container of the engine whose lab is gone, whichever cache
 * folder or run it belongs to (as a user wants). A test that leaves such a container on purpose
 * and then checks who removes it must not overlap with another test file's `lab cache clear`,
 * which would remove it first. Test files run in parallel workers, so both hold this lock, a
 * folder shared by the machine's test processes, over those moments only.
 */
const LOCK = path.join(os.tmpdir(), `lab-test-docker-reclaim-${String(os.userInfo().uid)}`);

function holderIsGone(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(LOCK, "pid"), "utf8"));
  } catch {
    // Taken a moment ago, its pid not yet written: not stale.
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Runs `fn` holding the lock; a lock whose holder died is taken over. */
export async function withDockerReclaimLock<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (holderIsGone()) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  writeFileSync(path.join(LOCK, "pid"), String(process.pid));
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
