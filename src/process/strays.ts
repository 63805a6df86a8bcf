import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";

/** An environment variable that marks one process tree, inherited by every descendant. */
export interface EnvMarker {
  /** Variable name, e.g. "LAB_TRIAL_TOKEN". */
  readonly name: string;
  /** A value unique to this tree. */
  readonly value: string;
}

/** The variable lab marks tool process trees with. */
export const TRIAL_MARKER_NAME = "LAB_TRIAL_TOKEN";

/** A fresh marker to put in a tool's env, so its strays can be found later. */
export function createEnvMarker(name: string = TRIAL_MARKER_NAME): EnvMarker {
  return { name, value: randomUUID() };
}

/** Files read at once while scanning /proc; bounded so a busy host cannot hit EMFILE. */
const SCAN_BATCH_SIZE = 64;
/** Kill rounds before giving up on a tree that keeps forking. */
const MAX_KILL_ROUNDS = 10;
/** Pause between rounds, so a fork in flight shows up in /proc. */
const ROUND_PAUSE_MS = 20;

/**
 * Pids of processes whose environment holds `name=value`, except this process (Linux; [] elsewhere).
 * Catches what escaped its process group (setsid, double fork), but not a process that cleared
 * its environment before exec: /proc shows the environment a program was started with.
 * Zombies and other users' processes read as empty or unreadable and are skipped.
 */
export async function findProcessesByEnvMarker(name: string, value: string): Promise<number[]> {
  if (process.platform !== "linux") return [];
  const needle = Buffer.from(`${name}=${value}`);
  const pids = (await readdir("/proc"))
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid);
  const found: number[] = [];
  for (let start = 0; start < pids.length; start += SCAN_BATCH_SIZE) {
    const batch = pids.slice(start, start + SCAN_BATCH_SIZE);
    const marked = await Promise.all(batch.map((pid) => hasMarker(pid, needle)));
    batch.forEach((pid, index) => {
      if (marked[index] === true) found.push(pid);
    });
  }
  return found;
}

/**
 * SIGKILLs every process marked `name=value` and returns how many it killed. Scans again after
 * each round, a few rounds at most, because a dying daemon may have forked in between.
 */
export async function killProcessesByEnvMarker(name: string, value: string): Promise<number> {
  const killed = new Set<number>();
  for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
    const pids = await findProcessesByEnvMarker(name, value);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
        killed.add(pid);
      } catch {
        // Gone since the scan (ESRCH), or not ours to kill (EPERM).
      }
    }
    await delay(ROUND_PAUSE_MS);
  }
  return killed.size;
}

async function hasMarker(pid: number, needle: Buffer): Promise<boolean> {
  let environ: Buffer;
  try {
    environ = await readFile(`/proc/${String(pid)}/environ`);
  } catch {
    return false;
  }
  // Entries are NUL-separated: the match must be a whole entry, not part of another's value.
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    const isEntryStart = at === 0 || environ[at - 1] === 0;
    const isEntryEnd = end === environ.length || environ[end] === 0;
    if (isEntryStart && isEntryEnd) return true;
  }
  return false;
}
