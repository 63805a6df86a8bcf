import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  extractTestOutput,
  parseTestLog,
  TEST_OUTPUT_END,
  TEST_OUTPUT_START,
} from "../../src/grader/parse-log.js";

/**
 * Both fixtures are genuine: an eval-style bash script (`set -uxo pipefail`, the `:` marker
 * no-ops, the exit-code echo) ran pytest 8.3.4 on one test file with passing, failing, skipped,
 * xfail, xpass, setup-error and parametrized tests. See test/fixtures/logs/README.md.
 */
function readLog(name: string): string {
  return readFileSync(new URL(`../fixtures/logs/${name}`, import.meta.url), "utf8");
}

const PLAIN_LOG = readLog("pytest8-ra.log");
const COLOR_LOG = readLog("pytest8-verbose-color.log");
const T = "tests/test_sample.py::";

/** Wraps lines in the output markers, as the eval script prints them. */
function framed(...lines: string[]): string {
  return [`+ : '${TEST_OUTPUT_START}'`, ...lines, `+ : '${TEST_OUTPUT_END}'`].join("\n");
}

describe("extractTestOutput", () => {
  it("returns the text between the start and end markers", () => {
    const output = extractTestOutput(
      `before\n${TEST_OUTPUT_START}\ninside\n${TEST_OUTPUT_END}\nafter`,
    );
    expect(output).toEqual({ text: "\ninside\n", hasStartMarker: true, hasEndMarker: true });
  });

  it("ends the region at a second start marker, as Python's split does", () => {
    const log = `${TEST_OUTPUT_START}one${TEST_OUTPUT_START}two${TEST_OUTPUT_END}`;
    expect(extractTestOutput(log).text).toBe("one");
  });

  it("reads from the beginning when the start marker is missing", () => {
    expect(extractTestOutput(`head\n${TEST_OUTPUT_END}\ntail`)).toEqual({
      text: "head\n",
      hasStartMarker: false,
      hasEndMarker: true,
    });
  });

  it("reads to the end when the end marker is missing", () => {
    expect(extractTestOutput(`head${TEST_OUTPUT_START}tail`)).toEqual({
      text: "tail",
      hasStartMarker: true,
      hasEndMarker: false,
    });
  });

  it("finds the markers in a real xtrace log, leaving the exit code outside", () => {
    const output = extractTestOutput(PLAIN_LOG);
    expect(output.hasStartMarker && output.hasEndMarker).toBe(true);
    expect(output.text).toContain("short test summary info");
    expect(output.text).not.toContain("Test Exit Code");
  });
});

describe("parseTestLog with the pytest parser", () => {
  it("reads a real pytest 8 -rA log into upstream's status map", () => {
    expect(parseTestLog(PLAIN_LOG, "pytest")).toEqual({
      [`${T}test_printed_fake`]: "PASSED",
      [`${T}test_pass`]: "PASSED",
      [`${T}test_param[1]`]: "PASSED",
      [`${T}test_param[a`]: "PASSED",
      [`${T}TestGroup::test_method`]: "PASSED",
      [`${T}test_text[ok]`]: "PASSED",
      [`${T}test_path[/tmp/sample/data/input.txt]`]: "PASSED",
      [`${T}test_path[relative/input.txt]`]: "PASSED",
      [`${T}test_prints`]: "PASSED",
      [`${T}test_xfail`]: "XFAIL",
      [`${T}test_setup_error`]: "ERROR",
      [`${T}test_fail`]: "FAILED",
      [`${T}test_param[2]`]: "FAILED",
      [`${T}test_text[x`]: "FAILED",
      [`${T}test_text[a`]: "FAILED",
    });
  });

  it("records a PASSED line that a test printed itself, as upstream does", () => {
    expect(parseTestLog(PLAIN_LOG, "pytest")[`${T}test_printed_fake`]).toBe("PASSED");
  });

  it("leaves XPASS tests out of the map, so they count as missing", () => {
    expect(parseTestLog(PLAIN_LOG, "pytest")).not.toHaveProperty([`${T}test_xpass`]);
    expect(parseTestLog(framed(`XPASS ${T}test_xpass - fixed`), "pytest")).toEqual({});
  });

  it("skips SKIPPED [N] summary lines but records a SKIPPED line naming a test", () => {
    const log = framed(
      "SKIPPED [1] tests/test_a.py:12: needs network",
      "SKIPPED [23] tests/test_b.py:4: unsupported platform",
      "SKIPPED tests/test_a.py::test_flaky",
    );
    expect(parseTestLog(log, "pytest")).toEqual({ "tests/test_a.py::test_flaky": "SKIPPED" });
  });

  it("keeps a wrapped progress artifact such as [100%] as an id, as upstream does", () => {
    expect(parseTestLog(framed("PASSED [100%]"), "pytest")).toEqual({ "[100%]": "PASSED" });
  });

  it("ends an id at its first space", () => {
    const log = framed(
      "PASSED tests/test_a.py::test_x[a b]",
      "ERROR tests/test_a.py::test_e - boom",
    );
    expect(parseTestLog(log, "pytest")).toEqual({
      "tests/test_a.py::test_x[a": "PASSED",
      "tests/test_a.py::test_e": "ERROR",
    });
  });

  it("turns every ' - ' of a FAILED line into a space before splitting", () => {
    const log = framed(
      "FAILED tests/test_a.py::test_f - AssertionError: 1 - 2",
      "FAILED tests/test_a.py::test_x[x - y] - assert 'x - y' == 'ok'",
      "FAILED - tests/test_a.py::test_g",
    );
    expect(parseTestLog(log, "pytest")).toEqual({
      "tests/test_a.py::test_f": "FAILED",
      "tests/test_a.py::test_x[x": "FAILED",
      "tests/test_a.py::test_g": "FAILED",
    });
  });

  it("counts a line only when it starts with a status word", () => {
    const log = framed(
      "  PASSED tests/test_a.py::indented",
      "tests/test_a.py::status_last PASSED",
      "XPASS tests/test_a.py::xpassed",
      "PASSED",
      "XFAILtests/test_a.py::glued",
    );
    expect(parseTestLog(log, "pytest")).toEqual({});
  });

  it("drops ids whose status token is more than a status word", () => {
    // Upstream records {"file": "ERROR:"}, a status that grades as neither success nor failure.
    const log = framed("ERROR: file or directory not found: tests/test_missing.py");
    expect(parseTestLog(log, "pytest")).toEqual({});
  });

  it("lets the last line for an id win, collapsing ids cut at the same space", () => {
    const log = framed(
      "FAILED tests/test_a.py::test_y",
      "PASSED tests/test_a.py::test_y",
      "PASSED tests/test_a.py::test_x[a b]",
      "FAILED tests/test_a.py::test_x[a c]",
    );
    expect(parseTestLog(log, "pytest")).toEqual({
      "tests/test_a.py::test_y": "PASSED",
      "tests/test_a.py::test_x[a": "FAILED",
    });
  });

  it("parses only the marker region when it yields results", () => {
    const log = `PASSED tests/test_a.py::outside\n${framed("FAILED tests/test_a.py::inside")}`;
    expect(parseTestLog(log, "pytest")).toEqual({ "tests/test_a.py::inside": "FAILED" });
  });

  it("falls back to the whole log when the marker region yields nothing", () => {
    const log = `PASSED tests/test_a.py::outside\n${framed("no results here")}\nPASSED tests/test_a.py::after`;
    expect(parseTestLog(log, "pytest")).toEqual({
      "tests/test_a.py::outside": "PASSED",
      "tests/test_a.py::after": "PASSED",
    });
  });

  it("splits on exactly the whitespace Python's str.split() knows", () => {
    const log = framed(
      "PASSED\u001ctests/test_a.py::file_separator",
      "PASSED\u00a0tests/test_a.py::nbsp",
      "PASSED tests/test_a.py::bom\ufeffkept",
      "PASSED tests/test_a.py::crlf\r",
    );
    expect(parseTestLog(log, "pytest")).toEqual({
      "tests/test_a.py::file_separator": "PASSED",
      "tests/test_a.py::nbsp": "PASSED",
      "tests/test_a.py::bom\ufeffkept": "PASSED",
      "tests/test_a.py::crlf": "PASSED",
    });
  });

  it("sees only uncoloured lines, so a coloured log yields just printed output", () => {
    expect(parseTestLog(COLOR_LOG, "pytest")).toEqual({ [`${T}test_printed_fake`]: "PASSED" });
  });

  it("keeps an id named __proto__ as an ordinary key", () => {
    const statuses = parseTestLog(framed("PASSED __proto__"), "pytest");
    expect(Object.keys(statuses)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(statuses)).toBe(Object.prototype);
  });
});

describe("parseTestLog with the pytest_options parser", () => {
  it("reads a real pytest 8 -rA log, shortening an absolute path parameter", () => {
    const plain = Object.entries(parseTestLog(PLAIN_LOG, "pytest"));
    const expected = plain.map(([id, status]) => [id.replace("[/tmp/sample/data/", "[/"), status]);
    expect(parseTestLog(PLAIN_LOG, "pytest_options")).toStrictEqual(Object.fromEntries(expected));
    expect(expected).toContainEqual([`${T}test_path[/input.txt]`, "PASSED"]);
  });

  it.each([
    ["t.py::x[/tmp/a/b.txt]", "t.py::x[/b.txt]"],
    ["t.py::x[/]", "t.py::x[/]"],
    ["t.py::x[//server/share]", "t.py::x[//server/share]"],
    ["t.py::x[/tmp/*.py]", "t.py::x[/tmp/*.py]"],
    ["t.py::x[relative/b.txt]", "t.py::x[relative/b.txt]"],
    ["t.py::x[a]-tail", "t.py::x[a]"],
    ["t.py::x[/a]b[/c/d]", "t.py::x[/d]"],
    ["t.py::no_brackets", "t.py::no_brackets"],
  ])("rewrites the parameter of %s to give %s", (id, expected) => {
    expect(parseTestLog(framed(`PASSED ${id}`), "pytest_options")).toEqual({
      [expected]: "PASSED",
    });
  });

  it("still ends ids at the first space and skips skip summaries", () => {
    const log = framed("SKIPPED [2] t.py:3: later", "FAILED t.py::x[/tmp/a b] - boom");
    expect(parseTestLog(log, "pytest_options")).toEqual({ "t.py::x[/tmp/a": "FAILED" });
  });
});

describe("parseTestLog with the pytest_v2 parser", () => {
  it("reads a real -rA log, keeping whole ids and the messages of ERROR and XFAIL lines", () => {
    expect(parseTestLog(PLAIN_LOG, "pytest_v2")).toEqual({
      [`${T}test_printed_fake`]: "PASSED",
      [`${T}test_pass`]: "PASSED",
      [`${T}test_param[1]`]: "PASSED",
      [`${T}test_param[a b]`]: "PASSED",
      [`${T}TestGroup::test_method`]: "PASSED",
      [`${T}test_text[ok]`]: "PASSED",
      [`${T}test_path[/tmp/sample/data/input.txt]`]: "PASSED",
      [`${T}test_path[relative/input.txt]`]: "PASSED",
      [`${T}test_prints`]: "PASSED",
      [`${T}test_xfail - known bug`]: "XFAIL",
      [`${T}test_setup_error - RuntimeError: setup exploded`]: "ERROR",
      [`${T}test_fail`]: "FAILED",
      [`${T}test_param[2]`]: "FAILED",
      [`${T}test_text[x`]: "FAILED",
      [`${T}test_text[a b c]`]: "FAILED",
    });
  });

  it("reads a real coloured verbose log, including its status-last lines", () => {
    expect(parseTestLog(COLOR_LOG, "pytest_v2")).toEqual({
      [`${T}test_pass`]: "PASSED",
      [`${T}test_fail`]: "FAILED",
      [`${T}test_setup_error`]: "ERROR",
      [`${T}test_param[1]`]: "PASSED",
      [`${T}test_param[2]`]: "FAILED",
      [`${T}test_param[a b]`]: "PASSED",
      [`${T}TestGroup::test_method`]: "PASSED",
      [`${T}test_text[ok]`]: "PASSED",
      [`${T}test_text[x - y]`]: "FAILED",
      [`${T}test_text[a b c]`]: "FAILED",
      [`${T}test_path[/tmp/sample/data/input.txt]`]: "PASSED",
      [`${T}test_path[relative/input.txt]`]: "PASSED",
      [`${T}test_prints`]: "PASSED",
      [`${T}test_printed_fake`]: "PASSED",
      [`${T}test_xfail - known bug`]: "XFAIL",
      [`${T}test_setup_error - RuntimeError: setup exploded`]: "ERROR",
      [`${T}test_text[x`]: "FAILED",
    });
  });

  it("keeps spaces inside an id, joining runs of whitespace into one space", () => {
    const log = framed(
      "PASSED tests/test_a.py::test_x[a b]",
      "PASSED  tests/test_a.py::test_y[a \t  b]  ",
    );
    expect(parseTestLog(log, "pytest_v2")).toEqual({
      "tests/test_a.py::test_x[a b]": "PASSED",
      "tests/test_a.py::test_y[a b]": "PASSED",
    });
  });

  it("cuts a FAILED line at its first ' - ', even inside the brackets", () => {
    const log = framed(
      "FAILED tests/test_a.py::test_x[a b] - AssertionError: 1 - 2",
      "FAILED tests/test_a.py::test_y[p - q] - boom",
    );
    expect(parseTestLog(log, "pytest_v2")).toEqual({
      "tests/test_a.py::test_x[a b]": "FAILED",
      "tests/test_a.py::test_y[p": "FAILED",
    });
  });

  it("strips ANSI colour codes and control characters before reading a line", () => {
    const log = framed("\u001b[32mPASSED\u001b[0m tests/test_a.py::\u001b[1mtest_z\u001b[0m");
    expect(parseTestLog(log, "pytest_v2")).toEqual({ "tests/test_a.py::test_z": "PASSED" });
  });

  it("deletes tabs rather than splitting on them, as upstream's translate does", () => {
    expect(parseTestLog(framed("PASSED tests/test_a.py::test_t[a\tb]"), "pytest_v2")).toEqual({
      "tests/test_a.py::test_t[ab]": "PASSED",
    });
  });

  it("leaves the remains of a multi-parameter SGR code, as upstream does", () => {
    const log = framed("\u001b[1;32mPASSED\u001b[0m tests/test_a.py::test_bold");
    expect(parseTestLog(log, "pytest_v2")).toEqual({});
  });

  it("accepts the older form where the status comes last", () => {
    const log = framed(
      "tests/test_a.py::test_x[a b] PASSED",
      "tests/test_a.py::test_y FAILED",
      "tests/test_a.py::test_z SKIPPED (reason)",
      "tests/test_a.py::test_w XPASS",
      "FAILED",
    );
    expect(parseTestLog(log, "pytest_v2")).toEqual({
      "tests/test_a.py::test_x[a b]": "PASSED",
      "tests/test_a.py::test_y": "FAILED",
    });
  });

  it("skips SKIPPED [N] summary lines", () => {
    const log = framed(
      "SKIPPED [1] tests/test_a.py:12: needs network",
      "PASSED tests/test_a.py::ok",
    );
    expect(parseTestLog(log, "pytest_v2")).toEqual({ "tests/test_a.py::ok": "PASSED" });
  });

  it("lets a later line for an id overwrite an earlier one", () => {
    const log = framed("tests/test_a.py::test_x PASSED", "FAILED tests/test_a.py::test_x - flaky");
    expect(parseTestLog(log, "pytest_v2")).toEqual({ "tests/test_a.py::test_x": "FAILED" });
  });
});
