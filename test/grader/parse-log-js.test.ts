/**
 * The JavaScript log parsers (parse-log-js.ts), through parseTestLog as a grade calls them. Each log
 * is hand-written here in the format its runner prints and upstream's regexes expect: the eval
 * script's xtrace lines and markers around the runner's own output, a failing and a skipped test
 * in each, and upstream's quirks where they change an id.
 */
import { describe, expect, it } from "vitest";
import { isLabError } from "../../src/core/index.js";
import { parseTestLog, TEST_OUTPUT_END, TEST_OUTPUT_START } from "../../src/grader/parse-log.js";
import { immutableJsParser } from "../../src/grader/parse-log-js.js";

/** The eval script's frame: xtrace of the `:` markers around the test command's output. */
function framed(command: string, ...lines: string[]): string {
  return [
    "+ git apply -v -",
    `+ : '${TEST_OUTPUT_START}'`,
    `+ ${command}`,
    "+ cat",
    ...lines,
    `+ : '${TEST_OUTPUT_END}'`,
    "+ git checkout HEAD test",
  ].join("\n");
}

describe("the jest parser (babel, docusaurus)", () => {
  const log = framed(
    "yarn jest babel-generator --verbose",
    "PASS packages/babel-generator/test/index.js",
    "  generation",
    "    ✓ completeness (3 ms)",
    "    ✓ unary postfix",
    "  parentheses",
    "    ✕ unary postfix (12 ms)",
    "    ○ skipped decorators before export",
    "    ✓ arrow function in conditional  (4 ms)",
    "",
    "  ● parentheses › unary postfix",
    "",
    "    expect(received).toBe(expected) // Object.is equality",
    "",
    "Test Suites: 1 failed, 1 total",
    "Tests:       1 failed, 1 skipped, 3 passed, 5 total",
  );

  it("reads ✓, ✕ and ○ as passed, failed and skipped, by title alone", () => {
    expect(parseTestLog(log, "jest")).toEqual({
      completeness: "PASSED",
      // Two tests titled "unary postfix" in two blocks share an id: the later line wins.
      "unary postfix": "FAILED",
      "skipped decorators before export": "SKIPPED",
      // Two spaces before the duration leave one in the id (a62387d does not strip the name).
      "arrow function in conditional ": "PASSED",
    });
  });
});

describe("the jest_json parser (immutable-js 2005, jest --json through jq)", () => {
  const log = framed(
    "npx jest __tests__/OrderedMap.ts __tests__/OrderedSet.ts --silent --json",
    "[PASSED] OrderedMap > iterates in the order items were inserted",
    "[FAILED] OrderedSet > hashCode should return the same value if the values are the same",
    "[PENDING] OrderedSet > is skipped while the fix lands",
    "[PASSED] top-level test without a describe",
  );

  it("keeps PASSED and FAILED lines and leaves other statuses out", () => {
    expect(parseTestLog(log, "jest_json")).toEqual({
      "OrderedMap > iterates in the order items were inserted": "PASSED",
      "OrderedSet > hashCode should return the same value if the values are the same": "FAILED",
      "top-level test without a describe": "PASSED",
    });
  });
});

describe("the immutable_js parser", () => {
  const verbose = framed(
    "npx jest __tests__/Range.ts --verbose",
    "  Range",
    "    ✓ fixed range (2 ms)",
    "    ✕ sliced sequence works even on filtered sequence (5 ms)",
    "    ○ skipped stretches infinitely",
  );
  const json = framed(
    "npx jest --json",
    "[FAILED] Range > sliced sequence",
    "[PASSED] Range > slices",
  );

  it("reads instance 2006 with the jest parser and 2005 with the jq lines", () => {
    expect(
      parseTestLog(verbose, "immutable_js", { instanceId: "immutable-js__immutable-js-2006" }),
    ).toEqual({
      "fixed range": "PASSED",
      "sliced sequence works even on filtered sequence": "FAILED",
      "skipped stretches infinitely": "SKIPPED",
    });
    expect(
      parseTestLog(json, "immutable_js", { instanceId: "immutable-js__immutable-js-2005" }),
    ).toEqual({ "Range > sliced sequence": "FAILED", "Range > slices": "PASSED" });
    expect(immutableJsParser("immutable-js__immutable-js-2005")).toBe("jest_json");
  });

  it("refuses an instance upstream has no runner for, or none, naming it", () => {
    for (const instanceId of ["immutable-js__immutable-js-1999", undefined]) {
      let thrown: unknown;
      try {
        parseTestLog(verbose, "immutable_js", instanceId === undefined ? {} : { instanceId });
      } catch (error) {
        thrown = error;
      }
      expect(isLabError(thrown)).toBe(true);
      expect((thrown as Error).message).toContain(instanceId ?? "(none given)");
    }
  });
});

describe("the vitest parser (vuejs/core, --reporter=verbose)", () => {
  const log = framed(
    "pnpm run test packages/runtime-core/__tests__/apiWatch.spec.ts --no-watch --reporter=verbose",
    "",
    "> @3.5.0 test /testbed",
    "> vitest packages/runtime-core/__tests__/apiWatch.spec.ts --no-watch --reporter=verbose",
    "",
    " RUN  v2.0.5 /testbed",
    "",
    " ✓ packages/runtime-core/__tests__/apiWatch.spec.ts > api: watch > effect 2ms",
    " × packages/runtime-core/__tests__/apiWatch.spec.ts > api: watch > should be executed correctly 5ms",
    "   → expected 1 to be 2 // Object.is equality",
    " ↓ packages/runtime-core/__tests__/apiWatch.spec.ts > api: watch > deep watch on a Set [skipped]",
    " ✓ packages/runtime-core/__tests__/apiWatch.spec.ts > api: watch > cleanup on stop",
    " ✓ packages/runtime-core/__tests__/apiWatch.spec.ts > api: watch > watching 2",
    "",
    " Test Files  1 failed (1)",
    "      Tests  1 failed | 3 passed | 1 skipped (5)",
  );
  const file = "packages/runtime-core/__tests__/apiWatch.spec.ts > api: watch > ";

  it("reads ✓, × and ↓ by the whole file > describe > test path", () => {
    expect(parseTestLog(log, "vitest")).toEqual({
      [`${file}effect`]: "PASSED",
      [`${file}should be executed correctly`]: "FAILED",
      [`${file}deep watch on a Set`]: "SKIPPED",
      [`${file}cleanup on stop`]: "PASSED",
      // The optional duration is `\d+\s*m?s?`: a title's last number is taken for one.
      [`${file}watching`]: "PASSED",
    });
  });
});

describe("the karma parser (preact, karma-mocha-reporter)", () => {
  const head = [
    "15 05 2024 09:12:01.200:INFO [karma-server]: Karma v6.4.3 server started at http://localhost:9876/",
    "  ✖ a marked line before the browser starts is not read",
    "15 05 2024 09:12:01.230:INFO [launcher]: Starting browser ChromeHeadless",
    "15 05 2024 09:12:03.410:INFO [Chrome Headless 124.0.6367.60 (Linux x86_64)]: Connected on socket 1",
    "",
    "START:",
  ];
  const tail = [
    "",
    "Finished in 0.412 secs / 0.38 secs @ 09:12:04 GMT+0000 (Coordinated Universal Time)",
    "",
    "SUMMARY:",
    "✔ 3 tests completed",
    "✖ 2 tests failed",
    "",
    "FAILED TESTS:",
    "  render()",
    "    ✖ should set progress value to 0",
  ];
  const command =
    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"';

  it("names each test by its open describe blocks, between the browser's start and SUMMARY", () => {
    const log = framed(
      command,
      ...head,
      "  render()",
      "    ✔ should render an empty text node given an empty string",
      "    ✖ should set progress value to 0",
      "    svg",
      "      ✔ should support svg xlink:href attribute",
      "      ✖ should render foreignObject children",
      ...tail,
    );
    expect(parseTestLog(log, "karma")).toEqual({
      "render() > should render an empty text node given an empty string": "PASSED",
      "render() > should set progress value to 0": "FAILED",
      "render() > svg > should support svg xlink:href attribute": "PASSED",
      "render() > svg > should render foreignObject children": "FAILED",
    });
  });

  it("gives a skipped test no status and files the tests after it under its title", () => {
    const log = framed(
      command,
      ...head,
      "  useEffect",
      "    ✔ performs the effect after render",
      "    should run effects in a microtask (skipped)",
      "    ✔ cancels the effect when unmounted",
      "  useState",
      "    ✔ serves the initial state",
      ...tail,
    );
    expect(parseTestLog(log, "karma")).toEqual({
      "useEffect > performs the effect after render": "PASSED",
      "useEffect > should run effects in a microtask (skipped) > cancels the effect when unmounted":
        "PASSED",
      // A shallower block pops one block and is not pushed: useState's test stays under useEffect.
      "useEffect > serves the initial state": "PASSED",
    });
  });

  it("pops nothing where upstream's pop of an empty list would raise", () => {
    const log = framed(
      command,
      ...head,
      "      deep",
      "    middle",
      "  top",
      "    ✔ orphan",
      ...tail,
    );
    expect(parseTestLog(log, "karma")).toEqual({ orphan: "PASSED" });
  });
});

describe("the tap parser (axios's mocha -R tap, three.js's qunit)", () => {
  it("reads mocha's TAP: not ok fails, and a skipped test passes under its directive", () => {
    const log = framed(
      "npx mocha test/unit/adapters/http.js -R tap -g 'compression'",
      "1..3",
      "ok 1 supports http with nodejs compression algorithms GZIP decompression should support decompression",
      "not ok 2 supports http with nodejs compression algorithms GZIP decompression should not fail if response content-length header is missing",
      "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
      "  at Context.<anonymous> (test/unit/adapters/http.js:512:16)",
      "ok 3 supports http with nodejs compression algorithms brotli decompression should support decompression # SKIP -",
      "# tests 3",
      "# pass 1",
      "# fail 1",
    );
    const prefix = "supports http with nodejs compression algorithms ";
    expect(parseTestLog(log, "tap")).toEqual({
      [`${prefix}GZIP decompression should support decompression`]: "PASSED",
      [`${prefix}GZIP decompression should not fail if response content-length header is missing`]:
        "FAILED",
      [`${prefix}brotli decompression should support decompression # SKIP -`]: "PASSED",
    });
  });

  it("reads QUnit's TAP the same way, its skip directive before the title", () => {
    const log = framed(
      "npx qunit test/unit/src/math/Sphere.tests.js",
      "TAP version 13",
      "ok 1 Maths > Sphere > Instancing",
      "not ok 2 Maths > Sphere > isSphere",
      "  ---",
      "  message: failed",
      "  severity: failed",
      "  ...",
      "ok 3 # SKIP Maths > Sphere > applyMatrix4",
      "1..3",
      "# pass 1",
      "# skip 1",
      "# fail 1",
    );
    expect(parseTestLog(log, "tap")).toEqual({
      "Maths > Sphere > Instancing": "PASSED",
      "Maths > Sphere > isSphere": "FAILED",
      "# SKIP Maths > Sphere > applyMatrix4": "PASSED",
    });
  });

  it("falls back to the whole log when the markers hold no result line, as upstream does", () => {
    const log = [`+ : '${TEST_OUTPUT_START}'`, `+ : '${TEST_OUTPUT_END}'`, "ok 1 late"].join("\n");
    expect(parseTestLog(log, "tap")).toEqual({ late: "PASSED" });
  });
});
