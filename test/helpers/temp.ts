import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/** A temporary folder removed after the test file. */
export function tempDir(prefix = "lab-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** The project's root folder. */
export const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/**
 * One environment cache shared by every test file, so an era's environment is built once per
 * machine; building is safe under concurrent test workers by design.
 */
export const sharedCacheDir =
  process.env.LAB_TEST_CACHE_DIR ?? path.join(repoRoot, ".cache", "test-lab");

/**
 * Where tests install agent CLIs (`lab tools install`), shared by every test file and kept
 * between runs like the environment cache.
 */
export const sharedToolsDir =
  process.env.LAB_TEST_TOOLS_DIR ?? path.join(repoRoot, ".cache", "test-tools");

/**
 * A folder outside /tmp for what a test's sandbox must be able to show or hide by its own rules
 * (bwrap and docker put a /tmp of their own over /tmp, which would hide anything there whatever
 * the rules): the checkout's `.cache` when the checkout is not under /tmp, else /var/tmp, else
 * the home's `.cache`. Tests must pass wherever the clone lives (STYLE.md §13).
 */
export const outsideTmpRoot: string = (() => {
  const candidates = [
    path.join(repoRoot, ".cache"),
    "/var/tmp",
    path.join(os.homedir(), ".cache", "lab-tests"),
  ];
  for (const candidate of candidates) {
    const resolved = path.resolve(candidate);
    if (resolved === "/tmp" || resolved.startsWith("/tmp/")) continue;
    try {
      mkdirSync(resolved, { recursive: true });
      accessSync(resolved, constants.W_OK);
      return resolved;
    } catch {
      // Not writable here: the next one.
    }
  }
  throw new Error(`no writable folder outside /tmp among ${candidates.join(", ")}`);
})();
