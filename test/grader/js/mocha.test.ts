import { describe, expect, it } from "vitest";
import { jsTestCommand, jsTestRunnerFor } from "../../../src/grader/js/index.js";
import { cachedNpmInstall, resultsFile, runTests, writeProject } from "./projects.js";

/** The mocha this file runs, installed once per machine (see projects.ts). */
const MOCHA = { mocha: "10.8.2" };

const PACKAGE_JSON = JSON.stringify({
  name: "tiny-mocha",
  private: true,
  scripts: { test: "nyc --reporter lcov mocha" },
  devDependencies: MOCHA,
});

const FILES = {
  "package.json": PACKAGE_JSON,
  // The config's spec names every test file; lab's runs must keep its require and drop its spec.
  ".mocharc.json": JSON.stringify({ spec: ["test/**/*.test.js"], require: ["test/setup.js"] }),
  "test/setup.js": "globalThis.fromSetup = 42;\n",
  "test/math utils.test.js": `const assert = require("node:assert");
describe("outer", () => {
  describe("inner", () => {
    it("passes", () => assert.strictEqual(globalThis.fromSetup, 42));
    it("fails", () => assert.strictEqual(1, 2));
    it.skip("skipped", () => {});
    it("passes", () => {});
    it("todo one");
  });
  describe("inner passes", () => {
    it("is not the same test as inner > passes", () => {});
  });
  describe("with a failing hook", () => {
    before(() => { throw new Error("hook broke"); });
    it("never runs", () => {});
  });
});
it("top level", () => { console.log("printed by a test"); });
`,
  "test/broken.test.js": `require("./does-not-exist");
it("never runs", () => {});
`,
  "test/other.test.js": `it("not asked for", () => {});\n`,
};

describe("mocha (real mocha 10 from the npm registry)", () => {
  it("is found from the test script through its wrapper", () => {
    expect(jsTestRunnerFor(JSON.parse(PACKAGE_JSON), Object.keys(FILES))).toEqual({
      runner: "mocha",
      evidence: 'scripts["test"]: "nyc --reporter lcov mocha"',
    });
  });

  it("runs each given file on its own and reads every outcome as a test id", async () => {
    const install = await cachedNpmInstall("mocha", MOCHA);
    const root = writeProject(FILES, install);
    const results = resultsFile();
    const command = jsTestCommand(
      "mocha",
      ["test/broken.test.js", "test/math utils.test.js"],
      results,
    );
    const run = await runTests("mocha", command, root, results);
    expect(run.exec.exitCode).toBe(1);
    expect(run.statuses).toEqual({
      "test/broken.test.js > (file)": "ERROR",
      "test/math utils.test.js > outer > inner > passes": "PASSED",
      "test/math utils.test.js > outer > inner > fails": "FAILED",
      "test/math utils.test.js > outer > inner > skipped": "SKIPPED",
      "test/math utils.test.js > outer > inner > passes (2)": "PASSED",
      "test/math utils.test.js > outer > inner > todo one": "SKIPPED",
      "test/math utils.test.js > outer > inner passes > is not the same test as inner > passes":
        "PASSED",
      'test/math utils.test.js > outer > with a failing hook > "before all" hook for "never runs"':
        "ERROR",
      "test/math utils.test.js > top level": "PASSED",
    });
    // mocha's spec reporter still prints for the log.
    expect(run.exec.stdoutTail).toContain("passing");
  });
});
