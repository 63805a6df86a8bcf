import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TestStatus } from "../../src/core/index.js";
import { checkSuspiciousOutput, evaluateTests } from "../../src/grader/evaluate.js";
import { parseTestLog, TEST_OUTPUT_END, TEST_OUTPUT_START } from "../../src/grader/parse-log.js";

const PLAIN_LOG = readFileSync(new URL("../fixtures/logs/pytest8-ra.log", import.meta.url), "utf8");
const COLOR_LOG = readFileSync(
  new URL("../fixtures/logs/pytest8-verbose-color.log", import.meta.url),
  "utf8",
);
const T = "tests/test_sample.py::";

/** Wraps lines in the output markers, as the eval script prints them. */
function framed(...lines: string[]): string {
  return [`+ : '${TEST_OUTPUT_START}'`, ...lines, `+ : '${TEST_OUTPUT_END}'`].join("\n");
}

/** Grades one FAIL_TO_PASS id and one PASS_TO_PASS id against a status map. */
function gradeOne(
  statuses: Record<string, TestStatus>,
  failToPass: string[],
  passToPass: string[],
) {
  return evaluateTests({ statuses, failToPass, passToPass });
}

describe("evaluateTests", () => {
  it.each<[TestStatus | "missing", boolean]>([
    ["PASSED", true],
    ["XFAIL", true],
    ["FAILED", false],
    ["ERROR", false],
    ["SKIPPED", false],
    ["missing", false],
  ])("counts a FAIL_TO_PASS test that is %s as succeeded: %s", (status, succeeded) => {
    const statuses: Record<string, TestStatus> = status === "missing" ? {} : { "t.py::a": status };
    const verdicts = gradeOne(statuses, ["t.py::a"], []);
    expect(verdicts.failToPass).toStrictEqual({ "t.py::a": succeeded });
    expect(verdicts.resolved).toBe(succeeded);
  });

  it.each<[TestStatus | "missing", boolean]>([
    ["PASSED", true],
    ["XFAIL", true],
    ["SKIPPED", true],
    ["FAILED", false],
    ["ERROR", false],
    ["missing", false],
  ])("counts a PASS_TO_PASS test that is %s as succeeded: %s", (status, succeeded) => {
    const statuses: Record<string, TestStatus> = status === "missing" ? {} : { "t.py::a": status };
    const verdicts = gradeOne(statuses, [], ["t.py::a"]);
    expect(verdicts.passToPass).toStrictEqual({ "t.py::a": succeeded });
    expect(verdicts.resolved).toBe(succeeded);
  });

  it("resolves FULL with no reason when every test succeeds", () => {
    const verdicts = gradeOne({ a: "PASSED", b: "XFAIL", c: "SKIPPED" }, ["a", "b"], ["c"]);
    expect(verdicts).toStrictEqual({
      failToPass: { a: true, b: true },
      passToPass: { c: true },
      resolved: true,
      resolution: "FULL",
      reason: null,
    });
  });

  it("treats empty lists as fully successful", () => {
    expect(gradeOne({}, [], []).resolution).toBe("FULL");
    expect(gradeOne({ a: "PASSED" }, ["a"], []).resolution).toBe("FULL");
    expect(gradeOne({ p: "PASSED" }, [], ["p"]).resolution).toBe("FULL");
  });

  it("is NO when PASS_TO_PASS fails even though FAIL_TO_PASS is empty", () => {
    const verdicts = gradeOne({ p: "FAILED" }, [], ["p"]);
    expect(verdicts.resolution).toBe("NO");
    expect(verdicts.resolved).toBe(false);
  });

  it("is PARTIAL when some but not all FAIL_TO_PASS tests succeed and PASS_TO_PASS holds", () => {
    const verdicts = gradeOne({ a: "PASSED", b: "FAILED", p: "PASSED" }, ["a", "b"], ["p"]);
    expect(verdicts.resolution).toBe("PARTIAL");
    expect(verdicts.resolved).toBe(false);
    expect(verdicts.reason).toBe("1 of 2 FAIL_TO_PASS tests failed: b (FAILED)");
  });

  it("is NO rather than PARTIAL when a PASS_TO_PASS test also fails", () => {
    const verdicts = gradeOne({ a: "PASSED", b: "FAILED", p: "ERROR" }, ["a", "b"], ["p"]);
    expect(verdicts.resolution).toBe("NO");
    expect(verdicts.reason).toBe(
      "1 of 2 FAIL_TO_PASS tests failed: b (FAILED); 1 of 1 PASS_TO_PASS tests failed: p (ERROR)",
    );
  });

  it("is NO when no FAIL_TO_PASS test succeeds", () => {
    expect(gradeOne({ a: "SKIPPED", b: "SKIPPED", p: "PASSED" }, ["a", "b"], ["p"])).toStrictEqual({
      failToPass: { a: false, b: false },
      passToPass: { p: true },
      resolved: false,
      resolution: "NO",
      reason: "2 of 2 FAIL_TO_PASS tests failed: a (SKIPPED), b (SKIPPED)",
    });
  });

  it("is NO when FAIL_TO_PASS all succeed but a PASS_TO_PASS test is missing", () => {
    const verdicts = gradeOne({ a: "PASSED" }, ["a"], ["p"]);
    expect(verdicts.resolution).toBe("NO");
    expect(verdicts.reason).toBe("1 of 1 PASS_TO_PASS tests failed: p (missing)");
  });

  it("names the first failing tests and their statuses in the reason", () => {
    const verdicts = gradeOne(
      { "tests/test_a.py::test_w": "PASSED", "tests/test_a.py::test_x": "FAILED" },
      ["tests/test_a.py::test_w", "tests/test_a.py::test_x", "tests/test_a.py::test_y"],
      [],
    );
    expect(verdicts.reason).toBe(
      "2 of 3 FAIL_TO_PASS tests failed: tests/test_a.py::test_x (FAILED), tests/test_a.py::test_y (missing)",
    );
  });

  it("names at most three failing tests and counts the rest", () => {
    const verdicts = gradeOne({}, [], ["p1", "p2", "p3", "p4", "p5"]);
    expect(verdicts.reason).toBe(
      "5 of 5 PASS_TO_PASS tests failed: p1 (missing), p2 (missing), p3 (missing) and 2 more",
    );
  });

  it("counts a duplicated id twice in the ratio, as upstream's lists do", () => {
    const verdicts = gradeOne({ a: "PASSED", b: "FAILED" }, ["a", "a", "b"], []);
    expect(verdicts.failToPass).toStrictEqual({ a: true, b: false });
    expect(verdicts.reason).toBe("1 of 3 FAIL_TO_PASS tests failed: b (FAILED)");
  });

  it("matches a balanced id exactly and never by prefix", () => {
    const verdicts = gradeOne({ "t.py::x[a-1-extended]": "PASSED" }, ["t.py::x[a-1]"], []);
    expect(verdicts.failToPass).toStrictEqual({ "t.py::x[a-1]": false });
  });

  it("does not treat a surplus ']' as a truncation", () => {
    const verdicts = gradeOne(
      { "handles foo] gracefully and more": "PASSED" },
      ["handles foo]"],
      [],
    );
    expect(verdicts.failToPass).toStrictEqual({ "handles foo]": false });
  });

  it("prefers an exact match over prefix candidates for a truncated id", () => {
    const statuses: Record<string, TestStatus> = {
      "t.py::x[a": "PASSED",
      "t.py::x[a b]": "FAILED",
    };
    expect(gradeOne(statuses, ["t.py::x[a"], []).resolved).toBe(true);
  });

  it("accepts a truncated id whose prefix matches all pass, counting XFAIL as a pass", () => {
    const statuses: Record<string, TestStatus> = {
      "t.py::x[log(photon / m**2 s)]": "PASSED",
      "t.py::x[log(photon / s)]": "XFAIL",
      "t.py::other[log(photon]": "FAILED",
    };
    const verdicts = gradeOne(statuses, ["t.py::x[log(photon"], []);
    expect(verdicts.failToPass).toStrictEqual({ "t.py::x[log(photon": true });
  });

  it("rejects a truncated id whose prefix matches disagree on pass versus fail", () => {
    const statuses: Record<string, TestStatus> = {
      "t.py::x[args1-None]": "PASSED",
      "t.py::x[args1-No-value]": "FAILED",
    };
    const verdicts = gradeOne(statuses, ["t.py::x[args1-No"], []);
    expect(verdicts.failToPass).toStrictEqual({ "t.py::x[args1-No": false });
    expect(verdicts.reason).toBe(
      "1 of 1 FAIL_TO_PASS tests failed: t.py::x[args1-No (prefix matches disagree)",
    );
  });

  it("counts a truncated id with no prefix match as missing", () => {
    const verdicts = gradeOne({ "t.py::y[other]": "PASSED" }, ["t.py::x[log(photon"], []);
    expect(verdicts.reason).toBe("1 of 1 FAIL_TO_PASS tests failed: t.py::x[log(photon (missing)");
  });

  it("grades agreeing non-passing candidates by the first one, as upstream does", () => {
    // SKIPPED and FAILED agree (neither passes), and then the first candidate's status decides.
    const skippedFirst = gradeOne(
      { "t.py::x[a b]": "SKIPPED", "t.py::x[a c]": "FAILED" },
      [],
      ["t.py::x[a"],
    );
    const failedFirst = gradeOne(
      { "t.py::x[a c]": "FAILED", "t.py::x[a b]": "SKIPPED" },
      [],
      ["t.py::x[a"],
    );
    expect(skippedFirst.passToPass).toStrictEqual({ "t.py::x[a": true });
    expect(failedFirst.passToPass).toStrictEqual({ "t.py::x[a": false });
  });

  it("rejects a truncated PASS_TO_PASS id whose candidates are PASSED and SKIPPED", () => {
    const verdicts = gradeOne(
      { "t.py::x[a b]": "PASSED", "t.py::x[a c]": "SKIPPED" },
      [],
      ["t.py::x[a"],
    );
    expect(verdicts.passToPass).toStrictEqual({ "t.py::x[a": false });
  });

  it("grades a real pytest 8 log against dataset-style ids cut at the first space", () => {
    const statuses = parseTestLog(PLAIN_LOG, "pytest");
    const verdicts = evaluateTests({
      statuses,
      failToPass: [`${T}test_pass`, `${T}test_xfail`, `${T}test_param[a`, `${T}test_xpass`],
      passToPass: [`${T}test_skip`, `${T}TestGroup::test_method`, `${T}test_text[x`],
    });
    expect(verdicts).toStrictEqual({
      failToPass: {
        [`${T}test_pass`]: true,
        [`${T}test_xfail`]: true,
        [`${T}test_param[a`]: true,
        [`${T}test_xpass`]: false,
      },
      passToPass: {
        [`${T}test_skip`]: false,
        [`${T}TestGroup::test_method`]: true,
        [`${T}test_text[x`]: false,
      },
      resolved: false,
      resolution: "NO",
      reason:
        `1 of 4 FAIL_TO_PASS tests failed: ${T}test_xpass (missing); ` +
        `2 of 3 PASS_TO_PASS tests failed: ${T}test_skip (missing), ${T}test_text[x (FAILED)`,
    });
  });

  it("keeps an id named __proto__ as an ordinary key", () => {
    const verdicts = gradeOne({ ["__proto__"]: "PASSED" }, ["__proto__"], []);
    expect(verdicts.resolved).toBe(true);
    const statuses = parseTestLog(framed("PASSED __proto__", "PASSED toString"), "pytest");
    const graded = evaluateTests({
      statuses,
      failToPass: ["__proto__", "constructor"],
      passToPass: [],
    });
    expect(Object.entries(graded.failToPass)).toEqual([
      ["__proto__", true],
      ["constructor", false],
    ]);
  });
});

describe("checkSuspiciousOutput", () => {
  it("accepts a framed log whose non-zero exit is backed by a FAILED test", () => {
    const log = framed("PASSED t.py::a", "FAILED t.py::b - boom");
    const statuses = parseTestLog(log, "pytest");
    expect(checkSuspiciousOutput({ statuses, testExitCode: 1, log })).toBeNull();
  });

  it("accepts a non-zero exit backed by an ERROR test", () => {
    const log = framed("ERROR t.py::a - RuntimeError");
    const statuses = parseTestLog(log, "pytest");
    expect(checkSuspiciousOutput({ statuses, testExitCode: 2, log })).toBeNull();
  });

  it("accepts an all-pass log with exit code 0 or with no recorded exit code", () => {
    const log = framed("PASSED t.py::a");
    const statuses = parseTestLog(log, "pytest");
    expect(checkSuspiciousOutput({ statuses, testExitCode: 0, log })).toBeNull();
    expect(checkSuspiciousOutput({ statuses, testExitCode: null, log })).toBeNull();
  });

  it("accepts the real pytest 8 log with its recorded exit code", () => {
    const statuses = parseTestLog(PLAIN_LOG, "pytest");
    expect(PLAIN_LOG).toContain(">>>>> Test Exit Code: 1");
    expect(checkSuspiciousOutput({ statuses, testExitCode: 1, log: PLAIN_LOG })).toBeNull();
  });

  it("rejects a log that reports only passes while the tests exited non-zero", () => {
    const log = framed("PASSED t.py::a");
    const statuses = parseTestLog(log, "pytest");
    expect(checkSuspiciousOutput({ statuses, testExitCode: 1, log })).toBe(
      "the tests exited with code 1 but the log reports no FAILED or ERROR test",
    );
  });

  it("rejects a real coloured log whose only parsed line is a test's own print", () => {
    const statuses = parseTestLog(COLOR_LOG, "pytest");
    expect(statuses).toStrictEqual({ [`${T}test_printed_fake`]: "PASSED" });
    expect(checkSuspiciousOutput({ statuses, testExitCode: 1, log: COLOR_LOG })).toMatch(
      /exited with code 1/,
    );
  });

  it("rejects a log from which nothing was parsed", () => {
    const log = framed("ImportError while loading conftest", "collected 0 items");
    expect(checkSuspiciousOutput({ statuses: {}, testExitCode: 4, log })).toBe(
      "no test results could be parsed from the log",
    );
  });

  it("accepts an empty status map when the log shows a suite ran, as upstream does", () => {
    const log = framed("  12 passing (3s)");
    expect(checkSuspiciousOutput({ statuses: {}, testExitCode: 0, log })).toBeNull();
  });

  it("rejects a log missing either output marker", () => {
    const statuses: Record<string, TestStatus> = { "t.py::a": "PASSED" };
    for (const log of [
      `PASSED t.py::a\n${TEST_OUTPUT_END}`,
      `${TEST_OUTPUT_START}\nPASSED t.py::a`,
    ]) {
      expect(checkSuspiciousOutput({ statuses, testExitCode: 0, log })).toBe(
        "the log lacks the start or end test output marker",
      );
    }
  });

  it("rejects a log containing a harness failure marker, whoever printed it", () => {
    const log = framed("PASSED t.py::a", ">>>>> Tests Timed Out");
    expect(checkSuspiciousOutput({ statuses: { "t.py::a": "PASSED" }, testExitCode: 0, log })).toBe(
      'the log contains the harness failure marker ">>>>> Tests Timed Out"',
    );
  });
});
