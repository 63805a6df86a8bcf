import { readdir } from "node:fs/promises";
import path from "node:path";

/**
 * Files under `root` (not following links) whose name passes `accept`, up to `maxDepth` folders
 * deep: how adapters find the transcript a CLI left in its HOME.
 */
export async function findFiles(
  root: string,
  accept: (name: string) => boolean,
  maxDepth = 6,
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < maxDepth) await walk(full, depth + 1);
      else if (entry.isFile() && accept(entry.name)) found.push(full);
    }
  };
  await walk(root, 0);
  return found.sort();
}
