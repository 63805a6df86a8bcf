import { describe, expect, it } from "vitest";
import { isLabError } from "../../../src/core/index.js";
import { parseJsResults } from "../../../src/grader/js/index.js";
import type { JsTestRunner } from "../../../src/grader/js/index.js";

const ROOT = "/repo";

/** jest's --json shape with one file's assertions. */
function jestJson(
  assertions: readonly { ancestorTitles: string[]; title: string; status: string }[],
  status = "passed",
): string {
  return JSON.stringify({
    testResults: [
      { name: `${ROOT}/test/a.test.js`, status, message: "", assertionResults: assertions },
    ],
  });
}

/** The LabError parseJsResults throws for `text`, as code and message. */
function failure(runner: JsTestRunner, text: string): { code: string; message: string } {
  try {
    parseJsResults(runner, text, ROOT);
  } catch (error) {
    if (isLabError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("no error thrown");
}

describe("parseJsResults", () => {
  it("keeps tests of one name apart by report order, skipping a suffix a real test holds", () => {
    const test = (title: string) => ({ ancestorTitles: ["s"], title, status: "passed" });
    const text = jestJson([test("x"), test("x"), test("x (2)"), test("x")]);
    expect(Object.keys(parseJsResults("jest", text, ROOT))).toEqual([
      "test/a.test.js > s > x",
      "test/a.test.js > s > x (2)",
      "test/a.test.js > s > x (2) (2)",
      "test/a.test.js > s > x (3)",
    ]);
  });

  it("keeps paths outside the root absolute and any id an ordinary key", () => {
    const text = JSON.stringify({
      testResults: [
        {
          name: "/elsewhere/b.test.js",
          assertionResults: [{ ancestorTitles: [], title: "__proto__", status: "passed" }],
        },
      ],
    });
    const statuses = parseJsResults("vitest", text, `${ROOT}/`);
    expect(Object.keys(statuses)).toEqual(["/elsewhere/b.test.js > __proto__"]);
  });

  it("says a results file is empty, not JSON, cut short or of another shape", () => {
    expect(failure("jest", "")).toEqual({
      code: "TEST_RESULTS_INVALID",
      message: "Cannot read jest's test results: the results file is empty.",
    });
    const whole = jestJson([{ ancestorTitles: [], title: "t", status: "passed" }]);
    expect(failure("vitest", whole.slice(0, 40)).message).toMatch(
      /^Cannot read vitest's test results: the results are not JSON \(/,
    );
    expect(failure("jest", JSON.stringify({ testResults: [{ name: 3 }] }))).toEqual({
      code: "TEST_RESULTS_INVALID",
      message:
        "Cannot read jest's test results: the results do not have the --json shape at testResults.0.name: Invalid input: expected string, received number.",
    });
    expect(
      failure("jest", jestJson([{ ancestorTitles: [], title: "t", status: "wobbly" }])),
    ).toEqual({
      code: "TEST_RESULTS_INVALID",
      message:
        'Cannot read jest\'s test results: test "t" in test/a.test.js has the unknown status "wobbly".',
    });
  });

  it("reads lab's reporter lines, and says where they go wrong", () => {
    const lines = [
      '{"lab":"file","file":"test/a.test.js"}',
      `{"lab":"test","uid":1,"titles":["s","t"],"file":"${ROOT}/test/a.test.js","state":"passed"}`,
      // mocha's second word on the same test (a late failure) replaces the first.
      `{"lab":"test","uid":1,"titles":["s","t"],"file":"${ROOT}/test/a.test.js","state":"failed"}`,
      '{"lab":"end"}',
      '{"lab":"file","file":"test/b.test.js"}',
      `{"lab":"test","uid":1,"titles":["u"],"file":"${ROOT}/test/b.test.js","state":"passed"}`,
    ];
    expect(parseJsResults("mocha", lines.join("\n") + "\n", ROOT)).toEqual({
      "test/a.test.js > s > t": "FAILED",
      "test/b.test.js > u": "PASSED",
      // b's run never reached its end line: its process died.
      "test/b.test.js > (file)": "ERROR",
    });
    expect(failure("mocha", lines.slice(1).join("\n")).message).toBe(
      "Cannot read mocha's test results: line 1 comes before any file's line.",
    );
    expect(failure("node:test", `${lines[0]}\n{"lab":"test","titl`).message).toBe(
      'Cannot read node:test\'s test results: line 2 is not JSON (the file ends inside it: it was cut short): "{\\"lab\\":\\"test\\",\\"titl".',
    );
    expect(failure("node:test", `${lines[0]}\n{"lab":"tests"}\n`).message).toBe(
      'Cannot read node:test\'s test results: line 2 is not one of lab\'s result lines: "{\\"lab\\":\\"tests\\"}".',
    );
    expect(failure("node:test", `${lines[0]}\ntap:ok 1 - x\n`).message).toBe(
      "Cannot read node:test's test results: line 2 is TAP outside a TAP file's run.",
    );
  });

  it("reads an older Node's TAP: nesting, directives, escapes, and output that only looks like TAP", () => {
    const tap = [
      "TAP version 13",
      "ok 9 - printed by a test, with no YAML block after it",
      "    # Subtest: inner",
      "    ok 1 - a \\# b \\\\ c",
      "      ---",
      "      duration_ms: 1",
      "      ok 2 - inside YAML",
      "      ...",
      "    not ok 2 - fails",
      "      ---",
      "      ...",
      "    ok 3 - later # SKIP not now",
      "      ---",
      "      ...",
      "    1..3",
      "not ok 1 - outer",
      "  ---",
      "  ...",
      "1..1",
    ];
    const text = ['{"lab":"file","file":"t.mjs","format":"tap"}', ...tap.map((l) => `tap:${l}`)];
    expect(parseJsResults("node:test", text.join("\n"), ROOT)).toEqual({
      "t.mjs > outer > a # b \\ c": "PASSED",
      "t.mjs > outer > fails": "FAILED",
      "t.mjs > outer > later": "SKIPPED",
    });
    // Without the top level's plan the run did not end: the file is an error too.
    expect(parseJsResults("node:test", text.slice(0, -1).join("\n"), ROOT)).toHaveProperty(
      ["t.mjs > (file)"],
      "ERROR",
    );
  });
});
