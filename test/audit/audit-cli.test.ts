/**
 * `lab audit` end to end on a fixture suite: a task whose hidden tests check one branch of a
 * two-branch fix (weak) and one whose tests check both (strong); then `lab run --strong-only`,
 * the report's slice by audit outcome, and `lab review` showing the survivors. Then the same
 * two tasks in JavaScript (node:test), whose mutants lab's JS mutator makes.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readAuditFile } from "../../src/suite/index.js";
import { pyproject, writeFixtureSuite, type FixtureTask } from "../helpers/fixture-suite.js";
import { FIXTURE_NODE, nodeTestProjectFiles } from "../helpers/js-fixture-tasks.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const CLAMP_GOLD = `def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x
`;

function clampTask(id: string, tests: string, failToPass: string[]): FixtureTask {
  return {
    id,
    base: {
      "pyproject.toml": pyproject("clamp"),
      "src/clamp/__init__.py": "def clamp(x, low, high):\n    return x\n",
      "tests/test_clamp.py":
        "from clamp import clamp\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n",
    },
    gold: { "src/clamp/__init__.py": CLAMP_GOLD },
    tests: {
      "tests/test_clamp.py": `from clamp import clamp\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n${tests}`,
    },
    failToPass,
    passToPass: ["tests/test_clamp.py::test_inside"],
  };
}

const root = tempDir();
const evalsDir = path.join(root, "evals");
const suiteDir = writeFixtureSuite(evalsDir, "audited", [
  clampTask("weak", "\n\ndef test_below():\n    assert clamp(-5, 0, 10) == 0\n", [
    "tests/test_clamp.py::test_below",
  ]),
  clampTask(
    "strong",
    "\n\ndef test_below():\n    assert clamp(-5, 0, 10) == 0\n    assert clamp(0, 0, 10) == 0\n\n\ndef test_above():\n    assert clamp(15, 0, 10) == 10\n    assert clamp(10, 0, 10) == 10\n",
    ["tests/test_clamp.py::test_below", "tests/test_clamp.py::test_above"],
  ),
]);
const at = (...args: string[]) => [
  ...args,
  "--evals-dir",
  evalsDir,
  "--runs-dir",
  path.join(root, "runs"),
];

describe("lab audit", () => {
  it("flags the task whose tests let a wrong variant through, and records every variant", async () => {
    const result = await runLab(
      at("audit", "--suite", "audited", "--mutants", "12", "--concurrency", "2"),
      {
        cwd: root,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^1 strong, 1 weak_tests, 0 other, of 2 task\(s\) of audited; audit in /,
    );
    const audit = await readAuditFile(suiteDir);
    const weak = audit?.tasks.weak;
    const strong = audit?.tasks.strong;
    expect(weak?.outcome).toBe("weak_tests");
    expect(strong?.outcome).toBe("strong");
    expect(strong?.score).toBe(1);
    // The weak task's tests never reach the upper bound: what it returns there goes unchecked.
    const survived = weak?.variants.filter((variant) => variant.result === "survived") ?? [];
    expect(survived.map((variant) => variant.description)).toEqual([
      "src/clamp/__init__.py line 5: returns None instead",
    ]);
    expect(weak?.score).toBeLessThan(1);
    expect(weak?.counts.killed).toBeGreaterThan(0);
    // The strong task tests both bounds: the same mutant is killed there.
    expect(
      strong?.variants.find((variant) =>
        variant.description.endsWith("line 5: returns None instead"),
      )?.result,
    ).toBe("killed");

    const again = await runLab(at("audit", "--suite", "audited", "--mutants", "12"), { cwd: root });
    expect(again.stderr).toContain("[1/2] strong: current, strong");
  }, 600_000);

  it("lab run --strong-only runs only the strong task; the report slices by audit outcome; review shows the survivors", async () => {
    const run = await runLab(at("run", "gold", "--suite", "audited", "--strong-only"), {
      cwd: root,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "--strong-only: 1 of 2 task(s) passed the oracle audit (left out: 1 weak_tests)",
    );
    expect(run.stderr).toMatch(/completed: 1\/1 resolved/);
    const all = await runLab(at("run", "noop", "--suite", "audited"), { cwd: root });
    expect(all.code).toBe(0);

    const report = await runLab(at("report", "--suite", "audited"), { cwd: root });
    expect(report.stdout).toContain("#### By oracle audit outcome (lab audit)");
    expect(report.stdout).toMatch(/\| strong +\| +1 \| 100\.0% .*\| 0\.0% /);
    expect(report.stdout).toMatch(/\| weak_tests +\| +1 \| +– \| 0\.0% /);

    const review = await runLab(
      ["review", "--suite", "audited", "--task", "weak", "--show-tests", "--evals-dir", evalsDir],
      { cwd: root },
    );
    expect(review.stdout, review.stderr).toContain("### Oracle audit (lab audit)");
    expect(review.stdout).toContain("#### mutant-");
    expect(review.stdout).toContain("line 5: returns None instead");
    expect(review.stdout).toContain("-        return high\n+        return None");
  }, 300_000);
});

const CLAMP_JS_GOLD = `exports.clamp = (x, low, high) => {
  if (x < low) return low;
  if (x > high) return high;
  return x;
};
`;

function clampJsTask(id: string, tests: string, failToPass: string[]): FixtureTask {
  const loads = 'test("loads", () => assert.strictEqual(typeof clamp, "function"));\n';
  const head =
    'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { clamp } = require("../src/clamp");\n';
  return {
    id,
    base: {
      ...nodeTestProjectFiles(id),
      ".gitignore": "node_modules/\n",
      "src/clamp.js": "exports.clamp = (x, low, high) => x;\n",
      "test/clamp.test.js": `${head}${loads}`,
    },
    gold: { "src/clamp.js": CLAMP_JS_GOLD },
    tests: { "test/clamp.test.js": `${head}${loads}${tests}` },
    failToPass,
    passToPass: ["test/clamp.test.js > loads"],
    environment: { kind: "node", node: FIXTURE_NODE, runner: "node:test" },
  };
}

describe("lab audit of JS tasks", () => {
  const jsEvals = path.join(root, "evals-js");
  const jsSuite = writeFixtureSuite(jsEvals, "audited-js", [
    clampJsTask("weak", 'test("below", () => assert.strictEqual(clamp(-5, 0, 10), 0));\n', [
      "test/clamp.test.js > below",
    ]),
    clampJsTask(
      "strong",
      'test("below", () => { assert.strictEqual(clamp(-5, 0, 10), 0); assert.strictEqual(clamp(0, 0, 10), 0); });\n' +
        'test("above", () => { assert.strictEqual(clamp(15, 0, 10), 10); assert.strictEqual(clamp(10, 0, 10), 10); });\n' +
        'test("inside", () => assert.strictEqual(clamp(5, 0, 10), 5));\n',
      ["test/clamp.test.js > below", "test/clamp.test.js > above", "test/clamp.test.js > inside"],
    ),
  ]);

  it("mutates the gold's JavaScript and flags the task whose tests let a mutant through", async () => {
    const result = await runLab(
      [
        "audit",
        "--suite",
        "audited-js",
        "--mutants",
        "12",
        "--evals-dir",
        jsEvals,
        "--runs-dir",
        path.join(root, "runs-js"),
      ],
      { cwd: root },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^1 strong, 1 weak_tests, 0 other, of 2 task\(s\) of audited-js; audit in /,
    );
    const audit = await readAuditFile(jsSuite);
    const weak = audit?.tasks.weak;
    const strong = audit?.tasks.strong;
    expect(strong?.outcome).toBe("strong");
    expect(strong?.score).toBe(1);
    expect(weak?.outcome).toBe("weak_tests");
    // Only a value below the range is tested: the upper bound's comparison swapped survives,
    // and the same mutant is killed where the upper bound and the inside are tested.
    const upper = "src/clamp.js line 3: `>` -> `<=`";
    const survived = (weak?.variants ?? []).filter((variant) => variant.result === "survived");
    expect(survived.map((variant) => variant.description)).toContain(upper);
    expect(weak?.counts.killed).toBeGreaterThan(0);
    expect(strong?.variants.find((variant) => variant.description === upper)?.result).toBe(
      "killed",
    );
    // Every variant of both is a mutant or a hunk, and was graded or settled.
    for (const variant of [...(weak?.variants ?? []), ...(strong?.variants ?? [])])
      expect(["killed", "survived"]).toContain(variant.result);
  }, 600_000);
});
