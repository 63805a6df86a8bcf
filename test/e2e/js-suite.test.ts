import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readProofFile } from "../../src/suite/index.js";
import { writeFixtureSuite } from "../helpers/fixture-suite.js";
import { jestLockfile, jestTask, nodeTestTask } from "../helpers/js-fixture-tasks.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

// A folder name with a space: lab must not care where the suite and the runs live.
const root = path.join(tempDir(), "js suite");
const evalsDir = path.join(root, "evals");

beforeAll(async () => {
  mkdirSync(root, { recursive: true });
  writeFixtureSuite(evalsDir, "js", [
    nodeTestTask("js-node-test"),
    jestTask("js-jest", await jestLockfile()),
  ]);
}, 600_000);

const at = (...args: string[]) => [
  ...args,
  "--evals-dir",
  evalsDir,
  "--runs-dir",
  path.join(root, "runs"),
];

describe("a suite of JS tasks, end to end", () => {
  it("is proven by lab gen: gold resolves each task, and with no change it fails", async () => {
    const result = await runLab(at("gen", "--suite", "js"), { cwd: root });
    expect(result.stderr).not.toContain("NOT proven");
    expect(result.code, result.stderr).toBe(0);
    const proofs = (await readProofFile(path.join(evalsDir, "js")))?.proofs ?? [];
    expect(proofs.map((proof) => [proof.taskId, proof.valid]).sort()).toEqual([
      ["js-jest", true],
      ["js-node-test", true],
    ]);
    for (const proof of proofs) {
      expect(proof.empty.failToPass).toEqual({
        "test/add.test.js > add > adds two numbers": false,
      });
    }
  }, 600_000);

  it("is resolved by gold and not by noop", async () => {
    const gold = await runLab(at("run", "gold", "--suite", "js"), { cwd: root });
    expect(gold.stderr).toMatch(/run js-gold completed: 2\/2 resolved/);
    const noop = await runLab(at("run", "noop", "--suite", "js"), { cwd: root });
    expect(noop.stderr).toMatch(/run js-noop completed: 0\/2 resolved/);
    // The results are in each trial's grader.log, so a regrade reaches the same verdicts.
    const regraded = await runLab(at("regrade", "js-gold", "--json"), { cwd: root });
    expect(regraded.code, regraded.stderr).toBe(0);
    expect(JSON.parse(regraded.stdout)).toMatchObject({ judged: 2, skipped: 0, changes: [] });
  }, 600_000);
});
