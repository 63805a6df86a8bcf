/**
 * Tests independent of what else is on the machine (issue 18, item 6): a shell that has used lab
 * may export LAB_* settings, and test/helpers/isolate-env.ts keeps them from every test. The
 * second test runs this file again under such a shell and checks the first held there.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp.js";

/**
 * The LAB_* variables a test may see: the tests' own, LAB_UV, and the opt-in real test's switches. Written out here rather than
 * imported: importing isolate-env.ts would clear the environment itself, whether vitest's
 * setupFiles did or not.
 */
const KEPT_LAB_VARIABLE = /^LAB_(TEST_\w+|UV|MIRRORS|REAL_INSTANCES)$/;

/** Set only in the run this file starts of itself. */
const IS_PROBE = process.env.ISOLATION_PROBE === "1";

describe("the tests' environment", () => {
  it("has none of the user's LAB_* settings", () => {
    expect(
      Object.keys(process.env).filter(
        (name) => name.startsWith("LAB_") && !KEPT_LAB_VARIABLE.test(name),
      ),
    ).toEqual([]);
    if (IS_PROBE)
      expect(process.env.LAB_TEST_CACHE_DIR).toBe(path.join(repoRoot, ".cache", "test-lab"));
  });

  it.skipIf(IS_PROBE)(
    "stays so when the shell exports lab's settings (this file, run under them)",
    () => {
      const elsewhere = tempDir();
      const result = spawnSync(
        process.execPath,
        [
          path.join(repoRoot, "node_modules", "vitest", "vitest.mjs"),
          "run",
          "test/structure/env-isolation.test.ts",
        ],
        {
          cwd: repoRoot,
          encoding: "utf8",
          env: {
            ...process.env,
            ISOLATION_PROBE: "1",
            NO_COLOR: "1",
            LAB_RUNS_DIR: path.join(elsewhere, "runs"),
            LAB_EVALS_DIR: path.join(elsewhere, "evals"),
            LAB_CONFIG: path.join(elsewhere, "lab.config.json"),
            LAB_SANDBOX: "none",
            LAB_TRIALS: "9",
            LAB_TEST_CACHE_DIR: path.join(repoRoot, ".cache", "test-lab"),
          },
        },
      );
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/1 passed \| 1 skipped/);
    },
    120_000,
  );
});
