import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Task } from "../core/index.js";

/** Every file under `dir`, as paths relative to it with "/" separators, sorted. */
async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(dir, relative)));
    else if (entry.isFile()) files.push(relative);
  }
  return files.sort();
}

/**
 * A content hash of a task: every file of its task folder and of its oracle folder, by path
 * and bytes. Two machines whose hashes agree grade the task alike; the base repository is left
 * out, because setup.sh checks that the work tree ends at the task's base commit.
 */
export async function taskContentHash(task: Pick<Task, "dir" | "oracleDir">): Promise<string> {
  const hash = createHash("sha256");
  for (const [label, dir] of [
    ["tasks", task.dir],
    ["oracle", task.oracleDir],
  ] as const) {
    for (const file of await listFiles(dir)) {
      const bytes = await readFile(path.join(dir, file));
      hash.update(`${label}/${file}\0${String(bytes.length)}\0`);
      hash.update(bytes);
    }
  }
  return hash.digest("hex").slice(0, 24);
}
