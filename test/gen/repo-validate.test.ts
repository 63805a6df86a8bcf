import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateRepoSuite, type RepoGenOptions, type RepoGenResult } from "../../src/gen/index.js";
import {
  goldExitCodeToCheck,
  judgeRun,
  judgeRuns,
  ownTests,
  type ProofRun,
} from "../../src/gen/repo/validate.js";
import { testEnvironment } from "../helpers/lab.js";
import { pyproject } from "../helpers/fixture-suite.js";
import { PrHistory } from "../helpers/pr-history.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const h = new PrHistory(path.join(root, "calc"));
const CALC = (add: string, mul: string, extra = "") =>
  `def add(a, b):\n    return ${add}\n\n\ndef mul(a, b):\n    return ${mul}\n${extra}`;
const TESTS = (...names: string[]) =>
  [
    "from calc import add, mul",
    "def test_add():\n    assert add(1, 2) == 3",
    ...names.map((name) =>
      name === "mul"
        ? "def test_mul():\n    assert mul(2, 3) == 6"
        : "def test_add_str():\n    assert add('a', 'b') == 'ab'",
    ),
  ].join("\n\n\n") + "\n";

const options = (suite: string, extra: Partial<RepoGenOptions> = {}): RepoGenOptions => ({
  suiteDir: path.join(root, "evals", suite),
  from: h.dir,
  branch: "main",
  python: "3.11",
  proofRuns: 1,
  validate: true,
  concurrency: 1,
  testTimeoutMs: 120_000,
  environment: testEnvironment(),
  labVersion: "test",
  signal: new AbortController().signal,
  ...extra,
});

let result: RepoGenResult;
const reasonOf = (pr: number) => result.dropped.find((drop) => drop.id === `calc-${String(pr)}`);

beforeAll(async () => {
  h.direct("root", "calc", {
    "pyproject.toml": pyproject("calc"),
    "src/calc/__init__.py": CALC("a + b", "a + b"),
    "tests/test_calc.py": TESTS(),
  });
  h.squash("no-fix", 1, "Fix mul", {
    "src/calc/__init__.py": CALC("a + b", "a * b + 1"),
    "tests/test_calc.py": TESTS("mul"),
  });
  h.squash("breaks", 2, "Let add join strings", {
    "src/calc/__init__.py": CALC("f'{a}{b}'", "a * b + 1"),
    "tests/test_calc.py": TESTS("mul", "str"),
  });
  h.squash("settings", 3, "Add sub", {
    "pyproject.toml": `${pyproject("calc")}\n[tool.pytest.ini_options]\nmarkers = ["slow"]\n`,
    "src/calc/__init__.py": CALC(
      "f'{a}{b}'",
      "a * b + 1",
      "\n\ndef sub(a, b):\n    return a - b\n",
    ),
    "tests/test_sub.py": "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
  });
  h.squash("neg", 4, "Add neg", {
    "src/calc/neg.py": "def neg(a):\n    return -a\n",
    "tests/test_neg.py": "from calc.neg import neg\n\n\ndef test_neg():\n    assert neg(2) == -2\n",
  });
  h.squash("helper", 5, "Share a helper", {
    "src/calc/neg.py": "def neg(a):\n    return 0 - a\n",
    "tests/helpers.py": "def two():\n    return 2\n",
  });
  result = await generateRepoSuite(options("calc"), { emit: () => undefined });
}, 600_000);

describe("validation of mined candidates", () => {
  it("keeps a valid change, on the Python --python asks for", () => {
    expect(result.kept.map((task) => task.id)).toEqual(["calc-4"]);
    const info = JSON.parse(
      readFileSync(path.join(root, "evals", "calc", "tasks", "calc-4", "task.json"), "utf8"),
    ) as { metadata: Record<string, unknown> };
    expect(info.metadata).toMatchObject({ python: "3.11", kind: "squash", scope: "small" });
    const environment = JSON.parse(
      readFileSync(
        path.join(root, "evals", "calc", "oracle", "calc-4", "environment.json"),
        "utf8",
      ),
    ) as { python: string; pins: string[] };
    expect(environment.python).toBe("3.11");
    expect(environment.pins.some((pin) => pin.startsWith("pytest=="))).toBe(true);
  });

  it("drops a fix that does not make its tests pass, naming them", () => {
    expect(reasonOf(1)).toMatchObject({
      category: "fails_after_fix",
      reason:
        "tests fail after the fix: tests/test_calc.py::test_mul (FAILED); none goes from failing to passing",
    });
  });

  it("drops a fix that breaks a test that passed before it", () => {
    expect(reasonOf(2)).toMatchObject({
      category: "fails_after_fix",
      reason:
        "tests fail after the fix that passed before it: tests/test_calc.py::test_add (FAILED)",
    });
  });

  it("drops a fix that changes pytest's settings, which the grader would flag", () => {
    expect(reasonOf(3)).toMatchObject({
      category: "gold_rejected",
      reason: "the gold patch changes how the tests run: pyproject.toml: changes pytest's settings",
    });
  });

  it("drops a change whose test files hold no tests", () => {
    expect(reasonOf(5)?.category).toBe("no_tests_ran");
    expect(reasonOf(5)?.reason).toMatch(/^no test ran with the fix/);
  });

  it("stops validating once --sample tasks are kept, waiting on changes in flight before giving up a place", async () => {
    const sampled = await generateRepoSuite(options("sampled", { sample: 1, concurrency: 2 }), {
      emit: () => undefined,
    });
    expect(sampled.kept.map((task) => task.id)).toEqual(["calc-4"]);
    expect(sampled.dropped.map(({ id, category }) => `${id} ${category}`)).toEqual([
      "calc-5 no_tests_ran",
      "calc-3 not_sampled",
      "calc-2 not_sampled",
      "calc-1 not_sampled",
    ]);
    expect(sampled.dropped[1]?.reason).toBe("the sample of 1 was full");
  });
});

describe("the gold run's exit status in a proof", () => {
  it("is weighed as the grader weighs it: unread only when a must-fail canary, which fails, was planted", () => {
    const counts = (mustFail: number) => ({
      mustFail,
      mustPass: 1,
      files: 1,
      planted: [],
      sentinel: "s",
      guard: null,
    });
    expect(goldExitCodeToCheck({ canaries: counts(2), testExitCode: 1 })).toBeNull();
    // A hidden file without a test to copy: no canary explains the status (vuejs/core repo-11959).
    expect(goldExitCodeToCheck({ canaries: counts(0), testExitCode: 1 })).toBe(1);
    expect(goldExitCodeToCheck({ canaries: undefined, testExitCode: 1 })).toBe(1);
  });
});

describe("judging proof runs", () => {
  const run = (gold: ProofRun["gold"], before: ProofRun["before"]): ProofRun => ({
    gold,
    before,
    goldTimedOut: false,
    beforeTimedOut: false,
    environmentKey: null,
    durationMs: 0,
  });

  it("derives FAIL_TO_PASS and PASS_TO_PASS, leaving out tests failing both times", () => {
    expect(
      judgeRun(
        run(
          { a: "PASSED", b: "PASSED", c: "FAILED", d: "SKIPPED" },
          { a: "FAILED", b: "PASSED", c: "FAILED", d: "SKIPPED" },
        ),
      ),
    ).toEqual({
      kept: true,
      failToPass: ["a"],
      passToPass: ["b"],
      failing: ["c"],
    });
    expect(judgeRun(run({ a: "PASSED" }, {}))).toMatchObject({ kept: true, failToPass: ["a"] });
  });

  it("keeps only results of tests in the files that ran, not log records that look like them", () => {
    expect(
      ownTests(
        {
          "tests/test_a.py::test_x": "PASSED",
          "tests/test_a.py": "ERROR",
          "flask_test:app.py:961": "ERROR",
          "test_foo.py::test": "FAILED",
          "tests/test_ab.py::test_y": "PASSED",
        },
        ["tests/test_a.py"],
      ),
    ).toEqual({ "tests/test_a.py::test_x": "PASSED", "tests/test_a.py": "ERROR" });
  });

  it("drops timeouts, empty runs and flips between runs", () => {
    expect(judgeRun({ ...run({}, {}), beforeTimedOut: true })).toMatchObject({
      category: "timeout",
      reason: "the tests timed out before the fix",
    });
    expect(judgeRun(run({}, { x: "ERROR" }))).toMatchObject({ category: "no_tests_ran" });
    expect(
      judgeRuns([
        run({ a: "PASSED", b: "PASSED" }, { a: "FAILED", b: "PASSED" }),
        run({ a: "PASSED", b: "PASSED" }, { a: "FAILED", b: "FAILED" }),
      ]),
    ).toEqual({
      kept: false,
      category: "flaky",
      reason: "flaky: b (before the fix: PASSED, then FAILED) changed between run 1 and run 2",
    });
  });
});
