import { chmod, lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";

/**
 * Removes a folder that code lab ran may have left in any state: when a plain removal fails
 * (a folder without write or search permission, which stops anyone but root), every folder in
 * it is given its owner's permissions back, symlinks never followed, and the removal tried
 * again. Returns the error that still stops it, or null once it is gone.
 */
export async function removeTree(dir: string): Promise<Error | null> {
  try {
    await rm(dir, { recursive: true, force: true });
    return null;
  } catch {
    await restorePermissions(dir);
  }
  try {
    await rm(dir, { recursive: true, force: true });
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

async function restorePermissions(dir: string): Promise<void> {
  const stats = await lstat(dir).catch(() => null);
  if (stats === null || !stats.isDirectory()) return;
  await chmod(dir, stats.mode | 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries)
    if (entry.isDirectory()) await restorePermissions(path.join(dir, entry.name));
}
