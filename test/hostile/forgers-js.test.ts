/**
 * A forger against JavaScript grading (`test/fixtures/hostile/forge-js.sh`): from the project's
 * entry module it makes node's assert accept anything and vitest's chai hold every assertion, so
 * a test that fails by an assertion passes whatever the code does. Graded through a whole run on
 * the starter-js suite (node:test and vitest), it resolves no task: the canaries, copies of the
 * hidden files' own tests that must fail, pass too, and flag the trial. And one that rewrites
 * mocha's results file at exit (lab's reporter runs in the tests' process) is flagged too.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rejudgeGrade } from "../../src/grader/index.js";
import { detectTestTampering } from "../../src/grader/tamper.js";
import { loadOracle, loadSuite, loadTask, suiteLayout } from "../../src/suite/index.js";
import { writeFixtureSuite } from "../helpers/fixture-suite.js";
import {
  jestLockfile,
  jestTask,
  mochaLockfile,
  mochaTask,
  vitestLockfile,
  vitestTask,
} from "../helpers/js-fixture-tasks.js";
import { outsideTmpRoot, repoRoot } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { gradedPatch, gradeFixtureChange, HOSTILE_DIR, makeLab } from "./helpers.js";

const TASKS = readdirSync(path.join(repoRoot, "evals", "starter-js", "tasks")).sort();

describe.runIf(hasBwrap())("a forger that disarms the assertions, on the starter-js suite", () => {
  const lab = makeLab({ suite: "starter-js" });

  it("assert-off: no scan of the diff finds it, and the canaries flag every trial it forged", async () => {
    const result = await lab.run("forge-js.sh", {
      args: "assert-off",
      runId: "forge-js-assert-off",
      tasks: TASKS,
      concurrency: 2,
      timeout: "120s",
    });
    expect(result.results).toHaveLength(TASKS.length);
    for (const trial of result.results) {
      const oracleDir = suiteLayout(path.join(lab.evalsDir, "starter-js")).oracleDir(trial.taskId);
      const patch = gradedPatch(result.runDir, trial);
      expect(patch, trial.taskId).toMatch(/src\/index\.(js|ts)/);
      expect(
        detectTestTampering(patch, readFileSync(path.join(oracleDir, "test.patch"), "utf8")),
      ).toEqual([]);
      const grade = JSON.stringify(trial.grade);
      expect(trial.resolved, `${trial.taskId}: ${grade}`).toBe(false);
    }
    // Where the forgery made every hidden test pass (a task whose failures are all assertions'),
    // only the canaries kept it from resolving: each such trial is flagged by them.
    const forged = result.results.filter(
      (trial) =>
        !Object.values(trial.grade?.failToPass ?? {}).includes(false) &&
        !Object.values(trial.grade?.passToPass ?? {}).includes(false),
    );
    expect(forged.map((trial) => trial.taskId)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^semrange-/)]),
    );
    for (const trial of forged) {
      expect(
        trial.grade?.tampering.some((line) =>
          line.startsWith("canaries: a test that must fail was reported as passing"),
        ),
        `${trial.taskId}: ${JSON.stringify(trial.grade)}`,
      ).toBe(true);
    }
  }, 900_000);
});

describe.runIf(hasBwrap())("a forger that rewrites mocha's results at exit", () => {
  it("resolves the task without canaries, and is flagged with them", async () => {
    const root = mkdtempSync(path.join(outsideTmpRoot, "forge-mocha-"));
    try {
      const evalsDir = path.join(root, "evals");
      writeFixtureSuite(evalsDir, "js", [mochaTask("adder", await mochaLockfile())]);
      const task = await loadTask(await loadSuite("js", { evalsDir, cwd: root }), "adder");
      const oracle = await loadOracle(task);
      const tree = path.join(root, "work");
      execFileSync("bash", [path.join(task.dir, "setup.sh"), tree]);
      execFileSync("bash", [path.join(HOSTILE_DIR, "forge-js.sh"), "results-at-exit"], {
        cwd: tree,
      });
      const grade = (canaries: boolean, name: string) =>
        gradeFixtureChange(task, oracle, { workTree: tree }, { canaries, root, name });
      const unguarded = await grade(false, "unguarded");
      expect(unguarded, String(unguarded.reason)).toMatchObject({ resolved: true });
      const guarded = await grade(true, "guarded");
      expect(guarded.resolved).toBe(false);
      expect(guarded.tampering).toContainEqual(
        expect.stringMatching(/^canaries: a test that must fail was reported as passing/),
      );
      // The verdict can be judged again from the grade's log alone, and stands.
      const again = rejudgeGrade(
        guarded,
        { text: readFileSync(path.join(root, "guarded.log"), "utf8") },
        { parser: "js-results", failToPass: oracle.failToPass, passToPass: oracle.passToPass },
      );
      expect(again).toMatchObject({
        grade: { resolved: false, tampering: guarded.tampering, statuses: guarded.statuses },
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 600_000);
});

describe.runIf(hasBwrap())(
  "forgers that configure the runner (a jest setup file, a jest reporter, a Babel plugin, a vitest plugin)",
  () => {
    const forgers = [
      {
        mode: "jest-setup",
        task: async () => jestTask("adder", await jestLockfile()),
        finding: "jest.config.js: changes jest's configuration",
      },
      {
        mode: "jest-reporter",
        task: async () => jestTask("adder", await jestLockfile()),
        finding: "jest.config.js: changes jest's configuration",
      },
      {
        mode: "babel-plugin",
        task: async () => jestTask("adder", await jestLockfile()),
        finding: "babel.config.js: adds Babel's configuration (jest's transform reads it)",
      },
      {
        mode: "vitest-plugin",
        task: async () => vitestTask("adder", await vitestLockfile()),
        finding: "vitest.config.ts: changes vitest's configuration",
      },
    ];
    for (const { mode, task: fixture, finding } of forgers) {
      it(`${mode}: makes the failing test pass, and is named by the tamper scan and the canaries`, async () => {
        const root = mkdtempSync(path.join(outsideTmpRoot, `forge-${mode}-`));
        try {
          const evalsDir = path.join(root, "evals");
          writeFixtureSuite(evalsDir, "js", [await fixture()]);
          const task = await loadTask(await loadSuite("js", { evalsDir, cwd: root }), "adder");
          const oracle = await loadOracle(task);
          const tree = path.join(root, "work");
          execFileSync("bash", [path.join(task.dir, "setup.sh"), tree]);
          execFileSync("bash", [path.join(HOSTILE_DIR, "forge-js.sh"), mode], { cwd: tree });
          const grade = await gradeFixtureChange(
            task,
            oracle,
            { workTree: tree },
            {
              canaries: true,
              root,
              name: "grade",
            },
          );
          const seen = JSON.stringify(grade);
          // The forgery works: the hidden test that fails without the fix passed.
          expect(Object.values(grade.failToPass), seen).toEqual([true]);
          expect(grade.resolved).toBe(false);
          expect(grade.tampering, seen).toContain(finding);
          expect(grade.tampering, seen).toContainEqual(
            expect.stringMatching(/^canaries: a test that must fail was reported as passing/),
          );
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }, 600_000);
    }
  },
);
