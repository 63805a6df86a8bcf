import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runCommand } from "../../src/process/index.js";
import type { FixtureTask, Files } from "./fixture-suite.js";
import { sharedCacheDir } from "./temp.js";

/** The Node the JS fixture tasks are graded with (fetched from the npm registry once). */
export const FIXTURE_NODE = "20.11.1";

/** The jest the jest fixture task installs. */
export const FIXTURE_JEST = "29.7.0";

/** The vitest the vitest fixture task installs. */
export const FIXTURE_VITEST = "2.1.9";

/** The mocha the mocha fixture task installs. */
export const FIXTURE_MOCHA = "10.8.2";

const GITIGNORE = "node_modules/\n";

/** `add` subtracts; the hidden tests catch it. */
const BUGGY_ADD = "exports.add = (a, b) => a - b;\n";
const FIXED_ADD = "exports.add = (a, b) => a + b;\n";

function manifest(id: string, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ name: id, version: "1.0.0", private: true, ...extra }, null, 2)}\n`;
}

/**
 * package.json (`npm test` is `node --test`) and package-lock.json of a project without
 * dependencies, as `npm install` writes it.
 */
export function nodeTestProjectFiles(
  name: string,
): Record<"package.json" | "package-lock.json", string> {
  const lock = {
    name,
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name, version: "1.0.0" } },
  };
  return {
    "package.json": manifest(name, { scripts: { test: "node --test" } }),
    "package-lock.json": `${JSON.stringify(lock, null, 2)}\n`,
  };
}

/**
 * A JS task graded with node:test: no dependencies (an npm lockfile of the project alone), a
 * bug in `src/add.js`, and a hidden test file that catches it.
 */
export function nodeTestTask(id: string): FixtureTask {
  return {
    id,
    base: {
      ...nodeTestProjectFiles(id),
      ".gitignore": GITIGNORE,
      "src/add.js": BUGGY_ADD,
      "test/zero.test.js": `const { test } = require("node:test");
const assert = require("node:assert");
const { add } = require("../src/add");
test("zero", () => assert.strictEqual(add(0, 0), 0));
`,
    },
    gold: { "src/add.js": FIXED_ADD },
    tests: {
      "test/add.test.js": `const { describe, it } = require("node:test");
const assert = require("node:assert");
const { add } = require("../src/add");
describe("add", () => {
  it("adds two numbers", () => assert.strictEqual(add(2, 3), 5));
  it("keeps zero", () => assert.strictEqual(add(0, 0), 0));
});
`,
    },
    failToPass: ["test/add.test.js > add > adds two numbers"],
    passToPass: ["test/add.test.js > add > keeps zero"],
    environment: { kind: "node", node: FIXTURE_NODE, runner: "node:test" },
  };
}

/**
 * A JS task graded with jest from the npm registry: package.json and its real package-lock.json
 * (`jestLockfile`), a jest.config.js, the bug and the hidden tests.
 */
export function jestTask(id: string, lockfile: string): FixtureTask {
  const base: Files = {
    "package.json": manifest(id, JEST_MANIFEST),
    "package-lock.json": lockfile.replaceAll('"lab-lock"', JSON.stringify(id)),
    ".gitignore": GITIGNORE,
    "jest.config.js": 'module.exports = { testEnvironment: "node" };\n',
    "src/add.js": BUGGY_ADD,
  };
  return {
    id,
    base,
    gold: { "src/add.js": FIXED_ADD },
    tests: {
      "test/add.test.js": `const { add } = require("../src/add");
describe("add", () => {
  test("adds two numbers", () => expect(add(2, 3)).toBe(5));
  test("keeps zero", () => expect(add(0, 0)).toBe(0));
});
`,
    },
    failToPass: ["test/add.test.js > add > adds two numbers"],
    passToPass: ["test/add.test.js > add > keeps zero"],
    environment: { kind: "node", node: FIXTURE_NODE, runner: "jest" },
  };
}

/**
 * A JS task graded with vitest from the npm registry, in TypeScript: an ES module package, its
 * real package-lock.json (`vitestLockfile`), a vitest.config.ts, the bug and the hidden tests.
 */
export function vitestTask(id: string, lockfile: string): FixtureTask {
  return {
    id,
    base: {
      "package.json": manifest(id, VITEST_MANIFEST),
      "package-lock.json": lockfile.replaceAll('"lab-lock"', JSON.stringify(id)),
      ".gitignore": GITIGNORE,
      "vitest.config.ts": `import { defineConfig } from "vitest/config";
export default defineConfig({ test: { include: ["test/**/*.test.ts"] } });
`,
      "src/add.ts": "export const add = (a: number, b: number): number => a - b;\n",
    },
    gold: { "src/add.ts": "export const add = (a: number, b: number): number => a + b;\n" },
    tests: {
      "test/add.test.ts": `import { describe, expect, it } from "vitest";
import { add } from "../src/add";
describe("add", () => {
  it("adds two numbers", () => expect(add(2, 3)).toBe(5));
  it("keeps zero", () => expect(add(0, 0)).toBe(0));
});
`,
    },
    failToPass: ["test/add.test.ts > add > adds two numbers"],
    passToPass: ["test/add.test.ts > add > keeps zero"],
    environment: { kind: "node", node: FIXTURE_NODE, runner: "vitest" },
  };
}

const JEST_MANIFEST = { scripts: { test: "jest" }, devDependencies: { jest: FIXTURE_JEST } };
const MOCHA_MANIFEST = { scripts: { test: "mocha" }, devDependencies: { mocha: FIXTURE_MOCHA } };
const VITEST_MANIFEST = {
  type: "module",
  scripts: { test: "vitest" },
  devDependencies: { vitest: FIXTURE_VITEST },
};

/** The package-lock.json of jestTask's package.json (see lockfileOf). */
export function jestLockfile(): Promise<string> {
  return lockfileOf(`jest-${FIXTURE_JEST}`, JEST_MANIFEST);
}

/**
 * A JS task graded with mocha from the npm registry, its tests asserting with node's assert:
 * package.json and its real package-lock.json (`mochaLockfile`), a .mocharc.json naming the
 * spec folder, the bug and the hidden tests.
 */
export function mochaTask(id: string, lockfile: string): FixtureTask {
  return {
    id,
    base: {
      "package.json": manifest(id, MOCHA_MANIFEST),
      "package-lock.json": lockfile.replaceAll('"lab-lock"', JSON.stringify(id)),
      ".gitignore": GITIGNORE,
      ".mocharc.json": `${JSON.stringify({ spec: ["test/**/*.test.js"] })}\n`,
      "src/add.js": BUGGY_ADD,
    },
    gold: { "src/add.js": FIXED_ADD },
    tests: {
      "test/add.test.js": `const assert = require("node:assert");
const { add } = require("../src/add");

describe("add", () => {
  it("adds two numbers", () => {
    const sum = add(2, 3);
    assert.strictEqual(sum, 5);
  });

  it("keeps zero", () => {
    assert.strictEqual(add(0, 0), 0);
  });
});
`,
    },
    failToPass: ["test/add.test.js > add > adds two numbers"],
    passToPass: ["test/add.test.js > add > keeps zero"],
    environment: { kind: "node", node: FIXTURE_NODE, runner: "mocha" },
  };
}

/** The package-lock.json of mochaTask's package.json (see lockfileOf). */
export function mochaLockfile(): Promise<string> {
  return lockfileOf(`mocha-${FIXTURE_MOCHA}`, MOCHA_MANIFEST);
}

/** The package-lock.json of vitestTask's package.json (see lockfileOf). */
export function vitestLockfile(): Promise<string> {
  return lockfileOf(`vitest-${FIXTURE_VITEST}`, VITEST_MANIFEST);
}

/**
 * The package-lock.json of a project named "lab-lock" with the given package.json fields,
 * resolved from the npm registry by the host's npm once per machine and kept in the shared
 * test cache.
 */
async function lockfileOf(name: string, fields: Record<string, unknown>): Promise<string> {
  const file = path.join(sharedCacheDir, "js-fixtures", `${name}-package-lock.json`);
  if (existsSync(file)) return readFileSync(file, "utf8");
  const dir = `${file}.building-${String(process.pid)}`;
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(path.join(dir, "package.json"), manifest("lab-lock", fields));
    const result = await runCommand(
      ["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? dir,
          ...(process.env.NODE_EXTRA_CA_CERTS === undefined
            ? {}
            : { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }),
        },
        timeoutMs: 10 * 60_000,
      },
    );
    if (result.exitCode !== 0) throw new Error(`npm could not lock ${name}:\n${result.stderrTail}`);
    renameSync(path.join(dir, "package-lock.json"), file);
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
