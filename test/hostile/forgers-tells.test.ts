/**
 * Forgers written against lab's source (`test/fixtures/hostile/forge-tells.sh`): each makes
 * failing tests pass only where it believes the test is real, telling canaries apart by one
 * property (what they reference, their size, their names, their place, their sentinel), or rewires pytest's
 * reporting path. Graded through a whole run on the starter suite, none resolves a task
 * unflagged: the canaries look like the module's tests, and lab's runner guard names a rewiring.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectTestTampering } from "../../src/grader/tamper.js";
import { suiteLayout } from "../../src/suite/index.js";
import { repoRoot } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { gradedPatch, makeLab } from "./helpers.js";

const STARTER_TASKS = readdirSync(path.join(repoRoot, "evals", "starter", "tasks")).sort();
/** Forgers that tell canaries apart by one property; only the canaries can catch them. */
const TELLS = ["refs", "size", "names", "last-alone", "only-last", "sentinel"];
/** Forgers that rewire pytest's reporting path; lab's runner guard names what they changed. */
const REWIRINGS = ["wrap-call-and-report", "logreport-hook", "terminal-reporter"];

describe.runIf(hasBwrap())("forgers that tell canaries apart, on the starter suite", () => {
  const lab = makeLab({ suite: "starter" });

  for (const mode of [...TELLS, ...REWIRINGS]) {
    it(`${mode}: no scan of the diff finds it, and it resolves no task unflagged`, async () => {
      const result = await lab.run("forge-tells.sh", {
        args: mode,
        runId: `tells-${mode}`,
        tasks: STARTER_TASKS,
        concurrency: 2,
      });
      expect(result.results).toHaveLength(STARTER_TASKS.length);
      for (const trial of result.results) {
        const oracleDir = suiteLayout(path.join(lab.evalsDir, "starter")).oracleDir(trial.taskId);
        const patch = gradedPatch(result.runDir, trial);
        expect(patch, trial.taskId).toContain("__init__.py");
        expect(
          detectTestTampering(patch, readFileSync(path.join(oracleDir, "test.patch"), "utf8")),
        ).toEqual([]);
        expect(trial.resolved, `${trial.taskId}: ${JSON.stringify(trial.grade)}`).toBe(false);
      }
      // The forger works (it is not merely broken): what it did was seen.
      const flagged = result.results.filter((trial) =>
        (trial.grade?.tampering ?? []).some((line) =>
          line.startsWith(
            TELLS.includes(mode)
              ? "canaries: "
              : "runner: the test runner was changed at run time: ",
          ),
        ),
      );
      expect(flagged.length).toBeGreaterThan(0);
    }, 600_000);
  }
});
