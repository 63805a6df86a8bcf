import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Runs `work` holding a lock folder beside `target`, so concurrent lab processes on one machine
 * take turns. A lock whose owner process is gone is taken over.
 */
export async function withLock<T>(
  target: string,
  work: () => Promise<T>,
  options: { pollMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<T> {
  const lock = `${target}.lock`;
  await mkdir(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(await readFile(path.join(lock, "pid"), "utf8").catch(() => "0"));
      // No pid yet means the owner is between mkdir and writeFile: wait for it.
      if (owner > 0 && !isAlive(owner)) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (options.signal?.aborted === true) throw new Error("aborted while waiting for a lock");
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
