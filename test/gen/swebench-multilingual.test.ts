import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { git as gitIn } from "../helpers/git.js";
import { FIXTURE_NODE } from "../helpers/js-fixture-tasks.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const mirrors = path.join(root, "mirrors");
const repoDir = path.join(mirrors, "acme", "calc");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const suiteDir = path.join(evalsDir, "swebench-multilingual");
const git = (...args: string[]) => gitIn(repoDir, ...args);
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(repoDir, file)), { recursive: true });
  writeFileSync(path.join(repoDir, file), text);
};

/**
 * The project's own test runner: TAP lines as mocha's `-R tap` prints them (`ok N describe
 * title`), which upstream's parse_log_tap reads; exit 1 when a test failed.
 */
const RUNNER = `let n = 0, failed = 0;
const scope = [];
globalThis.describe = (name, body) => { scope.push(name); body(); scope.pop(); };
globalThis.it = (name, body) => {
  const title = [...scope, name].join(" ");
  try { body(); console.log("ok " + ++n + " " + title); }
  catch (error) { failed++; console.log("not ok " + ++n + " " + title); }
};
for (const file of process.argv.slice(2)) require(require("path").resolve(file));
console.log("1.." + n);
process.exitCode = failed > 0 ? 1 : 0;
`;

/** The build copies src/ to dist/, which the tests load: a change to src/ reaches them only through it. */
const BUILD = `const fs = require("fs");
fs.mkdirSync("dist", { recursive: true });
for (const file of fs.readdirSync("src")) fs.copyFileSync("src/" + file, "dist/" + file);
`;

const TEST_ZERO = `const assert = require("assert");
const { add } = require("../dist/add");
describe("calc", () => {
  it("keeps zero", () => assert.strictEqual(add(0, 0), 0));
});
`;
const TEST_BOTH = TEST_ZERO.replace(
  "});\n",
  '  it("adds two numbers", () => assert.strictEqual(add(2, 3), 5));\n});\n',
);

/** Upstream's specs, in the format of lab's specs-javascript.json: acme/calc and acme/gizmo (no mirror). */
function specsFile(): string {
  const version = (id: string) => ({
    instance_id: id,
    docker_specs: { node_version: FIXTURE_NODE, _variant: "js_2" },
    install: ["npm install"],
    build: ["npm run build"],
    test_cmd: ["node test/run.js test/calc.test.js"],
  });
  const repo = (versions: Record<string, unknown>) => ({
    language: "javascript",
    upstreamTable: "SPECS_ACME",
    log_parser: "parse_log_tap",
    eval_type: "pass_and_fail",
    testFramework: "its own runner, TAP",
    versions,
  });
  const file = path.join(root, "specs.json");
  writeFileSync(
    file,
    JSON.stringify({
      provenance: { writtenBy: "test" },
      defaultDockerSpecs: { node_version: "21.6.2", ubuntu_version: "22.04" },
      dockerVariants: { js_2: { from: "ubuntu:22.04" } },
      repos: {
        "acme/calc": repo({ "1": version("acme__calc-1"), "2": version("acme__calc-2") }),
        "acme/gizmo": repo({ "3": version("acme__gizmo-3") }),
      },
    }),
  );
  return file;
}

let base = "";
let goldPatch = "";
let gen: Awaited<ReturnType<typeof runLab>>;
const specs = path.join(root, "specs.json");
const at = (...argv: string[]) => [...argv, "--evals-dir", evalsDir, "--runs-dir", runsDir];

beforeAll(async () => {
  mkdirSync(repoDir, { recursive: true });
  git("init", "-q", "-b", "main");
  const lock = {
    name: "calc",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: "calc", version: "1.0.0" } },
  };
  write(
    "package.json",
    `${JSON.stringify({ name: "calc", version: "1.0.0", private: true, scripts: { build: "node build.js" } }, null, 2)}\n`,
  );
  write("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
  write(".gitignore", "node_modules/\ndist/\n");
  write("build.js", BUILD);
  write("test/run.js", RUNNER);
  write("src/add.js", "exports.add = (a, b) => a - b;\n");
  write("test/calc.test.js", TEST_ZERO);
  git("add", "-A");
  git("commit", "-qm", "calc 1.0");
  base = git("rev-parse", "HEAD");
  write("src/add.js", "exports.add = (a, b) => a + b;\n");
  write("test/calc.test.js", TEST_BOTH);
  git("add", "-A");
  git("commit", "-qm", "fix add");
  goldPatch = `${git("diff", base, "HEAD", "--", "src")}\n`;
  const testPatch = `${git("diff", base, "HEAD", "--", "test")}\n`;
  const row = (id: string, repo: string, version: string, failToPass: string[]) => ({
    instance_id: id,
    repo,
    base_commit: base,
    patch: goldPatch,
    test_patch: testPatch,
    problem_statement: "add() subtracts: add(2, 3) is -1.",
    hints_text: "",
    created_at: "2024-07-22T09:22:26",
    version,
    FAIL_TO_PASS: failToPass,
    PASS_TO_PASS: ["calc keeps zero"],
  });
  const dataset = path.join(root, "multilingual.jsonl");
  writeFileSync(
    dataset,
    [
      // Named as upstream's TAP parser names it: describe and title joined, no path.
      row("acme__calc-1", "acme/calc", "1", ["calc adds two numbers"]),
      // lab's own reporters would name it `test/calc.test.js > calc > adds two numbers`.
      row("acme__calc-2", "acme/calc", "2", ["test/calc.test.js > calc > adds two numbers"]),
      row("acme__gizmo-3", "acme/gizmo", "3", ["calc adds two numbers"]),
      row("gin-gonic__gin-1", "gin-gonic/gin", "1", ["TestX"]),
    ]
      .map((line) => JSON.stringify(line))
      .join("\n"),
  );
  specsFile();
  gen = await runLab(
    at(
      "gen",
      "--suite",
      "swebench-multilingual",
      "--dataset",
      dataset,
      "--specs",
      specs,
      "--mirrors",
      mirrors,
      "--display",
      "plain",
    ),
    { cwd: root },
  );
}, 600_000);

describe("lab gen --suite swebench-multilingual", () => {
  it("keeps the instance upstream's commands prove, and lists every other with its reason", () => {
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stdout).toContain(
      "swebench-multilingual: 1 kept, 1 dropped, 1 not proven on this machine (no mirror)",
    );
    expect(readdirSync(path.join(suiteDir, "tasks"))).toEqual(["acme__calc-1"]);
    const { dropped } = JSON.parse(readFileSync(path.join(suiteDir, "dropped.json"), "utf8")) as {
      dropped: { instance_id: string; category: string; reason: string }[];
    };
    const reasons = Object.fromEntries(
      dropped.map((drop) => [drop.instance_id, `${drop.category}: ${drop.reason}`]),
    );
    // lab's reporters' id is not what upstream's parser reads: the test is missing there.
    expect(reasons["acme__calc-2"]).toBe(
      "gold_fails: gold fails 1 test(s): test/calc.test.js > calc > adds two numbers (missing)",
    );
    expect(reasons["acme__gizmo-3"]).toBe(
      `no_mirror: not proven on this machine: no mirror of acme/gizmo in ${mirrors}`,
    );
    expect(reasons["gin-gonic__gin-1"]).toMatch(
      /^out_of_scope: SWE-bench Multilingual's gin-gonic\/gin is Go, which lab does not support on this machine: /,
    );
  });

  it("writes upstream's commands and parser, with an exact Node, into environment.json", () => {
    const spec = JSON.parse(
      readFileSync(path.join(suiteDir, "oracle", "acme__calc-1", "environment.json"), "utf8"),
    ) as unknown;
    expect(spec).toEqual({
      kind: "node",
      node: FIXTURE_NODE,
      runner: "mocha",
      env: {},
      upstream: {
        install: ["npm install"],
        build: ["npm run build"],
        testCommands: ["node test/run.js test/calc.test.js"],
        logParser: "tap",
      },
    });
  });

  it("proves it by upstream's commands: the build runs again after the test patch, and the log is read by the TAP parser", () => {
    const log = readFileSync(
      path.join(suiteDir, ".cache", "proof-logs", "run1", "acme__calc-1.gold.log"),
      "utf8",
    );
    expect(log).toContain("#   parser: upstream's parse_log_tap; 1 FAIL_TO_PASS, 1 PASS_TO_PASS");
    expect(log).toContain("#   canaries: js canaries in 1 hidden test module(s)");
    expect(log).toContain(
      "install: upstream's npm install && npm run build (over package-lock.json)",
    );
    expect(log).toMatch(
      /\+ npm run build\n[\s\S]*lab: the build after the test patch exited with 0\n/,
    );
    // The instance's two tests among the canaries (one to three more lines), all read by TAP.
    expect(log).toMatch(
      /\+ \(node test\/run\.js test\/calc\.test\.js\) \| cat\n: '>>>>> Start Test Output'\n((not )?ok \d+ calc .*\n){3,6}1\.\.\d\n: '>>>>> End Test Output'/,
    );
    expect(log).toMatch(/\nok \d calc keeps zero\n/);
    expect(log).toMatch(/\nok \d calc adds two numbers\n/);
    const empty = readFileSync(
      path.join(suiteDir, ".cache", "proof-logs", "run1", "acme__calc-1.empty.log"),
      "utf8",
    );
    expect(empty).toMatch(/\nnot ok \d calc adds two numbers\n/);
  });

  it("lab run gold resolves it and lab run noop does not", async () => {
    const gold = await runLab(
      at("run", "gold", "--suite", "swebench-multilingual", "--display", "plain"),
      { cwd: root },
    );
    expect(gold.code, gold.stderr).toBe(0);
    expect(gold.stderr).toMatch(/completed: 1\/1 resolved/);
    const noop = await runLab(
      at("run", "noop", "--suite", "swebench-multilingual", "--display", "plain"),
      { cwd: root },
    );
    expect(noop.code, noop.stderr).toBe(0);
    expect(noop.stderr).toMatch(/completed: 0\/1 resolved/);
  }, 300_000);

  it("lab run predictions grades a prediction by upstream's commands", async () => {
    const file = path.join(root, "preds.jsonl");
    const prediction = (name: string, patch: string) =>
      JSON.stringify({ instance_id: "acme__calc-1", model_name_or_path: name, model_patch: patch });
    writeFileSync(file, `${prediction("org/right", goldPatch)}\n`);
    const run = await runLab(
      at("run", "predictions", "--suite", "swebench-multilingual", "--predictions", file),
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/completed: 1\/1 resolved/);
    const wrong = goldPatch.replace(
      "+exports.add = (a, b) => a + b;",
      "+exports.add = (a, b) => a * b;",
    );
    writeFileSync(file, `${prediction("org/wrong", wrong)}\n`);
    const again = await runLab(
      at("run", "predictions", "--suite", "swebench-multilingual", "--predictions", file),
      { cwd: root },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/completed: 0\/1 resolved/);
  }, 300_000);

  it("flags a forger whose code makes every test pass: its canaries, named by upstream's TAP ids, pass too", async () => {
    // No fix at all: the module swallows every failing assertion of the tests loaded after it.
    const forger = [
      "diff --git a/src/add.js b/src/add.js",
      "--- a/src/add.js",
      "+++ b/src/add.js",
      "@@ -1 +1,3 @@",
      " exports.add = (a, b) => a - b;",
      "+const it = globalThis.it;",
      "+globalThis.it = (name, body) => it(name, () => { try { body(); } catch {} });",
      "",
    ].join("\n");
    const file = path.join(root, "forger.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ instance_id: "acme__calc-1", model_name_or_path: "org/forger", model_patch: forger })}\n`,
    );
    const run = await runLab(
      at(
        "run",
        "predictions",
        "--suite",
        "swebench-multilingual",
        "--predictions",
        file,
        "--run-id",
        "forger",
      ),
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/completed: 0\/1 resolved/);
    const trial = JSON.parse(
      readFileSync(
        path.join(runsDir, "forger", "trials", "acme__calc-1", "1", "result.json"),
        "utf8",
      ),
    ) as { grade: { failToPass: Record<string, boolean>; tampering: string[] } };
    // The forgery worked on the instance's own test: only the canaries tell.
    expect(trial.grade.failToPass).toEqual({ "calc adds two numbers": true });
    expect(trial.grade.tampering).toContainEqual(
      expect.stringMatching(/^canaries: a test that must fail was reported as passing \(/),
    );
  }, 300_000);
});
