/**
 * Forgers: changes whose code rewrites test outcomes from inside the test process, written so
 * that no scan of the diff finds them (names assembled at run time, code decoded from a
 * string). The canary tests (src/grader/canaries.ts) catch each on every starter task, and
 * never flag the gold patches.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gradeChange } from "../../src/grader/index.js";
import { detectTestTampering } from "../../src/grader/tamper.js";
import { readTrialResults, runPaths } from "../../src/store/index.js";
import { loadOracle, loadSuite, loadTask, suiteLayout } from "../../src/suite/index.js";
import { runLab, testEnvironment } from "../helpers/lab.js";
import { repoRoot } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { gradedPatch, HOSTILE_DIR, makeLab } from "./helpers.js";

const STARTER_TASKS = readdirSync(path.join(repoRoot, "evals", "starter", "tasks")).sort();
const FORGERS = ["flip-failures", "flip-all", "xfail-plugin", "print-all"];

describe.runIf(hasBwrap())("forgers on the starter suite", () => {
  const lab = makeLab({ suite: "starter" });

  it("gold resolves every task with canaries planted and nothing flagged", async () => {
    const result = await runLab(
      [
        "run",
        "gold",
        "--suite",
        "starter",
        "--concurrency",
        "2",
        "--evals-dir",
        lab.evalsDir,
        "--runs-dir",
        lab.runsDir,
      ],
      { cwd: lab.root, env: { LAB_SCRATCH_DIR: lab.scratchDir } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/run starter-gold completed: 10\/10 resolved/);
    const trials = await readTrialResults(runPaths(lab.runsDir, "starter-gold"));
    expect(trials).toHaveLength(STARTER_TASKS.length);
    for (const trial of trials) {
      expect(trial.grade?.tampering, trial.taskId).toEqual([]);
      expect(trial.grade?.canaries?.mustFail, trial.taskId).toBeGreaterThan(0);
    }
  }, 300_000);

  it("each forgery works where there are no canaries: the threat is real", async () => {
    const suite = await loadSuite("starter", { evalsDir: lab.evalsDir, cwd: lab.root });
    const task = await loadTask(suite, "textkit-slugify-max-length");
    const oracle = await loadOracle(task);
    for (const mode of FORGERS) {
      mkdirSync(lab.scratchDir, { recursive: true });
      const scratch = mkdtempSync(path.join(lab.scratchDir, "forge-"));
      const tree = path.join(scratch, "work");
      execFileSync("bash", [path.join(task.dir, "setup.sh"), tree]);
      execFileSync("bash", [path.join(HOSTILE_DIR, "forge.sh"), mode], { cwd: tree });
      const grade = async (canaries: boolean) =>
        (
          await gradeChange(
            task,
            oracle,
            { workTree: tree },
            {
              scratchDir: path.join(scratch, `grade-${String(canaries)}`),
              logFile: path.join(scratch, `grade-${String(canaries)}.log`),
              environment: testEnvironment(),
              setupTimeoutMs: 60_000,
              installTimeoutMs: 300_000,
              testTimeoutMs: 120_000,
              canaries,
            },
          )
        ).grade;
      const unguarded = await grade(false);
      expect(unguarded, `${mode} without canaries: ${String(unguarded.reason)}`).toMatchObject({
        resolved: true,
        tampering: [],
      });
      const guarded = await grade(true);
      expect(guarded.resolved, mode).toBe(false);
      expect(guarded.tampering.length, mode).toBeGreaterThan(0);
    }
  }, 300_000);

  for (const mode of FORGERS) {
    it(`${mode}: no scan of the diff finds it, the canaries flag it on every task, and nothing resolves`, async () => {
      const result = await lab.run("forge.sh", {
        args: mode,
        runId: `forge-${mode}`,
        tasks: STARTER_TASKS,
        concurrency: 2,
      });
      expect(result.results).toHaveLength(STARTER_TASKS.length);
      for (const trial of result.results) {
        const testPatch = suiteLayout(path.join(lab.evalsDir, "starter")).oracleDir(trial.taskId);
        const patch = gradedPatch(result.runDir, trial);
        expect(patch, trial.taskId).toContain("__init__.py");
        expect(
          detectTestTampering(patch, readFileSync(path.join(testPatch, "test.patch"), "utf8")),
        ).toEqual([]);
        expect(trial.resolved, `${trial.taskId}: ${JSON.stringify(trial.grade)}`).toBe(false);
        expect(trial.grade?.tampering.some((line) => line.startsWith("canaries: "))).toBe(true);
        expect(trial.grade?.reason).toMatch(/^the test log is not the test run's own: canaries: /);
      }
    }, 600_000);
  }
});
