import { describe, expect, it } from "vitest";
import { jsTestRunnerFor } from "../../../src/grader/js/index.js";

/** The runner (or null) found for a package.json and the repository's file paths. */
function runnerOf(packageJson: unknown, files: readonly string[] = []): string | null {
  return jsTestRunnerFor(packageJson, files).runner;
}

describe("jsTestRunnerFor", () => {
  it("reads the runner scripts.test runs, whatever wraps it", () => {
    expect(runnerOf({ scripts: { test: "jest" } })).toBe("jest");
    expect(runnerOf({ scripts: { test: "NODE_ENV=test jest --coverage" } })).toBe("jest");
    expect(runnerOf({ scripts: { test: "npx vitest run" } })).toBe("vitest");
    expect(runnerOf({ scripts: { test: "dotenv -e .env.test -- vitest" } })).toBe("vitest");
    expect(runnerOf({ scripts: { test: "c8 --reporter text mocha 'test/**/*.js'" } })).toBe(
      "mocha",
    );
    expect(runnerOf({ scripts: { test: "node ./node_modules/mocha/bin/_mocha" } })).toBe("mocha");
    expect(runnerOf({ scripts: { test: "ts-mocha -p tsconfig.json test/*.ts" } })).toBe("mocha");
    expect(runnerOf({ scripts: { test: "react-scripts test --watchAll=false" } })).toBe("jest");
    expect(runnerOf({ scripts: { test: "node --import tsx --test test/*.ts" } })).toBe("node:test");
    expect(runnerOf({ scripts: { test: "tsc -p . && node --test" } })).toBe("node:test");
    expect(runnerOf({ scripts: { test: "eslint . && jest" } })).toBe("jest");
  });

  it("follows the scripts the test script calls, and says which", () => {
    const scripts = {
      test: "npm run lint && npm run test:unit",
      lint: "eslint .",
      "test:unit": "yarn unit",
      unit: "vitest run",
    };
    expect(jsTestRunnerFor({ scripts }, [])).toEqual({
      runner: "vitest",
      evidence: 'scripts["test"] -> scripts["test:unit"] -> scripts["unit"]: "vitest run"',
    });
    expect(
      runnerOf({ scripts: { test: "run-s test:*", "test:a": "tsc", "test:b": "mocha" } }),
    ).toBe("mocha");
    expect(runnerOf({ scripts: { test: "pnpm run spec", spec: "jest" } })).toBe("jest");
  });

  it("stops at a script that calls itself", () => {
    const detection = jsTestRunnerFor(
      { scripts: { test: "npm run a", a: "npm test" }, devDependencies: { jest: "29" } },
      [],
    );
    expect(detection).toEqual({ runner: "jest", evidence: "devDependencies.jest" });
  });

  it("takes the first supported runner of a script that runs several, naming the others", () => {
    const detection = jsTestRunnerFor(
      { scripts: { test: "npm run unit && npm run e2e", unit: "jest", e2e: "playwright test" } },
      [],
    );
    expect(detection).toEqual({
      runner: "jest",
      evidence: 'scripts["test"] -> scripts["unit"]: "jest" (the script also runs playwright)',
    });
  });

  it("lets the script win over other runners' config files and dependencies", () => {
    const packageJson = {
      scripts: { test: "mocha" },
      jest: { testEnvironment: "node" },
      devDependencies: { jest: "29", mocha: "10" },
    };
    expect(runnerOf(packageJson, ["jest.config.js"])).toBe("mocha");
  });

  it("says plainly that karma and other runners are not supported yet", () => {
    for (const [test, name] of [
      ["karma start --single-run", "karma"],
      ["ava --verbose", "ava"],
      ["ng test", "karma (ng test)"],
      ["tape test/*.js | tap-spec", "tape"],
      ["bun test", "bun test"],
    ] as const) {
      const detection = jsTestRunnerFor({ scripts: { test } }, []);
      expect(detection.runner).toBeNull();
      expect(detection).toHaveProperty(
        "reason",
        `${name} (scripts["test"]: ${JSON.stringify(test)}) is not supported yet: lab runs jest, vitest, mocha and node:test`,
      );
    }
    expect(jsTestRunnerFor({}, ["karma.conf.js"])).toHaveProperty(
      "reason",
      "karma (karma.conf.js) is not supported yet: lab runs jest, vitest, mocha and node:test",
    );
  });

  it("falls back to config files, then dependencies, when the script names no runner", () => {
    const noScript = { scripts: { test: 'echo "Error: no test specified" && exit 1' } };
    expect(jsTestRunnerFor(noScript, ["src/index.js", "vitest.config.mts"])).toEqual({
      runner: "vitest",
      evidence: "vitest.config.mts",
    });
    expect(jsTestRunnerFor({ mocha: { spec: "test" } }, [])).toEqual({
      runner: "mocha",
      evidence: 'package.json "mocha"',
    });
    expect(jsTestRunnerFor({}, [".mocharc.yml"])).toEqual({
      runner: "mocha",
      evidence: ".mocharc.yml",
    });
    expect(jsTestRunnerFor({ devDependencies: { "ts-jest": "29" } }, [])).toEqual({
      runner: "jest",
      evidence: "devDependencies.ts-jest",
    });
    // A config file decides before dependencies do.
    expect(runnerOf({ devDependencies: { jest: "29" } }, ["vitest.config.ts"])).toBe("vitest");
    // Only root-level config files count.
    expect(runnerOf({}, ["packages/a/jest.config.js"])).toBeNull();
  });

  it("does not guess between two runners at one level", () => {
    const detection = jsTestRunnerFor({ devDependencies: { jest: "29", mocha: "10" } }, []);
    expect(detection).toEqual({
      runner: null,
      reason:
        "dependencies name several runners (devDependencies.jest, devDependencies.mocha) and scripts.test does not say which one runs the tests",
    });
  });

  it("says when nothing names a runner, whatever package.json holds", () => {
    for (const packageJson of [{}, null, [], "jest", { scripts: "jest", devDependencies: 3 }]) {
      expect(jsTestRunnerFor(packageJson, [])).toEqual({
        runner: null,
        reason:
          "no test runner found: scripts.test runs none lab knows, and no jest, vitest or mocha config file or dependency is present",
      });
    }
  });
});
