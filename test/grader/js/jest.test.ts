import { describe, expect, it } from "vitest";
import { jsTestCommand, jsTestRunnerFor } from "../../../src/grader/js/index.js";
import { cachedNpmInstall, resultsFile, runTests, writeProject } from "./projects.js";

/** The jest this file runs, installed once per machine (see projects.ts). */
const JEST = { jest: "29.7.0" };

const PACKAGE_JSON = JSON.stringify({
  name: "tiny-jest",
  private: true,
  scripts: { test: "npm run test:unit", "test:unit": "jest --coverage" },
  devDependencies: JEST,
});

const FILES = {
  "package.json": PACKAGE_JSON,
  "src/math.js": "exports.add = (a, b) => a + b;\n",
  "test/math utils.test.js": `const { add } = require("../src/math");
describe("outer", () => {
  describe("inner", () => {
    it("passes", () => expect(add(1, 2)).toBe(3));
    it("fails", () => expect(add(1, 2)).toBe(4));
    it.skip("skipped", () => {});
    it("passes", () => expect(add(2, 2)).toBe(4));
    it.todo("todo one");
  });
  it("keeps 'quotes' # and \\\\ backslashes", () => {});
});
test("top level", () => { console.log("printed by a test"); });
`,
  "test/broken.test.js": `require("./does-not-exist");
test("never runs", () => {});
`,
  "test/other.test.js": `test("not asked for", () => {});\n`,
};

describe("jest (real jest 29 from the npm registry)", () => {
  it("is found from the script the test script calls", () => {
    expect(jsTestRunnerFor(JSON.parse(PACKAGE_JSON), Object.keys(FILES))).toEqual({
      runner: "jest",
      evidence: 'scripts["test"] -> scripts["test:unit"]: "jest --coverage"',
    });
  });

  it("runs only the given files and reads every outcome as a test id", async () => {
    const install = await cachedNpmInstall("jest", JEST);
    const root = writeProject(FILES, install);
    const results = resultsFile();
    const command = jsTestCommand(
      "jest",
      ["test/math utils.test.js", "test/broken.test.js"],
      results,
    );
    const run = await runTests("jest", command, root, results);
    expect(run.exec.exitCode).toBe(1);
    expect(run.statuses).toEqual({
      "test/math utils.test.js > outer > inner > passes": "PASSED",
      "test/math utils.test.js > outer > inner > fails": "FAILED",
      "test/math utils.test.js > outer > inner > skipped": "SKIPPED",
      "test/math utils.test.js > outer > inner > passes (2)": "PASSED",
      "test/math utils.test.js > outer > inner > todo one": "SKIPPED",
      "test/math utils.test.js > outer > keeps 'quotes' # and \\ backslashes": "PASSED",
      "test/math utils.test.js > top level": "PASSED",
      "test/broken.test.js > (file)": "ERROR",
    });
    // The usual output still reaches the log.
    expect(run.exec.stderrTail).toContain("Test suite failed to run");
  });

  it("exits 0 when every given test passes", async () => {
    const install = await cachedNpmInstall("jest", JEST);
    const root = writeProject(FILES, install);
    const results = resultsFile();
    const run = await runTests(
      "jest",
      jsTestCommand("jest", ["test/other.test.js"], results),
      root,
      results,
    );
    expect(run.exec.exitCode).toBe(0);
    expect(run.statuses).toEqual({ "test/other.test.js > not asked for": "PASSED" });
  });
});
