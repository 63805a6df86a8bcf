import { describe, expect, it } from "vitest";
import { jsTestCommand, jsTestRunnerFor } from "../../../src/grader/js/index.js";
import { cachedNpmInstall, resultsFile, runTests, writeProject } from "./projects.js";

/** The vitest this file runs, installed once per machine (see projects.ts). */
const VITEST = { vitest: "2.1.9" };

const PACKAGE_JSON = JSON.stringify({
  name: "tiny-vitest",
  private: true,
  type: "module",
  scripts: { test: "cross-env NODE_ENV=test vitest --run" },
  devDependencies: VITEST,
});

const FILES = {
  "package.json": PACKAGE_JSON,
  "vitest.config.ts": `import { defineConfig } from "vitest/config";
export default defineConfig({ test: { include: ["**/*.test.ts"] } });
`,
  "src/math.ts": "export function add(a: number, b: number): number { return a + b; }\n",
  "test/math.test.ts": `import { describe, expect, it, test } from "vitest";
import { add } from "../src/math";

interface Case { readonly a: number; readonly b: number; readonly sum: number }
const one: Case = { a: 1, b: 2, sum: 3 };

describe("outer", () => {
  describe("inner", () => {
    it("passes", () => expect(add(one.a, one.b)).toBe(one.sum));
    it("fails", () => expect(add(one.a, one.b)).toBe(4));
    it.skip("skipped", () => {});
    it("passes", () => expect(add(2, 2)).toBe(4));
    it.todo("todo one");
  });
});
test("top level", () => { console.log("printed by a test"); });
`,
  "test/broken.test.ts": `import { missing } from "./does-not-exist";
import { test } from "vitest";
test("never runs", () => { missing(); });
`,
  "nested/test/math.test.ts": `import { test } from "vitest";
test("not asked for", () => {});
`,
  "test/other.test.ts": `import { test } from "vitest";
test("not asked for either", () => {});
`,
};

describe("vitest (real vitest 2 from the npm registry)", () => {
  it("is found from the test script through its wrapper", () => {
    expect(jsTestRunnerFor(JSON.parse(PACKAGE_JSON), Object.keys(FILES))).toEqual({
      runner: "vitest",
      evidence: 'scripts["test"]: "cross-env NODE_ENV=test vitest --run"',
    });
  });

  it("runs the given TypeScript files and reads every outcome as a test id", async () => {
    const install = await cachedNpmInstall("vitest", VITEST);
    const root = writeProject(FILES, install);
    const results = resultsFile();
    const command = jsTestCommand("vitest", ["test/math.test.ts", "test/broken.test.ts"], results);
    const run = await runTests("vitest", command, root, results);
    expect(run.exec.exitCode).toBe(1);
    // vitest reads file arguments as filters: nested/test/math.test.ts holds the path of a given
    // file, so it runs too (see jsTestCommand); test/other.test.ts does not.
    expect(run.statuses).toEqual({
      "test/math.test.ts > outer > inner > passes": "PASSED",
      "test/math.test.ts > outer > inner > fails": "FAILED",
      "test/math.test.ts > outer > inner > skipped": "SKIPPED",
      "test/math.test.ts > outer > inner > passes (2)": "PASSED",
      "test/math.test.ts > outer > inner > todo one": "SKIPPED",
      "test/math.test.ts > top level": "PASSED",
      "test/broken.test.ts > (file)": "ERROR",
      "nested/test/math.test.ts > not asked for": "PASSED",
    });
    expect(run.exec.stdoutTail).toContain("Test Files");
  });
});
