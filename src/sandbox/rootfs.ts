import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { runCommand } from "../process/index.js";
import { SYSTEM_PATH } from "./limits.js";

/**
 * Removes a root file system debootstrap was making. A failed debootstrap can leave the host's
 * /proc or /sys mounted inside it, and a recursive removal would walk into them: those are
 * unmounted first, and the tree is left alone if any stays mounted.
 */
export async function removeTree(root: string): Promise<void> {
  const resolved = path.resolve(root);
  for (let attempt = 0; attempt < 3; attempt++) {
    const inside = await mountsUnder(resolved);
    if (inside.length === 0) {
      await rm(resolved, { recursive: true, force: true });
      return;
    }
    // Deepest first.
    for (const mount of inside.sort((a, b) => b.length - a.length))
      await runCommand(["umount", "-l", mount], { env: { PATH: SYSTEM_PATH }, timeoutMs: 30_000 });
  }
}

/** Mount points at or below `root`, from /proc/self/mountinfo. */
async function mountsUnder(root: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const mountPoint = line.split(" ")[4];
    if (mountPoint === undefined) continue;
    const unescaped = mountPoint.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(parseInt(octal, 8)),
    );
    if (unescaped === root || unescaped.startsWith(`${root}/`)) found.push(unescaped);
  }
  return found;
}
