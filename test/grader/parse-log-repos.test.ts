import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTestLog, TEST_OUTPUT_END, TEST_OUTPUT_START } from "../../src/grader/parse-log.js";

/** Genuine pytest 8 logs; see test/fixtures/logs/README.md. */
function readLog(name: string): string {
  return readFileSync(new URL(`../fixtures/logs/${name}`, import.meta.url), "utf8");
}

const PLAIN_LOG = readLog("pytest8-ra.log");
const T = "tests/test_sample.py::";

/** Wraps lines in the output markers, as the eval script prints them. */
function framed(...lines: string[]): string {
  return [`+ : '${TEST_OUTPUT_START}'`, ...lines, `+ : '${TEST_OUTPUT_END}'`].join("\n");
}

describe("parseTestLog with the matplotlib parser", () => {
  it("reads a real -rA log exactly as the pytest parser does", () => {
    expect(parseTestLog(PLAIN_LOG, "matplotlib")).toEqual(parseTestLog(PLAIN_LOG, "pytest"));
  });

  it("writes mouse-button members as the numbers older matplotlib printed", () => {
    const log = framed(
      "PASSED lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[MouseButton.LEFT]",
      "FAILED lib/matplotlib/tests/test_widgets.py::test_lasso[MouseButton.RIGHT] - assert 0",
      "PASSED lib/matplotlib/tests/test_backend_bases.py::test_click[MouseButton.MIDDLE]",
    );
    expect(parseTestLog(log, "matplotlib")).toEqual({
      "lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[1]": "PASSED",
      "lib/matplotlib/tests/test_widgets.py::test_lasso[3]": "FAILED",
      "lib/matplotlib/tests/test_backend_bases.py::test_click[MouseButton.MIDDLE]": "PASSED",
    });
  });

  it("rewrites before reading, so a rewritten line can start with a status word", () => {
    const log = framed("PASSED t.py::test_x[MouseButton.LEFT-MouseButton.RIGHT]");
    expect(parseTestLog(log, "matplotlib")).toEqual({ "t.py::test_x[1-3]": "PASSED" });
    expect(parseTestLog(log, "pytest")).toEqual({
      "t.py::test_x[MouseButton.LEFT-MouseButton.RIGHT]": "PASSED",
    });
  });

  it("ends ids at their first space, skips skip summaries and keeps XFAIL", () => {
    const log = framed(
      "PASSED lib/t.py::test_text[a b]",
      "SKIPPED [2] lib/t.py:10: no usetex",
      "XFAIL lib/t.py::test_known - reason",
    );
    expect(parseTestLog(log, "matplotlib")).toEqual({
      "lib/t.py::test_text[a": "PASSED",
      "lib/t.py::test_known": "XFAIL",
    });
  });
});

describe("parseTestLog with the seaborn parser", () => {
  it("reads only the PASSED and FAILED lines of a real -rA log", () => {
    expect(parseTestLog(PLAIN_LOG, "seaborn")).toEqual({
      [`${T}test_printed_fake`]: "PASSED",
      [`${T}test_pass`]: "PASSED",
      [`${T}test_param[1]`]: "PASSED",
      [`${T}test_param[a`]: "PASSED",
      [`${T}TestGroup::test_method`]: "PASSED",
      [`${T}test_text[ok]`]: "PASSED",
      [`${T}test_path[/tmp/sample/data/input.txt]`]: "PASSED",
      [`${T}test_path[relative/input.txt]`]: "PASSED",
      [`${T}test_prints`]: "PASSED",
      [`${T}test_fail`]: "FAILED",
      [`${T}test_param[2]`]: "FAILED",
      [`${T}test_text[x`]: "FAILED",
      [`${T}test_text[a`]: "FAILED",
    });
  });

  it("reads the verbose form where PASSED follows the id", () => {
    const log = framed(
      "tests/test_core.py::TestA::test_one PASSED                              [ 10%]",
      "tests/test_core.py::TestA::test_two FAILED                              [ 20%]",
      "tests/test_core.py::TestA::test_three SKIPPED (needs scipy)             [ 30%]",
    );
    expect(parseTestLog(log, "seaborn")).toEqual({
      "tests/test_core.py::TestA::test_one": "PASSED",
    });
  });

  it("needs PASSED as the second word when it appears inside a line", () => {
    const log = framed(
      "note: the run PASSED the check",
      "PASSED tests/a.py::test_b and PASSED again",
      "FAILED: tests/a.py::test_c",
    );
    expect(parseTestLog(log, "seaborn")).toEqual({ "tests/a.py::test_c": "FAILED" });
  });

  it("records FAILED for any line starting with it, whatever the status token", () => {
    const log = framed("FAILED tests/a.py::test_d - assert 1 == 2", "FAILEDX tests/a.py::test_e");
    expect(parseTestLog(log, "seaborn")).toEqual({
      "tests/a.py::test_d": "FAILED",
      "tests/a.py::test_e": "FAILED",
    });
  });

  it("skips lines of fewer than two words", () => {
    expect(parseTestLog(framed("PASSED", "FAILED", "   "), "seaborn")).toEqual({});
  });
});
