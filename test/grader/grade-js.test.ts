import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Oracle, Task } from "../../src/core/index.js";
import { gradeChange, type GradeOptions } from "../../src/grader/index.js";
import { loadOracle, loadSuite, loadTask } from "../../src/suite/index.js";
import { writeFixtureSuite } from "../helpers/fixture-suite.js";
import {
  FIXTURE_NODE,
  jestLockfile,
  jestTask,
  mochaLockfile,
  mochaTask,
  nodeTestTask,
  vitestLockfile,
  vitestTask,
} from "../helpers/js-fixture-tasks.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

/**
 * A project whose install script fetches a browser unless told not to, as puppeteer's and
 * playwright's do (from hosts a grade does not reach): it fails without the opt-outs.
 */
const BROWSER_INSTALL_MANIFEST = `${JSON.stringify(
  {
    name: "js-browser-install",
    version: "1.0.0",
    private: true,
    scripts: {
      test: "node --test",
      postinstall:
        "node -e \"process.exit(process.env.PUPPETEER_SKIP_DOWNLOAD === 'true' && process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD === '1' && process.env.CYPRESS_INSTALL_BINARY === '0' ? 0 : 1)\"",
    },
  },
  null,
  2,
)}\n`;

/**
 * A project whose install script does what npm-merge-driver-install does unless told not to
 * (write a merge driver into the checkout's git config, which a grade shows read-only: preact's
 * install failed on it), and which asks npm for its global prefix, whose lib/ npm 8's npx needs
 * (preact's `npx karma` on Node 16 stopped without it).
 */
const GIT_CONFIG_INSTALL = `const { execSync } = require("child_process");
const fs = require("fs");
const path = require("path");
const prefix = execSync("npm prefix -g").toString().trim();
if (!fs.existsSync(path.join(prefix, "lib", "node_modules"))) {
  console.error("npm's global prefix " + prefix + " has no lib/node_modules");
  process.exit(1);
}
if (process.env.NPM_MERGE_DRIVER_SKIP_INSTALL === undefined)
  execSync("git config --local merge.lab-driver.name lockfiles", { stdio: "inherit" });
`;

// A folder name with a space: the grade must not care where things live.
const root = path.join(tempDir(), "js grades");
const loaded: Record<string, { task: Task; oracle: Oracle }> = {};

beforeAll(async () => {
  mkdirSync(root, { recursive: true });
  const browser = nodeTestTask("js-browser-install");
  const gitConfig = nodeTestTask("js-git-config-install");
  const addon = nodeTestTask("js-native-addon");
  writeFixtureSuite(path.join(root, "evals"), "js", [
    nodeTestTask("js-node-test"),
    {
      ...browser,
      base: { ...browser.base, "package.json": BROWSER_INSTALL_MANIFEST },
    },
    {
      ...gitConfig,
      base: {
        ...gitConfig.base,
        "package.json": BROWSER_INSTALL_MANIFEST.replace(
          "js-browser-install",
          "js-git-config-install",
        ).replace(/"postinstall": "[^\n]*"/, '"postinstall": "node install-check.js"'),
        "install-check.js": GIT_CONFIG_INSTALL,
      },
    },
    {
      ...addon,
      base: {
        ...addon.base,
        // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script.
        "binding.gyp": '{ "targets": [{ "target_name": "addon", "sources": ["addon.c"] }] }\n',
        "addon.c":
          "#include <node_api.h>\nstatic napi_value Init(napi_env env, napi_value exports) { return exports; }\nNAPI_MODULE(NODE_GYP_MODULE_NAME, Init)\n",
      },
    },
    jestTask("js-jest", await jestLockfile()),
    vitestTask("js-vitest", await vitestLockfile()),
    mochaTask("js-mocha", await mochaLockfile()),
  ]);
  const suite = await loadSuite("js", { evalsDir: path.join(root, "evals"), cwd: root });
  for (const id of [
    "js-node-test",
    "js-jest",
    "js-vitest",
    "js-mocha",
    "js-browser-install",
    "js-git-config-install",
    "js-native-addon",
  ]) {
    const task = await loadTask(suite, id);
    loaded[id] = { task, oracle: await loadOracle(task) };
  }
}, 600_000);

function options(): GradeOptions {
  const scratch = mkdtempSync(path.join(root, "grade-"));
  return {
    scratchDir: scratch,
    logFile: path.join(scratch, "..", `${path.basename(scratch)}.log`),
    environment: testEnvironment(),
    setupTimeoutMs: 60_000,
    installTimeoutMs: 600_000,
    testTimeoutMs: 120_000,
  };
}

/** A one-file diff against the task's base commit: `old` replaced by `now` in `file`. */
function editPatch(file: string, old: string, now: string): string {
  const oldLines = old.split("\n").slice(0, -1);
  const newLines = now.split("\n").slice(0, -1);
  return [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,${String(oldLines.length)} +1,${String(newLines.length)} @@`,
    ...oldLines.map((line) => `-${line}`),
    ...newLines.map((line) => `+${line}`),
    "",
  ].join("\n");
}

/** The gold patch plus a change to package.json's description (an input of the install). */
function goldAndManifest(id: string, base: string): string {
  const { oracle } = loaded[id]!;
  const manifest = JSON.parse(base) as Record<string, unknown>;
  const changed = `${JSON.stringify({ ...manifest, description: "touched" }, null, 2)}\n`;
  return `${oracle.goldPatch}${editPatch("package.json", base, changed)}`;
}

const RUNNERS = [
  {
    id: "js-node-test",
    runner: "node:test",
    file: "test/add.test.js",
    task: () => nodeTestTask("js-node-test"),
  },
  {
    id: "js-jest",
    runner: "jest",
    file: "test/add.test.js",
    task: () => jestTask("js-jest", "{}"),
  },
  {
    id: "js-vitest",
    runner: "vitest",
    file: "test/add.test.ts",
    task: () => vitestTask("js-vitest", "{}"),
  },
  {
    id: "js-mocha",
    runner: "mocha",
    file: "test/add.test.js",
    task: () => mochaTask("js-mocha", "{}"),
  },
] as const;

describe.each(RUNNERS)("a $runner task", ({ id, runner, file, task: fixture }) => {
  it("resolves the gold patch, with the task's Node, and says so in the plan", async () => {
    const { task, oracle } = loaded[id]!;
    const opts = options();
    const { grade } = await gradeChange(task, oracle, { patch: oracle.goldPatch }, opts);
    const log = readFileSync(opts.logFile, "utf8");
    expect(grade, log).toMatchObject({ resolved: true, reason: null, tampering: [] });
    expect(grade.statuses).toEqual({
      [`${file} > add > adds two numbers`]: "PASSED",
      [`${file} > add > keeps zero`]: "PASSED",
    });
    expect(grade.environmentKey).toMatch(new RegExp(`^node${FIXTURE_NODE}-npm10\\.`));
    expect(["fresh", "reused"]).toContain(grade.install);
    expect(log).toContain(`#   environment: Node ${FIXTURE_NODE}, `);
    expect(log).toContain(`#   tests: ${runner} on ${file} only, its results written to `);
    expect(log).toContain(`#   canaries: js canaries in 1 hidden test module(s)\n`);
    // Canaries were planted, copies of the hidden file's own tests, and judged: none was off.
    expect(grade.canaries?.mustFail, log).toBeGreaterThanOrEqual(2);
    expect(grade.canaries?.mustPass).toBeGreaterThanOrEqual(1);
    expect(log).toMatch(new RegExp(`lab: Node ${FIXTURE_NODE}( \\(fetched\\))?, npm 10\\.`));
    expect(log).toContain("install: npm ci (frozen from package-lock.json)");
    // Only the hidden test file runs.
    expect(log).not.toContain("test/zero.test.js");
  });

  it("leaves an empty change unresolved, naming the failing test, and reuses the install", async () => {
    const { task, oracle } = loaded[id]!;
    const opts = options();
    const { grade } = await gradeChange(task, oracle, { patch: "" }, opts);
    expect(grade).toMatchObject({ resolved: false, patchEmpty: true, install: "reused" });
    expect(grade.failToPass).toEqual({ [`${file} > add > adds two numbers`]: false });
    expect(grade.passToPass).toEqual({ [`${file} > add > keeps zero`]: true });
    expect(grade.reason).toBe(
      `1 of 1 FAIL_TO_PASS tests failed: ${file} > add > adds two numbers (FAILED)`,
    );
    expect(readFileSync(opts.logFile, "utf8")).toContain(
      "lab: the change leaves the install's inputs alone, so the base commit's install",
    );
  });

  it("installs again when the change touches package.json", async () => {
    const { task, oracle } = loaded[id]!;
    const opts = options();
    const patch = goldAndManifest(id, fixture().base["package.json"]!);
    const { grade } = await gradeChange(task, oracle, { patch }, opts);
    const log = readFileSync(opts.logFile, "utf8");
    expect(grade, log).toMatchObject({ resolved: true, install: "fresh" });
    expect(log).toContain(
      "lab: installing the change: the change touches package.json, which the install reads",
    );
  });
});

describe("a project whose install script would fetch a browser", () => {
  it("is installed with the browsers' downloads turned off, and graded", async () => {
    const { task, oracle } = loaded["js-browser-install"]!;
    const opts = options();
    const { grade } = await gradeChange(task, oracle, { patch: oracle.goldPatch }, opts);
    const log = readFileSync(opts.logFile, "utf8");
    // The base commit's install succeeded, so it was kept and copied in.
    expect(grade, log).toMatchObject({ resolved: true, tampering: [], install: "reused" });
    expect(log).not.toContain("lab: install step exited with");
  });
});

/**
 * The gold patch of task `id` graded with a change to its package.json, which installs in the
 * grade itself whatever lab's cache holds; the grade and its log.
 */
async function gradeFreshInstall(id: string) {
  const { task, oracle } = loaded[id]!;
  const opts = options();
  const manifest = readFileSync(
    path.join(task.dir, "..", "..", "repos", id, "package.json"),
    "utf8",
  );
  const patch = `${oracle.goldPatch}${editPatch(
    "package.json",
    manifest,
    manifest.replace('"private": true,', '"private": true,\n  "description": "changed",'),
  )}`;
  const { grade } = await gradeChange(task, oracle, { patch }, opts);
  return { grade, log: readFileSync(opts.logFile, "utf8") };
}

describe("a project whose install script writes the checkout's git config and asks npm for its global prefix", () => {
  it("is installed (npm-merge-driver-install's opt-out set, npm's global prefix in the grade's HOME), and graded", async () => {
    const { grade, log } = await gradeFreshInstall("js-git-config-install");
    expect(grade, log).toMatchObject({ resolved: true, tampering: [] });
    expect(grade.install).not.toBe("reused");
    expect(log).not.toContain("lab: install step exited with");
  });
});

describe("a project with a native addon", () => {
  it("builds it against the cached Node's headers, not ones fetched from nodejs.org", async () => {
    const { grade, log } = await gradeFreshInstall("js-native-addon");
    expect(grade, log).toMatchObject({ resolved: true, tampering: [] });
    expect(log).not.toContain("lab: install step exited with");
    expect(log).not.toContain("nodejs.org");
  }, 300_000);
});

describe("the tamper scan of a JS task", () => {
  it("flags a change to jest.config.js, and does not resolve it", async () => {
    const { task, oracle } = loaded["js-jest"]!;
    const config = 'module.exports = { testEnvironment: "node" };\n';
    const patch = `${oracle.goldPatch}${editPatch(
      "jest.config.js",
      config,
      'module.exports = { testEnvironment: "node", bail: true };\n',
    )}`;
    const { grade } = await gradeChange(task, oracle, { patch }, options());
    expect(grade.resolved).toBe(false);
    expect(grade.tampering).toEqual(["jest.config.js: changes jest's configuration"]);
    expect(grade.reason).toBe(
      "the change tampers with the test run: jest.config.js: changes jest's configuration",
    );
  });

  it("flags a change to package.json's jest key", async () => {
    const { task, oracle } = loaded["js-node-test"]!;
    const base = nodeTestTask("js-node-test").base["package.json"]!;
    const manifest = JSON.parse(base) as Record<string, unknown>;
    const changed = `${JSON.stringify({ ...manifest, jest: { setupFiles: ["./setup.js"] } }, null, 2)}\n`;
    const patch = `${oracle.goldPatch}${editPatch("package.json", base, changed)}`;
    const { grade } = await gradeChange(task, oracle, { patch }, options());
    expect(grade.resolved).toBe(false);
    expect(grade.tampering).toEqual([
      `package.json: changes package.json's "jest" key (jest's configuration)`,
    ]);
  });
});
