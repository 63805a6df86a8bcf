/**
 * One process per run: `run.lock` in a run folder names the lab process running it (pid, host,
 * and on Linux the boot and the process's start time, so a reused pid is not taken for the
 * holder). It is made with O_EXCL, so of two processes started together exactly one gets it.
 * A lock whose holder is gone (same host, pid dead or another process now) is stale and taken
 * over; a second file, made with O_EXCL too, lets only one process take it over. A lock held on
 * another host cannot be checked and is never taken over. See docs/design/runs-and-resume.md.
 */
import { readFileSync } from "node:fs";
import { mkdir, open, readFile, rm, rmdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LabError } from "../core/index.js";
import type { RunPaths } from "./runs.js";

/** Who holds a run's lock. */
export interface RunLockHolder {
  readonly pid: number;
  readonly host: string;
  /** When it took the lock (ISO). */
  readonly since: string;
  /** Linux: the boot id and the process's start time in clock ticks; absent elsewhere. */
  readonly processStart?: string | undefined;
}

/** A held run lock. */
export interface RunLock {
  /** The stale holder this process took the lock over from, if it did. */
  readonly tookOverFrom: RunLockHolder | null;
  /** Gives the lock up (only if this process still holds it). */
  release(): Promise<void>;
}

/** What a run's lock says, for readers such as `lab report`. */
export interface RunLockState {
  readonly holder: RunLockHolder;
  /** "running": the holder is alive; "stale": it is gone; "unknown": it is on another host. */
  readonly state: "running" | "stale" | "unknown";
}

/** How long a lock file may stay empty before it counts as left by a killed process. */
const UNWRITTEN_LOCK_MS = 10_000;

/** The lock file of a run. */
export function runLockFile(run: RunPaths): string {
  return path.join(run.dir, "run.lock");
}

/**
 * Takes the run's lock for this process, taking over a stale one; throws RUN_LOCKED naming the
 * holder when a live process (or one on another host) holds it.
 */
export async function acquireRunLock(run: RunPaths): Promise<RunLock> {
  const file = runLockFile(run);
  // The first folder mkdir made (the run's, or the runs folder above it), removed on release
  // if still empty: a run stopped by a check before any trial leaves nothing behind.
  const created = await mkdir(run.dir, { recursive: true });
  const me = currentHolder();
  let tookOverFrom: RunLockHolder | null = null;
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await createExclusive(file, me)) return heldLock(file, me, tookOverFrom, created);
    const seen = await readLockState(file);
    if (seen === null) continue;
    if (seen.state !== "stale") throw lockedError(run, file, seen);
    if (await takeOver(file, seen.holder)) tookOverFrom = seen.holder;
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seen = await readLockState(file);
  throw lockedError(run, file, seen ?? { holder: me, state: "unknown" });
}

/** The state of a run's lock, or null when the run is not locked. */
export async function readRunLock(run: RunPaths): Promise<RunLockState | null> {
  return readLockState(runLockFile(run));
}

/** Whether a holder is this very process (its lock was not taken over since). */
function isSame(a: RunLockHolder, b: RunLockHolder): boolean {
  return a.pid === b.pid && a.host === b.host && a.since === b.since;
}

/** A held lock; releasing it also removes the folders it made if nothing else went in. */
function heldLock(
  file: string,
  me: RunLockHolder,
  tookOverFrom: RunLockHolder | null,
  created: string | undefined,
): RunLock {
  return {
    tookOverFrom,
    async release() {
      const current = await readHolder(file);
      if (current === null || !isSame(current, me)) return;
      await rm(file, { force: true });
      if (created === undefined) return;
      for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
        if (dir === created || dir === path.dirname(dir)) break;
      }
    },
  };
}

async function createExclusive(file: string, holder: RunLockHolder): Promise<boolean> {
  try {
    const handle = await open(file, "wx");
    try {
      await handle.writeFile(`${JSON.stringify(holder)}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes a stale lock if it still names `stale`, under a take-over file only one process can
 * make. A take-over file left by a process killed in the middle is itself judged by its pid.
 */
async function takeOver(file: string, stale: RunLockHolder): Promise<boolean> {
  const guard = `${file}.takeover`;
  if (!(await createExclusive(guard, currentHolder()))) {
    const other = await readLockState(guard);
    if (other?.state === "stale") await rm(guard, { force: true });
    return false;
  }
  try {
    const current = await readHolder(file);
    if (current !== null && isSame(current, stale)) await rm(file, { force: true });
    return true;
  } finally {
    await rm(guard, { force: true });
  }
}

async function readHolder(file: string): Promise<RunLockHolder | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<RunLockHolder>;
    if (typeof parsed.pid === "number" && typeof parsed.host === "string")
      return {
        pid: parsed.pid,
        host: parsed.host,
        since: typeof parsed.since === "string" ? parsed.since : "",
        processStart: parsed.processStart,
      };
  } catch {
    // Half-written by a holder between open and write: treated as held by an unknown process.
  }
  return { pid: 0, host: os.hostname(), since: "" };
}

async function readLockState(file: string): Promise<RunLockState | null> {
  const holder = await readHolder(file);
  if (holder === null) return null;
  if (holder.host !== os.hostname()) return { holder, state: "unknown" };
  // pid 0: a lock its holder has not written yet, or never will (killed in between).
  if (holder.pid === 0) {
    const age = await stat(file).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    return { holder, state: age > UNWRITTEN_LOCK_MS ? "stale" : "running" };
  }
  return { holder, state: isRunning(holder) ? "running" : "stale" };
}

/** Whether the holder's process still runs: its pid is alive and is the same process. */
function isRunning(holder: RunLockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const now = processStartOf(holder.pid);
  return holder.processStart === undefined || now === undefined || now === holder.processStart;
}

function currentHolder(): RunLockHolder {
  return {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    processStart: processStartOf(process.pid),
  };
}

/** Linux's boot id and a process's start time (field 22 of /proc/PID/stat), or undefined. */
function processStartOf(pid: number): string | undefined {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from its last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = fields[19];
    return start === undefined ? undefined : `${boot}:${start}`;
  } catch {
    return undefined;
  }
}

function lockedError(run: RunPaths, file: string, seen: RunLockState): LabError {
  const { holder } = seen;
  const who =
    holder.pid === 0
      ? "another lab process"
      : `lab process ${String(holder.pid)} on ${holder.host}${holder.since === "" ? "" : ` (since ${holder.since})`}`;
  return new LabError(
    "RUN_LOCKED",
    `Run "${path.basename(run.dir)}" is being run by ${who}; two processes on one run would run every trial twice.`,
    {
      hint:
        seen.state === "unknown"
          ? `Wait for it to end, or pass another --run-id. If no lab process on ${holder.host} runs it any more, delete ${file}.`
          : "Wait for it to end (rerunning the same command then resumes it), or pass another --run-id.",
    },
  );
}
