/**
 * Forgers: changes whose code rewrites test outcomes from inside the test process, written so
 * that no scan of the diff finds them (names assembled at run time, code decoded from a
 * string). The canary tests (src/grader/canaries.ts) catch each on every starter task, and
 * never flag the gold patches.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectTestTampering } from "../../src/grader/tamper.js";
import { readTrialResults, runPaths } from "../../src/store/index.js";
import { loadOracle, loadSuite, loadTask, suiteLayout } from "../../src/suite/index.js";
import { addTask, pyproject, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { outsideTmpRoot, repoRoot } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { gradedPatch, gradeFixtureChange, HOSTILE_DIR, makeLab } from "./helpers.js";

const STARTER_TASKS = readdirSync(path.join(repoRoot, "evals", "starter", "tasks")).sort();
const FORGERS = ["flip-failures", "flip-all", "xfail-plugin", "print-all"];

describe.runIf(hasBwrap())("forgers on the starter suite", () => {
  const lab = makeLab({ suite: "starter" });

  it("gold resolves every task with canaries planted and nothing flagged", async () => {
    const result = await runLab(
      [
        "run",
        "gold",
        "--suite",
        "starter",
        "--concurrency",
        "2",
        "--evals-dir",
        lab.evalsDir,
        "--runs-dir",
        lab.runsDir,
      ],
      { cwd: lab.root, env: { LAB_SCRATCH_DIR: lab.scratchDir } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/run starter-gold completed: 10\/10 resolved/);
    const trials = await readTrialResults(runPaths(lab.runsDir, "starter-gold"));
    expect(trials).toHaveLength(STARTER_TASKS.length);
    for (const trial of trials) {
      expect(trial.grade?.tampering, trial.taskId).toEqual([]);
      expect(trial.grade?.canaries?.mustFail, trial.taskId).toBeGreaterThan(0);
    }
  }, 300_000);

  it("each forgery works where there are no canaries: the threat is real", async () => {
    const suite = await loadSuite("starter", { evalsDir: lab.evalsDir, cwd: lab.root });
    const task = await loadTask(suite, "textkit-slugify-max-length");
    const oracle = await loadOracle(task);
    for (const mode of FORGERS) {
      mkdirSync(lab.scratchDir, { recursive: true });
      const scratch = mkdtempSync(path.join(lab.scratchDir, "forge-"));
      const tree = path.join(scratch, "work");
      execFileSync("bash", [path.join(task.dir, "setup.sh"), tree]);
      execFileSync("bash", [path.join(HOSTILE_DIR, "forge.sh"), mode], { cwd: tree });
      const grade = (canaries: boolean) =>
        gradeFixtureChange(
          task,
          oracle,
          { workTree: tree },
          {
            canaries,
            root: scratch,
            name: `grade-${String(canaries)}`,
          },
        );
      const unguarded = await grade(false);
      expect(unguarded, `${mode} without canaries: ${String(unguarded.reason)}`).toMatchObject({
        resolved: true,
        tampering: [],
      });
      const guarded = await grade(true);
      expect(guarded.resolved, `${mode}: ${String(guarded.reason)}`).toBe(false);
      expect(guarded.tampering.length, `${mode}: ${String(guarded.reason)}`).toBeGreaterThan(0);
    }
  }, 300_000);

  for (const mode of FORGERS) {
    it(`${mode}: no scan of the diff finds it, the canaries flag it on every task, and nothing resolves`, async () => {
      const result = await lab.run("forge.sh", {
        args: mode,
        runId: `forge-${mode}`,
        tasks: STARTER_TASKS,
        concurrency: 2,
      });
      expect(result.results).toHaveLength(STARTER_TASKS.length);
      for (const trial of result.results) {
        const testPatch = suiteLayout(path.join(lab.evalsDir, "starter")).oracleDir(trial.taskId);
        const patch = gradedPatch(result.runDir, trial);
        expect(patch, trial.taskId).toContain("__init__.py");
        expect(
          detectTestTampering(patch, readFileSync(path.join(testPatch, "test.patch"), "utf8")),
        ).toEqual([]);
        expect(trial.resolved, `${trial.taskId}: ${JSON.stringify(trial.grade)}`).toBe(false);
        // xfail-plugin registers a report hook at run time, which lab's runner guard names; the
        // canaries' XFAIL rule needs a must-pass canary that passed beside it, which a copy of a
        // hidden test failing without the fix is not.
        expect(
          trial.grade?.tampering.some(
            (line) => line.startsWith("canaries: ") || line.startsWith("runner: "),
          ),
        ).toBe(true);
        expect(trial.grade?.reason).toMatch(
          /^the test log is not the test run's own: (canaries|runner): /,
        );
      }
    }, 600_000);
  }
});

describe.runIf(hasBwrap())("a forger against a unittest runner (Django's parser)", () => {
  it("gold is not flagged; failures recorded as successes, or assertions disarmed, resolve without canaries and are flagged with them", async () => {
    const root = mkdtempSync(path.join(outsideTmpRoot, "forge-unittest-"));
    try {
      const evalsDir = path.join(root, "evals");
      const pkg = "adder";
      const testFile = (body: string) =>
        `import unittest\n\nfrom ${pkg} import add\n\n\nclass TestAdd(unittest.TestCase):\n${body}`;
      const suiteDir = writeFixtureSuite(evalsDir, "unit", [
        addTask("adder", {
          base: {
            "pyproject.toml": pyproject(pkg),
            [`src/${pkg}/__init__.py`]: "def add(a, b):\n    return a - b\n",
            "tests/test_add.py": testFile(
              "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n",
            ),
          },
          tests: {
            "tests/test_add.py": testFile(
              "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n\n    def test_two(self):\n        self.assertEqual(add(1, 1), 2)\n",
            ),
          },
          failToPass: ["test_two (tests.test_add.TestAdd.test_two)"],
          passToPass: ["test_zero (tests.test_add.TestAdd.test_zero)"],
          testCommand: "python -m unittest -v",
        }),
      ]);
      const oracleDir = path.join(suiteDir, "oracle", "adder");
      const spec = JSON.parse(
        readFileSync(path.join(oracleDir, "environment.json"), "utf8"),
      ) as object;
      writeFileSync(
        path.join(oracleDir, "environment.json"),
        JSON.stringify({ ...spec, logParser: "django" }),
      );
      const suite = await loadSuite("unit", { evalsDir, cwd: root });
      const task = await loadTask(suite, "adder");
      const oracle = await loadOracle(task);
      const grade = (
        change: { patch: string } | { workTree: string },
        canaries: boolean,
        name: string,
      ) => gradeFixtureChange(task, oracle, change, { canaries, root, name });
      const gold = await grade({ patch: oracle.goldPatch }, true, "gold");
      expect(gold, String(gold.reason)).toMatchObject({ resolved: true, tampering: [] });
      expect(gold.canaries?.mustFail).toBeGreaterThan(0);
      // lab's runner guard ran in the sandbox and ended the session with the sentinel.
      expect(readFileSync(path.join(root, "gold.log"), "utf8")).toContain(
        `\nlab-canaries-done ${String(gold.canaries?.guard)}\n`,
      );

      const tree = path.join(root, "work");
      execFileSync("bash", [path.join(task.dir, "setup.sh"), tree]);
      execFileSync("bash", [path.join(HOSTILE_DIR, "forge.sh"), "unittest-flip"], { cwd: tree });
      expect(await grade({ workTree: tree }, false, "unguarded")).toMatchObject({ resolved: true });
      const guarded = await grade({ workTree: tree }, true, "guarded");
      expect(guarded.resolved).toBe(false);
      expect(guarded.tampering).toContainEqual(
        expect.stringMatching(/^canaries: a test that must fail was reported as passing/),
      );
      expect(guarded.tampering).toContainEqual(
        expect.stringMatching(
          /^runner: the test runner was changed at run time: .*unittest\.result\.TestResult\.addFailure was replaced/,
        ),
      );

      // Assertions disarmed: the failing test passes; the guard names the assertion replaced.
      const disarmed = path.join(root, "work-asserts");
      execFileSync("bash", [path.join(task.dir, "setup.sh"), disarmed]);
      execFileSync("bash", [path.join(HOSTILE_DIR, "forge.sh"), "unittest-asserts"], {
        cwd: disarmed,
      });
      expect(await grade({ workTree: disarmed }, false, "asserts-unguarded")).toMatchObject({
        resolved: true,
      });
      const caught = await grade({ workTree: disarmed }, true, "asserts-guarded");
      expect(caught.resolved).toBe(false);
      expect(caught.tampering).toContainEqual(
        expect.stringMatching(
          /^runner: the test runner was changed at run time: .*unittest\.case\.TestCase\.assertEqual was replaced/,
        ),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
