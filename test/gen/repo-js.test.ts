import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inferEnvironment } from "../../src/gen/repo/infer-env.js";
import { isSourcePath, isTestPath, mineChanges } from "../../src/gen/repo/mining.js";
import { listPatchFiles } from "../../src/core/index.js";
import { installFailure, ownTests } from "../../src/gen/repo/validate.js";
import { pyproject } from "../helpers/fixture-suite.js";
import { FIXTURE_NODE, nodeTestProjectFiles } from "../helpers/js-fixture-tasks.js";
import { runLab, testEnvironment, type CliResult } from "../helpers/lab.js";
import { PrHistory } from "../helpers/pr-history.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const repoDir = path.join(root, "repos", "calc");
const evalsDir = path.join(root, "evals");
const suiteDir = path.join(evalsDir, "calc");

const { "package.json": manifest, "package-lock.json": lockfile } = nodeTestProjectFiles("calc");

const MATH_BUGGY = `exports.add = (a, b) => a + b;
// The upper bound is ignored.
exports.clamp = (x, lo, hi) => Math.max(lo, x);
`;
const MATH_FIXED = `exports.add = (a, b) => a + b;
exports.clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
`;
const MATH_TEST_BASE = `const { describe, it } = require("node:test");
const assert = require("node:assert");
const { add } = require("../src/math");
describe("add", () => {
  it("adds two numbers", () => assert.strictEqual(add(2, 3), 5));
});
`;
const MATH_TEST_CLAMP = `${MATH_TEST_BASE}describe("clamp", () => {
  it("caps at the upper bound", () => assert.strictEqual(require("../src/math").clamp(50, 0, 10), 10));
  it("keeps values inside", () => assert.strictEqual(require("../src/math").clamp(5, 0, 10), 5));
});
`;

let history: PrHistory;
let gen: CliResult;

const labIn = (...args: string[]) =>
  runLab(
    [...args, "--evals-dir", evalsDir, "--runs-dir", path.join(root, "runs"), "--display", "plain"],
    { cwd: root },
  );

/** The task id gen gives a change: its pull request number, or its commit. */
function idOf(label: string): string {
  const commit = history.commits[label] ?? "";
  const pr = /#(\d+)/.exec(history.git("log", "-1", "--format=%s", commit))?.[1];
  return `calc-${pr ?? commit.slice(0, 10)}`;
}

/**
 * A JS project tested with node:test, no dependencies: two real fixes (one squash merge, one
 * merge commit with its tests in a `*.spec.js` file beside the code), a docs change, a
 * refactor whose new test passes before it, then the lockfile removed and a fix on top.
 */
function buildHistory(dir: string): PrHistory {
  const h = new PrHistory(dir);
  h.direct("root", "calc 0.1", {
    "package.json": manifest,
    "package-lock.json": lockfile,
    ".nvmrc": `${FIXTURE_NODE}\n`,
    ".gitignore": "node_modules/\n",
    "src/math.js": MATH_BUGGY,
    "test/math.test.js": MATH_TEST_BASE,
  });
  h.squash("clamp", 1, "Fix clamp ignoring the upper bound\n\nclamp(50, 0, 10) returned 50.", {
    "src/math.js": MATH_FIXED,
    "test/math.test.js": MATH_TEST_CLAMP,
  });
  h.direct("readme", "Describe clamp in the README", {
    "README.md": "# calc\n\nclamp(x, lo, hi)\n",
  });
  h.squash("refactor", 3, "Simplify add", {
    "src/math.js": MATH_FIXED.replace("(a, b) => a + b", "(a, b) => b + a"),
    "src/math.spec.js": `const { test } = require("node:test");
const assert = require("node:assert");
const { add } = require("./math");
test("add is commutative", () => assert.strictEqual(add(1, 2), add(2, 1)));
`,
  });
  h.merge("slugify", 4, "Add slugify()", [
    {
      message: "Add text.slugify",
      files: {
        "src/text.js":
          'exports.slugify = (s) => s.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-");\n',
      },
    },
    {
      message: "Test slugify",
      files: {
        "test/text.test.js": `const { test } = require("node:test");
const assert = require("node:assert");
const { slugify } = require("../src/text");
test("slugify lowercases and joins words", () => assert.strictEqual(slugify(" Hello World "), "hello-world"));
`,
      },
    },
  ]);
  h.direct("unlock", "Stop committing the lockfile", { "package-lock.json": null });
  h.squash("sub", 6, "Add sub", {
    "src/math.js": `${MATH_FIXED}exports.sub = (a, b) => a - b;\n`,
    "test/sub.test.js": `const { test } = require("node:test");
const assert = require("node:assert");
test("sub", () => assert.strictEqual(require("../src/math").sub(3, 1), 2));
`,
  });
  return h;
}

interface DroppedFile {
  kept: { id: string; commit: string; FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] }[];
  dropped: { id: string; commit: string; category: string; reason: string }[];
}
const readJson = (...parts: string[]): unknown =>
  JSON.parse(readFileSync(path.join(suiteDir, ...parts), "utf8"));

beforeAll(async () => {
  history = buildHistory(repoDir);
  gen = await labIn("gen", "--suite", "calc", "--from-repo", repoDir, "--proof-runs", "1");
}, 900_000);

describe("JavaScript and TypeScript paths", () => {
  it("counts *.test.* and *.spec.* files anywhere and __tests__ folders as tests, and JS/TS code as source", () => {
    for (const file of [
      "src/math.spec.js",
      "lib/a.test.tsx",
      "pkg/__tests__/util.ts",
      "x.test.mjs",
      "tests/test_core.py",
      "pkg/conftest.py",
    ])
      expect([file, isTestPath(file)]).toEqual([file, true]);
    for (const file of ["src/App.jsx", "src/a.tsx", "lib/b.mjs", "c.cts", "d.mts", "e.vue"])
      expect([file, isSourcePath(file)]).toEqual([file, true]);
    for (const file of ["src/testing.js", "src/contest.ts"])
      expect([file, isTestPath(file), isSourcePath(file)]).toEqual([file, false, true]);
    for (const file of ["README.md", "docs/a.ts", "package.json"])
      expect([file, isTestPath(file), isSourcePath(file)]).toEqual([file, false, false]);
  });
});

describe("mining a JS project", () => {
  it("puts a deleted JS test file in the gold patch and its replacement in the test patch", async () => {
    const h = new PrHistory(path.join(root, "repos", "moved"));
    h.direct("root", "moved 0.1", {
      "package.json": manifest,
      "src/math.js": MATH_BUGGY,
      "src/math.spec.js": MATH_TEST_BASE,
    });
    const commit = h.direct("move", "Fix clamp, tests into __tests__", {
      "src/math.js": MATH_FIXED,
      "src/math.spec.js": null,
      "src/__tests__/math.js": MATH_TEST_CLAMP,
    });
    const mined = await mineChanges({ gitDir: h.dir, branch: "main", idPrefix: "moved" });
    expect(mined.candidates).toHaveLength(1);
    const [candidate] = mined.candidates;
    expect(candidate?.commit).toBe(commit);
    expect([...(candidate?.testFiles ?? [])].sort()).toEqual([
      "src/__tests__/math.js",
      "src/math.spec.js",
    ]);
    expect(candidate?.sourceFiles).toEqual(["src/math.js"]);
    expect(listPatchFiles(candidate?.testPatch ?? "").map((f) => f.path)).toEqual([
      "src/__tests__/math.js",
    ]);
    expect(
      listPatchFiles(candidate?.goldPatch ?? "")
        .map((f) => `${f.path}${f.isDeleted ? " (deleted)" : ""}`)
        .sort(),
    ).toEqual(["src/math.js", "src/math.spec.js (deleted)"]);
  });
});

describe("lab gen --from-repo on a JavaScript project tested with node:test", () => {
  it("keeps the two fixes with a Node environment and lists from real runs", () => {
    expect(gen.stderr).not.toContain("internal error");
    expect(gen.code).toBe(0);
    const { kept } = readJson("dropped.json") as DroppedFile;
    expect(kept.map((task) => task.id).sort()).toEqual([idOf("clamp"), idOf("slugify")].sort());
    expect(readdirSync(path.join(suiteDir, "tasks")).sort()).toEqual(
      [idOf("clamp"), idOf("slugify")].sort(),
    );
    for (const id of [idOf("clamp"), idOf("slugify")]) {
      expect(readJson("oracle", id, "environment.json")).toEqual({
        kind: "node",
        node: FIXTURE_NODE,
        packageManager: "npm",
        runner: "node:test",
        env: {},
      });
    }
    expect(readJson("oracle", idOf("clamp"), "tests.json")).toEqual({
      FAIL_TO_PASS: ["test/math.test.js > clamp > caps at the upper bound"],
      PASS_TO_PASS: [
        "test/math.test.js > add > adds two numbers",
        "test/math.test.js > clamp > keeps values inside",
      ],
    });
    expect(readJson("oracle", idOf("slugify"), "tests.json")).toEqual({
      FAIL_TO_PASS: ["test/text.test.js > slugify lowercases and joins words"],
      PASS_TO_PASS: [],
    });
    const source = readJson("oracle", idOf("clamp"), "source.json") as {
      environmentNotes: string[];
    };
    expect(source.environmentNotes).toEqual([
      `Node ${FIXTURE_NODE} (.nvmrc: ${FIXTURE_NODE})`,
      "npm: npm ci from package-lock.json",
      'runner node:test: scripts["test"]: "node --test"',
    ]);
    const info = readJson("tasks", idOf("clamp"), "task.json") as {
      metadata: Record<string, unknown>;
    };
    expect(info.metadata).toMatchObject({ node: FIXTURE_NODE, runner: "node:test" });
    expect(info.metadata).not.toHaveProperty("python");
  });

  it("skips the docs change and drops the refactor and the fix without a lockfile, each with its reason", () => {
    const { dropped } = readJson("dropped.json") as DroppedFile;
    const byId = Object.fromEntries(dropped.map((drop) => [drop.id, drop]));
    expect(dropped.map((drop) => drop.id).sort()).toEqual(
      ["readme", "refactor", "unlock", "sub"].map(idOf).sort(),
    );
    expect(byId[idOf("readme")]).toMatchObject({
      category: "no_tests",
      reason: "changes no test files",
    });
    expect(byId[idOf("unlock")]).toMatchObject({ category: "no_tests" });
    expect(byId[idOf("refactor")]).toMatchObject({
      category: "passes_without_fix",
      reason:
        "no test fails before the fix: src/math.spec.js > add is commutative passes with and without it",
    });
    expect(byId[idOf("sub")]).toMatchObject({
      category: "no_environment",
      reason:
        "package.json but no lockfile of npm's at the base commit: an install would resolve the dependencies as of the grade, not of the commit",
    });
  });

  it("resolves every kept task with gold and none with noop", async () => {
    const gold = await labIn("run", "gold", "--suite", "calc", "--concurrency", "2");
    expect(gold.stderr).toMatch(/run calc-gold completed: 2\/2 resolved/);
    const noop = await labIn("run", "noop", "--suite", "calc", "--concurrency", "2");
    expect(noop.stderr).toMatch(/run calc-noop completed: 0\/2 resolved/);
  }, 600_000);
});

describe("inferring a JS project's environment", () => {
  it("drops a project whose test runner lab does not run, naming it", async () => {
    const h = new PrHistory(path.join(root, "repos", "ava"));
    const commit = h.direct("root", "ava project", {
      "package.json": JSON.stringify({ name: "x", scripts: { test: "ava" } }),
      "package-lock.json": lockfile,
      "index.js": "",
    });
    const inferred = await inferEnvironment({
      gitDir: h.dir,
      commit,
      date: h.git("show", "-s", "--format=%cI", commit),
      environment: testEnvironment(),
      cacheDir: path.join(root, "cache"),
    });
    expect(inferred).toEqual({
      ok: false,
      category: "no_environment",
      reason:
        'ava (scripts["test"]: "ava") is not supported yet: lab runs jest, vitest, mocha and node:test',
    });
  });
});

describe("a repository with both a package.json and a Python project", () => {
  it("is Python's, as before", async () => {
    const h = new PrHistory(path.join(root, "repos", "both"));
    const commit = h.direct("root", "both", {
      "pyproject.toml": pyproject("both"),
      "src/both/__init__.py": "",
      "package.json": manifest,
      "package-lock.json": lockfile,
    });
    const inferred = await inferEnvironment({
      gitDir: h.dir,
      commit,
      date: h.git("show", "-s", "--format=%cI", commit),
      environment: testEnvironment(),
      cacheDir: path.join(root, "cache"),
    });
    expect(inferred).toMatchObject({ ok: true, spec: { testCommand: "pytest -rA" } });
    expect(inferred.ok && inferred.spec.kind).toBeUndefined();
  }, 120_000);
});

describe("judging a JS project's proof runs", () => {
  it("keeps the results of the files that ran, by their `file > describe > test` ids", () => {
    expect(
      ownTests(
        {
          "test/a.test.js > a > works": "PASSED",
          "test/a.test.js > top level": "FAILED",
          "test/a.test.jsx > other file": "PASSED",
          "test/b.test.js > b": "PASSED",
        },
        ["test/a.test.js"],
      ),
    ).toEqual({ "test/a.test.js > a > works": "PASSED", "test/a.test.js > top level": "FAILED" });
  });

  it("names the cause of a failed npm install, not Node's version line", () => {
    const log = [
      "lab: installing the change: the install of the base commit failed",
      "+ npm ci",
      "npm error code E404",
      "npm error 404 Not Found - GET https://registry.npmjs.org/acme-internal - Not found",
      "npm error 404",
      "npm error A complete log of this run can be found in: /home/.npm/_logs/x.log",
      "lab: install step exited with 1",
    ].join("\n");
    expect(installFailure(log)).toBe(
      "install failed: `npm ci` failed: 404 Not Found - GET https://registry.npmjs.org/acme-internal - Not found",
    );
    const crashed = [
      "+ npm ci",
      "node:internal/modules/cjs/loader:1147",
      "  throw err;",
      "Error: Cannot find module '/cache/npm@10/bin/npm-cli.js'",
      "    at Module._resolveFilename (node:internal/modules/cjs/loader:1144:15)",
      "Node.js v20.11.1",
      "lab: install step exited with 1",
    ].join("\n");
    expect(installFailure(crashed)).toBe(
      "install failed: `npm ci` failed: Error: Cannot find module '/cache/npm@10/bin/npm-cli.js'",
    );
  });
});
