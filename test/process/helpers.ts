import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** test/fixtures/bin, where the tiny executables live. */
export const FIXTURES_BIN = fileURLToPath(new URL("../fixtures/bin/", import.meta.url));

/** A minimal env with the fixtures and this Node on PATH (their shebang is `env node`). */
export function fixtureEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: [FIXTURES_BIN, dirname(process.execPath)].join(delimiter), ...extra };
}

/** A fresh temporary folder and a function that removes it. */
export async function makeTempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "lab-process-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Polls until `check` holds, failing with `what` after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await delay(10);
  }
}

/** Waits for a fixture's pid file and returns the pid in it. */
export async function readPidFile(path: string): Promise<number> {
  await waitUntil(() => existsSync(path), `pid file ${path}`);
  return Number(await readFile(path, "utf8"));
}

/**
 * Whether `pid` is a running process. A zombie counts as dead: orphans are reparented to PID 1,
 * which may never reap them, so kill(pid, 0) alone would keep "finding" them.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls briefly until `pid` is dead; fails if it still runs. */
export async function expectDead(pid: number): Promise<void> {
  await waitUntil(() => !isAlive(pid), `pid ${String(pid)} to die`, 2000);
}

/** SIGKILLs `pid` if still running, for cleanup after a failed test. */
export function killQuietly(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
