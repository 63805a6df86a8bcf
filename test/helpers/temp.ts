import { mkdtempSync, rmSync } from "node:fs";
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
