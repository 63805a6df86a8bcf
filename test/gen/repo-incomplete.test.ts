/**
 * `lab gen --from-repo` on a copy of a repository that lacks some blobs (a snapshot made without
 * its large files): a candidate whose base commit's tree needs a missing blob is dropped with a
 * reason naming the file; one that needs it only in its older history gets that history cut at
 * the commit that deleted it; the others are proven as usual.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_NODE, nodeTestProjectFiles } from "../helpers/js-fixture-tasks.js";
import { readTrialResults, runPaths } from "../../src/store/index.js";
import { runLab, type CliResult } from "../helpers/lab.js";
import { PrHistory } from "../helpers/pr-history.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const repoDir = path.join(root, "repos", "calc");
const evalsDir = path.join(root, "evals");
const suiteDir = path.join(evalsDir, "calc");

const { "package.json": manifest, "package-lock.json": lockfile } = nodeTestProjectFiles("calc");
const test = (body: string): string =>
  `const { test } = require("node:test");\nconst assert = require("node:assert");\n${body}`;

let history: PrHistory;
let gen: CliResult;
let missingBlob = "";

beforeAll(async () => {
  const h = new PrHistory(repoDir);
  h.direct("root", "calc 0.1", {
    "package.json": manifest,
    "package-lock.json": lockfile,
    ".nvmrc": `${FIXTURE_NODE}\n`,
    "src/math.js": "exports.add = (a, b) => a - b;\n",
    "test/add.test.js": test(""),
  });
  h.squash("add", 1, "Fix add subtracting", {
    "src/math.js": "exports.add = (a, b) => a + b;\n",
    "test/add.test.js": test(
      'test("add", () => assert.strictEqual(require("../src/math").add(2, 3), 5));\n',
    ),
  });
  h.direct("data", "Add the sample data", { "data/sample.csv": "a,b\n1,2\n" });
  h.squash("mul", 3, "Add mul", {
    "src/math.js": "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\n",
    "test/mul.test.js": test(
      'test("mul", () => assert.strictEqual(require("../src/math").mul(2, 3), 6));\n',
    ),
  });
  h.direct("drop-data", "Remove the sample data", { "data/sample.csv": null });
  h.squash("sub", 5, "Add sub", {
    "src/math.js":
      "exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\nexports.sub = (a, b) => a - b;\n",
    "test/sub.test.js": test(
      'test("sub", () => assert.strictEqual(require("../src/math").sub(3, 1), 2));\n',
    ),
  });
  history = h;
  // The copy lost the data file's blob, as a snapshot that leaves large files out does.
  missingBlob = h.git("rev-parse", `${h.commits.data ?? ""}:data/sample.csv`);
  rmSync(path.join(repoDir, ".git", "objects", missingBlob.slice(0, 2), missingBlob.slice(2)));
  gen = await runLab(
    [
      "gen",
      "--suite",
      "calc",
      "--from-repo",
      repoDir,
      "--proof-runs",
      "1",
      "--evals-dir",
      evalsDir,
      "--runs-dir",
      path.join(root, "runs"),
      "--display",
      "plain",
    ],
    { cwd: root },
  );
}, 600_000);

describe("a mined repository that lacks a blob", () => {
  it("drops the candidate whose base's tree needs it, naming the file, and keeps the others", () => {
    expect(gen.code, gen.stderr).toBe(0);
    const dropped = JSON.parse(readFileSync(path.join(suiteDir, "dropped.json"), "utf8")) as {
      dropped: { id: string; category: string; reason: string }[];
    };
    const base = history.git("rev-parse", `${history.commits.mul ?? ""}~1`);
    expect(dropped.dropped).toContainEqual({
      id: "calc-3",
      commit: history.commits.mul,
      subject: expect.any(String) as string,
      category: "incomplete_repository",
      reason: `lab's copy of calc lacks 1 object(s) the base commit ${base.slice(0, 10)} needs, among them data/sample.csv of its own tree: the copy it was cloned from is incomplete.`,
    });
    const tasks = (
      JSON.parse(readFileSync(path.join(suiteDir, "dropped.json"), "utf8")) as {
        kept: { id: string }[];
      }
    ).kept.map((task) => task.id);
    expect(tasks.sort()).toEqual(["calc-1", "calc-5"]);
  });

  it("cuts the history of a base that needs it only in older history at the commit that deleted it", () => {
    const source = JSON.parse(
      readFileSync(path.join(suiteDir, "oracle", "calc-5", "source.json"), "utf8"),
    ) as { environmentNotes: string[] };
    const cutAt = history.commits["drop-data"] ?? "";
    expect(source.environmentNotes).toContainEqual(
      `history starts at ${cutAt.slice(0, 10)}: lab's copy of the repository lacks objects of the history before (their deletion)`,
    );
    const tree = path.join(root, "work-5");
    execFileSync("bash", [path.join(suiteDir, "tasks", "calc-5", "setup.sh"), tree]);
    const log = execFileSync("git", ["-C", tree, "log", "--format=%H"], { encoding: "utf8" });
    // The base (the commit that deleted the data) and nothing before it.
    expect(log.trim().split("\n")).toEqual([cutAt]);
    expect(readFileSync(path.join(tree, "src", "math.js"), "utf8")).toContain("exports.mul");
  });

  it("grades the kept tasks: gold resolves both, noop neither", async () => {
    for (const [tool, resolved] of [
      ["gold", true],
      ["noop", false],
    ] as const) {
      const run = await runLab(
        [
          "run",
          tool,
          "--suite",
          "calc",
          "--evals-dir",
          evalsDir,
          "--runs-dir",
          path.join(root, "runs"),
        ],
        { cwd: root },
      );
      expect(run.code, run.stderr).toBe(0);
      const trials = await readTrialResults(runPaths(path.join(root, "runs"), `calc-${tool}`));
      expect(trials.map((trial) => [trial.taskId, trial.resolved]).sort()).toEqual([
        ["calc-1", resolved],
        ["calc-5", resolved],
      ]);
    }
  }, 600_000);
});
