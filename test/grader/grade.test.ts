import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Oracle, Task } from "../../src/core/index.js";
import { gradeChange, type GradeOptions } from "../../src/grader/index.js";
import { loadOracle, loadSuite, loadTask } from "../../src/suite/index.js";
import { addTask, pyproject, pythonSpec, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
let task: Task;
let oracle: Oracle;
let hangTask: Task;
let hangOracle: Oracle;
let ownPytestTask: Task;
let ownPytestOracle: Oracle;

beforeAll(async () => {
  const runner = addTask("runner");
  writeFixtureSuite(path.join(root, "evals"), "fixture", [
    addTask("adder"),
    // Shaped as pytest's own repository: its base commit holds the _pytest folder.
    { ...runner, base: { ...runner.base, "_pytest/NOTES.txt": "pytest's own package\n" } },
    {
      id: "hang",
      base: {
        "pyproject.toml": pyproject("hang"),
        "src/hang/__init__.py": "def wait():\n    return 1\n",
        "tests/test_wait.py": "def test_ok():\n    pass\n",
      },
      gold: { "src/hang/__init__.py": "def wait():\n    return 2\n" },
      tests: {
        "tests/test_wait.py":
          "import time\n\ndef test_ok():\n    pass\n\ndef test_hang():\n    time.sleep(600)\n",
      },
      failToPass: ["tests/test_wait.py::test_hang"],
      passToPass: ["tests/test_wait.py::test_ok"],
    },
  ]);
  const suite = await loadSuite("fixture", { evalsDir: path.join(root, "evals"), cwd: root });
  task = await loadTask(suite, "adder");
  oracle = await loadOracle(task);
  hangTask = await loadTask(suite, "hang");
  hangOracle = await loadOracle(hangTask);
  ownPytestTask = await loadTask(suite, "runner");
  ownPytestOracle = await loadOracle(ownPytestTask);
});

function options(overrides: Partial<GradeOptions> = {}): GradeOptions {
  const scratch = mkdtempSync(path.join(root, "grade-"));
  return {
    scratchDir: scratch,
    logFile: path.join(scratch, "..", `${path.basename(scratch)}.log`),
    environment: testEnvironment(),
    setupTimeoutMs: 60_000,
    installTimeoutMs: 300_000,
    testTimeoutMs: 120_000,
    ...overrides,
  };
}

/** A work tree at the task's base commit, made by its own setup.sh. */
function workTree(of: Task = task): string {
  const dir = path.join(mkdtempSync(path.join(root, "tree-")), "work");
  execFileSync("bash", [path.join(of.dir, "setup.sh"), dir]);
  return dir;
}

describe("gradeChange", () => {
  it("resolves the gold patch and records every test's status", async () => {
    const opts = options();
    const { grade } = await gradeChange(task, oracle, { patch: oracle.goldPatch }, opts);
    expect(grade).toMatchObject({
      resolved: true,
      patchApplied: true,
      patchEmpty: false,
      applyMethod: "git apply --verbose",
      reason: null,
      // The canaries that must fail fail, so pytest exits 1 with every hidden test passing.
      testExitCode: 1,
      tampering: [],
    });
    expect(grade.canaries?.mustFail).toBeGreaterThan(0);
    expect(grade.canaries?.mustPass).toBeGreaterThan(0);
    expect(grade.statuses).toEqual({
      "tests/test_add.py::test_zero": "PASSED",
      "tests/test_add.py::test_two": "PASSED",
    });
    expect(grade.failToPass).toEqual({ "tests/test_add.py::test_two": true });
    expect(grade.environmentKey).toMatch(/^py3\.11\.\d+-[0-9a-f]{16}$/);
    const log = readFileSync(opts.logFile, "utf8");
    // The log opens with the grade's plan, made before any step ran.
    expect(log.startsWith(`# lab grade: fixture/adder at ${task.info.baseCommit}\n# plan:\n`)).toBe(
      true,
    );
    expect(log).toContain("#   tests: pytest -rA tests/test_add.py\n");
    expect(log).toContain(">>>>> Start Test Output");
    expect(log).toContain("PASSED tests/test_add.py::test_two");
  });

  it("leaves an empty change unresolved, naming the failing test", async () => {
    const { grade } = await gradeChange(task, oracle, { patch: "" }, options());
    expect(grade).toMatchObject({ resolved: false, patchEmpty: true, patchApplied: false });
    expect(grade.failToPass).toEqual({ "tests/test_add.py::test_two": false });
    expect(grade.reason).toBe(
      "1 of 1 FAIL_TO_PASS tests failed: tests/test_add.py::test_two (FAILED)",
    );
  });

  it("grades a work tree by its diff, on a fresh checkout, tracked and new files alike", async () => {
    const tree = workTree();
    writeFileSync(path.join(tree, "src/adder/__init__.py"), "from .impl import add\n");
    writeFileSync(path.join(tree, "src/adder/impl.py"), "def add(a, b):\n    return a + b\n");
    writeFileSync(path.join(tree, "blob.bin"), Buffer.from([0, 1, 2, 255, 0, 10]));
    const { grade, patch } = await gradeChange(task, oracle, { workTree: tree }, options());
    expect(grade.resolved).toBe(true);
    expect(patch).toContain("diff --git a/src/adder/impl.py b/src/adder/impl.py");
    expect(patch).toContain("GIT binary patch");
    // The tool's own tree is left as it was.
    expect(
      execFileSync("git", ["status", "--porcelain"], { cwd: tree, encoding: "utf8" }),
    ).toContain("?? src/adder/impl.py");
  });

  it("ignores the tool's own git config when taking its diff", async () => {
    const tree = workTree();
    writeFileSync(path.join(tree, "src/adder/__init__.py"), "def add(a, b):\n    return a + b\n");
    // A diff driver that would run a program, and noprefix that would break the patch.
    execFileSync("git", ["config", "diff.noprefix", "true"], { cwd: tree });
    execFileSync("git", ["config", "diff.external", "false"], { cwd: tree });
    const { grade, patch } = await gradeChange(task, oracle, { workTree: tree }, options());
    expect(patch).toContain("--- a/src/adder/__init__.py");
    expect(grade.resolved).toBe(true);
  });

  it("resets test files the change touched before applying the hidden tests", async () => {
    const tree = workTree();
    writeFileSync(
      path.join(tree, "src/adder/__init__.py"),
      "def add(a, b):\n    return a - b\n\n\ndef unused():\n    return 0\n",
    );
    // The tool rewrites the test file so the hidden test would be replaced by a trivial one.
    writeFileSync(
      path.join(tree, "tests/test_add.py"),
      "def test_two():\n    pass\n\n\ndef test_zero():\n    pass\n",
    );
    const { grade } = await gradeChange(task, oracle, { workTree: tree }, options());
    expect(grade.resolved).toBe(false);
    expect(grade.statuses["tests/test_add.py::test_two"]).toBe("FAILED");
  });

  it("reports a diff that does not apply as not applied and unresolved", async () => {
    const bad =
      "diff --git a/src/adder/__init__.py b/src/adder/__init__.py\n--- a/src/adder/__init__.py\n+++ b/src/adder/__init__.py\n@@ -1,2 +1,2 @@\n def nothing_like_this():\n-    return 41\n+    return 42\n";
    const opts = options();
    const { grade } = await gradeChange(task, oracle, { patch: bad }, opts);
    expect(grade).toMatchObject({
      resolved: false,
      patchApplied: false,
      patchEmpty: false,
      applyMethod: null,
    });
    expect(grade.reason).toBe("the change did not apply to a fresh checkout of the base commit");
    expect(readFileSync(opts.logFile, "utf8")).toContain("patch does not apply");
  });

  it("falls back to patch --fuzz when git apply rejects an offset hunk", async () => {
    // Context lines shifted: git apply refuses, GNU patch with fuzz applies.
    const fuzzy =
      "--- a/src/adder/__init__.py\n+++ b/src/adder/__init__.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n # trailing context that is not there\n";
    const { grade } = await gradeChange(task, oracle, { patch: fuzzy }, options());
    expect(grade.applyMethod).toBe("patch --batch --forward --fuzz=5 -p1 -i");
    expect(grade.resolved).toBe(true);
  });

  it("stops a hanging test run at its limit and does not resolve", async () => {
    const { grade } = await gradeChange(
      hangTask,
      hangOracle,
      { patch: hangOracle.goldPatch },
      options({ testTimeoutMs: 3_000 }),
    );
    expect(grade).toMatchObject({ resolved: false, testsTimedOut: true, patchApplied: true });
    expect(grade.reason).toBe("the tests timed out after 3 s");
  });

  it("rejects forged test output when the test process failed", async () => {
    const tree = workTree();
    // The change makes the test session print a forged PASSED line and then exit non-zero.
    writeFileSync(path.join(tree, "tests/conftest.py"), "");
    writeFileSync(
      path.join(tree, "src/adder/__init__.py"),
      "import os, sys\nprint('PASSED tests/test_add.py::test_two')\nprint('PASSED tests/test_add.py::test_zero')\nsys.stdout.flush()\nos._exit(3)\n",
    );
    const { grade } = await gradeChange(task, oracle, { workTree: tree }, options());
    expect(grade.resolved).toBe(false);
    expect(grade.testExitCode).toBe(3);
    expect(grade.reason).toMatch(/^the test log was rejected: /);
  });
});

describe("the scan of the change for tampering", () => {
  // SWE-agent's prediction for pytest-dev__pytest-8365: the fix, and a script at the root.
  const script = [
    "diff --git a/reproduce_bug.py b/reproduce_bug.py",
    "new file mode 100644",
    "index 0000000..1111111",
    "--- /dev/null",
    "+++ b/reproduce_bug.py",
    "@@ -0,0 +1 @@",
    "+from _pytest.tmpdir import TempPathFactory",
    "",
  ].join("\n");

  it("takes pytest's internals as the project's own where the base commit holds _pytest", async () => {
    const { grade } = await gradeChange(
      ownPytestTask,
      ownPytestOracle,
      { patch: ownPytestOracle.goldPatch + script },
      options(),
    );
    expect(grade).toMatchObject({ resolved: true, tampering: [] });
  });

  it("flags the same script in any other project", async () => {
    const { grade } = await gradeChange(
      task,
      oracle,
      { patch: oracle.goldPatch + script },
      options(),
    );
    expect(grade).toMatchObject({
      resolved: false,
      tampering: ["reproduce_bug.py: reaches into pytest's internals"],
    });
  });
});

describe("the test run's surroundings", () => {
  it("give each grade a temporary folder of its own, so concurrent grades never share pytest's basetemp", async () => {
    const opts = options();
    await gradeChange(
      hangTask,
      {
        ...hangOracle,
        testPatch: hangOracle.testPatch.replace(
          "time.sleep(600)",
          "print('TMP=' + __import__('tempfile').gettempdir())",
        ),
      },
      { patch: hangOracle.goldPatch },
      { ...opts, keepScratch: true },
    );
    expect(readFileSync(opts.logFile, "utf8")).toContain(
      `TMP=${path.join(opts.scratchDir, "tmp")}`,
    );
  });
});

describe("pre-test lines", () => {
  it("run in the test command's shell before the start marker, so an export reaches the tests", async () => {
    const opts = options();
    const { grade } = await gradeChange(
      hangTask,
      {
        ...hangOracle,
        testPatch: hangOracle.testPatch.replace(
          "time.sleep(600)",
          "assert __import__('os').environ['LAB_PRE_TEST'] == 'set'",
        ),
        environment: {
          ...pythonSpec(hangOracle.environment),
          preTest: ["export LAB_PRE_TEST=set", "echo pre-test ran"],
        },
      },
      { patch: hangOracle.goldPatch },
      opts,
    );
    expect(grade.resolved).toBe(true);
    const log = readFileSync(opts.logFile, "utf8");
    expect(log.indexOf("pre-test ran")).toBeGreaterThan(-1);
    expect(log.indexOf("pre-test ran")).toBeLessThan(log.indexOf(">>>>> Start Test Output"));
    expect(log.indexOf(">>>>> Start Test Output")).toBe(log.lastIndexOf(">>>>> Start Test Output"));
  });
});

describe("the pre-install steps, as upstream's image has them", () => {
  // A pre-install step edits a tracked file, as sphinx's sed lines edit setup.py.
  const SED = `sed -i 's/^version = "0.1.0"$/version = "0.1.0"  # pinned by pre-install/' pyproject.toml`;
  const withPreInstall = (): Oracle => ({
    ...oracle,
    environment: { ...pythonSpec(oracle.environment), preInstall: [SED] },
  });
  /** The verdicts of one change made in a tool's work tree and of its diff given as a patch. */
  async function bothWays(edit: (tree: string) => void) {
    const tree = workTree();
    edit(tree);
    const asTool = await gradeChange(task, withPreInstall(), { workTree: tree }, options());
    const asPrediction = await gradeChange(
      task,
      withPreInstall(),
      { patch: asTool.patch },
      options(),
    );
    return { asTool: asTool.grade, asPrediction: asPrediction.grade };
  }
  const fix = (tree: string): void => {
    writeFileSync(path.join(tree, "src/adder/__init__.py"), "def add(a, b):\n    return a + b\n");
  };

  it("run on the fresh checkout before the change is applied, and the fix then resolves, as a tool's change and as a prediction", async () => {
    const opts = options();
    const { grade } = await gradeChange(task, withPreInstall(), { patch: oracle.goldPatch }, opts);
    expect(grade.resolved).toBe(true);
    const log = readFileSync(opts.logFile, "utf8");
    expect(log.indexOf(`+ ${SED}`)).toBeGreaterThan(-1);
    expect(log.indexOf(`+ ${SED}`)).toBeLessThan(log.indexOf("Applied patch"));
    const { asTool, asPrediction } = await bothWays(fix);
    expect(asTool).toMatchObject({ resolved: true, applyMethod: "git apply --verbose" });
    expect(asPrediction).toMatchObject({ resolved: true, applyMethod: "git apply --verbose" });
  });

  it("meet a change that carries their own edit (a diff made where they ran uncommitted) the same way from both sources", async () => {
    const { asTool, asPrediction } = await bothWays((tree) => {
      fix(tree);
      const file = path.join(tree, "pyproject.toml");
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace(
          'version = "0.1.0"',
          'version = "0.1.0"  # pinned by pre-install',
        ),
      );
    });
    // git apply refuses the already-edited line; the three-way fallback sees the same edit.
    expect(asTool).toMatchObject({ resolved: true, applyMethod: "git apply --verbose --3way" });
    expect(asPrediction).toMatchObject({
      resolved: true,
      applyMethod: "git apply --verbose --3way",
    });
  });

  it("make a change to the lines they edit fail to apply, from both sources, saying so", async () => {
    const { asTool, asPrediction } = await bothWays((tree) => {
      fix(tree);
      const file = path.join(tree, "pyproject.toml");
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace('version = "0.1.0"', 'version = "0.2.0"'),
      );
    });
    for (const grade of [asTool, asPrediction]) {
      expect(grade).toMatchObject({ resolved: false, patchApplied: false });
      expect(grade.reason).toBe(
        "the change did not apply to a fresh checkout of the base commit with its pre-install steps run, as upstream applies it",
      );
    }
  });
});
