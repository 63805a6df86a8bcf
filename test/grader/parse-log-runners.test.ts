import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTestLog, TEST_OUTPUT_END, TEST_OUTPUT_START } from "../../src/grader/parse-log.js";

/** Genuine logs of Django's and SymPy's runners; see test/fixtures/logs/README.md. */
function readLog(name: string): string {
  return readFileSync(new URL(`../fixtures/logs/${name}`, import.meta.url), "utf8");
}

const DJANGO_LOG = readLog("django42-runtests-v2.log");
const SYMPY_LOG = readLog("sympy112-test-verbose.log");
const D = "(lab_shapes.tests.ShapeTests)";
const S = "sympy/core/tests/test_lab_shapes.py:";

/** Wraps lines in the output markers, as the eval script prints them. */
function framed(...lines: string[]): string {
  return [`+ : '${TEST_OUTPUT_START}'`, ...lines, `+ : '${TEST_OUTPUT_END}'`].join("\n");
}

describe("parseTestLog with the django parser", () => {
  it("reads a real runtests.py --verbosity 2 log into upstream's status map", () => {
    expect(parseTestLog(DJANGO_LOG, "django")).toEqual({
      "A test with a docstring is reported under its first line.": "PASSED",
      "#12345 -- a documented test that fails.": "FAILED",
      [`test_errors ${D}`]: "ERROR",
      [`test_fails ${D}`]: "FAILED",
      "Only the first line of a docstring counts, and it may end mid-sentence": "PASSED",
      [`test_passes ${D}`]: "PASSED",
      [`test_prints_note ${D}`]: "PASSED",
      [`test_prints_server_error ${D}`]: "PASSED",
      [`test_skipped ${D}`]: "SKIPPED",
      // The ERROR: and FAIL: headers of the tracebacks record their second word.
      test_errors: "ERROR",
      test_documented_failure: "FAILED",
      test_fails: "FAILED",
    });
  });

  it("knows a documented test by its docstring's first line, not its name", () => {
    const statuses = parseTestLog(DJANGO_LOG, "django");
    expect(statuses).not.toHaveProperty([`test_documented ${D}`]);
    expect(statuses).not.toHaveProperty([`test_long_docstring ${D}`]);
  });

  it("leaves an expected failure out of the map", () => {
    expect(parseTestLog(DJANGO_LOG, "django")).not.toHaveProperty([`test_expected_failure ${D}`]);
  });

  it("passes a test whose printed output pushed its ok onto the next line", () => {
    const log = framed("test_a (m.T) ... Traceback printed by a logger", "ok");
    expect(parseTestLog(log, "django")).toEqual({ "test_a (m.T)": "PASSED" });
  });

  it("reads Python 3.11's ids, which repeat the method name", () => {
    const log = framed(
      "test_a (m.tests.T.test_a) ... ok",
      "test_b (m.tests.T.test_b) ... FAIL",
      "test_c (m.tests.T.test_c) ... skipped 'no db'",
    );
    expect(parseTestLog(log, "django")).toEqual({
      "test_a (m.tests.T.test_a)": "PASSED",
      "test_b (m.tests.T.test_b)": "FAILED",
      "test_c (m.tests.T.test_c)": "SKIPPED",
    });
  });

  it("accepts ok in capitals, with one or two spaces before it", () => {
    const log = framed("test_a (m.T) ... OK", "test_b (m.T) ...  OK", "test_c (m.T) ... okay");
    expect(parseTestLog(log, "django")).toEqual({
      "test_a (m.T)": "PASSED",
      "test_b (m.T)": "PASSED",
    });
  });

  it("lets any later line starting with ok pass the last test seen, whatever it was", () => {
    const log = framed("test_a (m.T) ... FAIL", "Some output", "okay, that was odd");
    expect(parseTestLog(log, "django")).toEqual({ "test_a (m.T)": "PASSED" });
  });

  it("takes the id from before the status ending, after stripping the line", () => {
    const log = framed("   test_a (m.T) ... waiting ... ERROR  ", "\ttest_b (m.T) ... ok\r");
    expect(parseTestLog(log, "django")).toEqual({
      "test_a (m.T) ... waiting": "ERROR",
      "test_b (m.T)": "PASSED",
    });
  });

  it("records the second word of FAIL: and ERROR: lines, and skips a bare one", () => {
    const log = framed("FAIL: test_a (m.T)", "ERROR: setUpClass (m.T)", "FAIL:", "ERROR:");
    expect(parseTestLog(log, "django")).toEqual({ test_a: "FAILED", setUpClass: "ERROR" });
  });

  it("applies upstream's fix for the migration line of django__django-7188", () => {
    const log = framed(
      "  Applying sites.0002_alter_domain_unique...test_no_migrations (m.T) ... ok",
    );
    expect(parseTestLog(log, "django")).toEqual({ "test_no_migrations (m.T)": "PASSED" });
  });

  it("records the --version help test whose output spans lines", () => {
    const log = framed("--version is equivalent to version ... ", "2.2.dev", "ok");
    expect(parseTestLog(log, "django")).toEqual({
      "--version is equivalent to version": "PASSED",
    });
  });

  it("passes a test whose ok the runner's banner pushed lines down, across other lines", () => {
    const log = framed(
      "test_a (m.T) ... Testing against Django installed in '/testbed/django' with up to 2 processes",
      "step one ... done",
      "System check identified no issues (0 silenced).",
      "ok",
    );
    // The multi-line pattern passes test_a; the line-based reading passes the last " ... " line.
    expect(parseTestLog(log, "django")).toEqual({ "step one": "PASSED", "test_a (m.T)": "PASSED" });
  });

  it("matches the banner patterns with Python's whitespace, '.' and line anchors", () => {
    // Tabs are \s to the patterns but not " ... " to the line-based reading, so only the
    // patterns see these; "\r" is inside a line for Python's "." and "^", unlike JavaScript's.
    expect(
      parseTestLog(framed("test_a (m.T)\t...\tInternal Server Error: /admin/", "ok"), "django"),
    ).toEqual({ "test_a (m.T)": "PASSED" });
    expect(parseTestLog(framed("a\rb\t...\tInternal Server Error: /x/", "ok"), "django")).toEqual({
      "a\rb": "PASSED",
    });
  });

  it("never matches upstream's third banner pattern on real output, which has a period", () => {
    const real = framed("x\t...\tSystem check identified no issues (0 silenced).", "ok");
    expect(parseTestLog(real, "django")).toEqual({});
    const withoutPeriod = framed("y\t...\tSystem check identified no issues (0 silenced)", "ok");
    expect(parseTestLog(withoutPeriod, "django")).toEqual({ y: "PASSED" });
  });
});

describe("parseTestLog with the sympy parser", () => {
  it("reads a real bin/test --verbose log into upstream's status map", () => {
    expect(parseTestLog(SYMPY_LOG, "sympy")).toEqual({
      [`${S}test_errors`]: "FAILED",
      [`${S}test_fails`]: "FAILED",
      test_passes: "PASSED",
      test_fails: "FAILED",
      test_errors: "ERROR",
      test_prints: "PASSED",
    });
  });

  it("leaves expected failures, unexpected passes and skips out of the map", () => {
    const statuses = parseTestLog(SYMPY_LOG, "sympy");
    for (const name of [
      "test_known_failure",
      "test_unexpected_pass",
      "test_skipped_inside",
      "test_skipped_decorated",
    ]) {
      expect(statuses).not.toHaveProperty([name]);
    }
  });

  it("lets a test's printed output decide its line's ending", () => {
    // test_prints printed "test_printed_fake ok", so its line ends in " ok" before the runner's own.
    const log = framed("test_loud printed something F", "test_quiet F", "test_other ok");
    expect(parseTestLog(log, "sympy")).toEqual({
      test_loud: "FAILED",
      test_quiet: "FAILED",
      test_other: "PASSED",
    });
  });

  it("records every ' x.py:y ' on a line as a failure header, underscores or not", () => {
    const log = framed(
      "______ sympy/a/tests/test_a.py:test_one ______",
      "see sympy/b.py:12 for details",
      "sympy/c.py:no_leading_space here",
    );
    expect(parseTestLog(log, "sympy")).toEqual({
      "sympy/a/tests/test_a.py:test_one": "FAILED",
      "sympy/b.py:12 for": "FAILED",
    });
  });

  it("lets a later per-test line overwrite a failure header", () => {
    const log = framed("test_x ok", "___ sympy/t.py:test_x ___", "test_y E");
    expect(parseTestLog(log, "sympy")).toEqual({
      test_x: "PASSED",
      "sympy/t.py:test_x": "FAILED",
      test_y: "ERROR",
    });
  });
});
