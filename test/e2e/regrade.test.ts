/**
 * Verdicts that can be judged again: a real run's trials, two of them stored with the verdict a
 * parser that cannot read their log gives (lab's own judge, run over their own grader.log with
 * the django parser, which reads no pytest output), come out of `lab regrade` with the
 * verdicts of the fresh grade: exactly those two change, and a resume leaves them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Grade, RunRecord, TrialResult } from "../../src/core/index.js";
import { judgeTestLog } from "../../src/grader/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const runDir = path.join(runsDir, "fixture-gold");
const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runsDir];
const TASKS = ["alpha", "beta", "gamma"] as const;

const resultFile = (taskId: string) => path.join(runDir, "trials", taskId, "1", "result.json");
const readResult = (taskId: string) =>
  JSON.parse(readFileSync(resultFile(taskId), "utf8")) as TrialResult;

/** What a grade would have been with a parser that cannot read its log. */
function brokenGrade(taskId: string): Grade {
  const { grade } = readResult(taskId);
  if (grade?.testEnd === undefined || grade.canaries?.planted === undefined)
    throw new Error(`${taskId}: the fresh grade lacks what a regrade reads`);
  const log = readFileSync(path.join(runDir, "trials", taskId, "1", "grader.log"), "utf8");
  const verdict = judgeTestLog({
    parser: "django",
    failToPass: Object.keys(grade.failToPass),
    passToPass: Object.keys(grade.passToPass),
    testRun: { ...grade.testEnd, exitCode: grade.testExitCode, timedOut: grade.testsTimedOut },
    log,
    changeTampering: [],
    canaries: {
      canaries: grade.canaries.planted,
      sentinel: grade.canaries.sentinel ?? "",
      guard: grade.canaries.guard ?? null,
    },
  });
  return { ...grade, ...verdict, reason: verdict.reason };
}

const fresh: Record<string, TrialResult> = {};

beforeAll(async () => {
  writeFixtureSuite(
    evalsDir,
    "fixture",
    TASKS.map((id) => addTask(id)),
  );
  const ran = await runLab(at("run", "gold", "--suite", "fixture", "--concurrency", "2"), {
    cwd: root,
  });
  expect(ran.code, ran.stderr).toBe(0);
  for (const id of TASKS) fresh[id] = readResult(id);
  for (const id of ["alpha", "beta"]) {
    const broken = brokenGrade(id);
    writeFileSync(
      resultFile(id),
      JSON.stringify({ ...readResult(id), resolved: broken.resolved, grade: broken }, null, 2),
    );
  }
}, 600_000);

/** Each tool's resolved count as `lab report --json` reads it (through the results index). */
async function reportedResolved(): Promise<unknown> {
  const report = await runLab(at("report", "--suite", "fixture", "--json"), { cwd: root });
  expect(report.code, report.stderr).toBe(0);
  return (JSON.parse(report.stdout) as { resolved: number }[])[0]?.resolved;
}

describe("lab regrade", () => {
  it("turns a broken parser's verdicts into a fresh grade's, changing exactly those trials", async () => {
    expect(fresh.alpha?.grade?.resolved).toBe(true);
    expect(readResult("alpha").grade).toMatchObject({
      resolved: false,
      reason: "the test log was rejected: no test results could be parsed from the log",
    });
    expect(await reportedResolved()).toBe(1);

    const regraded = await runLab(at("regrade", "fixture-gold"), { cwd: root });
    expect(regraded.code, regraded.stderr).toBe(0);
    expect(regraded.stdout).toContain(
      "lab: judged 3 trial(s) of run fixture-gold again from their grader.log: 2 verdict(s) changed.",
    );
    expect(regraded.stdout).toContain(
      "  alpha #1: unresolved -> resolved (every listed test passes; it was judged: the test log was rejected: no test results could be parsed from the log)",
    );

    for (const id of TASKS) expect(readResult(id)).toEqual(fresh[id]);
    expect(await reportedResolved()).toBe(3);
    const record = JSON.parse(readFileSync(path.join(runDir, "run.json"), "utf8")) as RunRecord;
    expect(record.regrades).toHaveLength(1);
    expect(record.regrades?.[0]).toMatchObject({ judged: 3, skipped: 0 });
    expect(record.regrades?.[0]?.changes.map((change) => change.taskId)).toEqual(["alpha", "beta"]);
    expect(record.regrades?.[0]?.changes[0]).toMatchObject({
      old: { resolved: false, flagged: false },
      new: { resolved: true, flagged: false, reason: null },
    });
  }, 120_000);

  it("is not undone by a resume, and changes nothing when judged again", async () => {
    const resumed = await runLab(at("run", "gold", "--suite", "fixture"), { cwd: root });
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const id of TASKS) expect(readResult(id)).toEqual(fresh[id]);
    const record = JSON.parse(readFileSync(path.join(runDir, "run.json"), "utf8")) as RunRecord;
    expect(record.resumes).toHaveLength(1);
    expect(record.regrades?.[0]?.changes).toHaveLength(2);
    expect(await reportedResolved()).toBe(3);

    const again = await runLab(at("regrade", "fixture-gold", "--json"), { cwd: root });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ judged: 3, changes: [], detailsChanged: 0 });
  }, 120_000);

  it("judges again a trial graded before lab recorded its canaries, keeping what their check found", async () => {
    const unrecorded = (grade: Grade): Grade => {
      const { mustPass, mustFail, files } = grade.canaries!;
      return { ...grade, canaries: { mustPass, mustFail, files } };
    };
    const alpha = unrecorded(brokenGrade("alpha"));
    writeFileSync(
      resultFile("alpha"),
      JSON.stringify({ ...readResult("alpha"), resolved: false, grade: alpha }),
    );
    const finding =
      "canaries: a must-fail canary was reported PASSED: tests/test_made_up.py::test_x";
    const gamma: Grade = {
      ...unrecorded(fresh.gamma!.grade!),
      resolved: false,
      tampering: [finding],
      reason: `the test log is not the test run's own: ${finding}`,
    };
    writeFileSync(
      resultFile("gamma"),
      JSON.stringify({ ...readResult("gamma"), resolved: false, grade: gamma }),
    );

    const regraded = await runLab(at("regrade", "fixture-gold", "--json"), { cwd: root });
    expect(regraded.code, regraded.stderr).toBe(0);
    const outcome = JSON.parse(regraded.stdout) as {
      judged: number;
      skipped: number;
      changes: { taskId: string }[];
    };
    expect(outcome).toMatchObject({ judged: 3, skipped: 0 });
    expect(outcome.changes.map((change) => change.taskId)).toEqual(["alpha"]);
    // Its verdict is the fresh grade's, and the canaries' results stay out of its statuses.
    expect(readResult("alpha").grade).toMatchObject({ resolved: true, reason: null });
    expect(readResult("alpha").grade?.statuses).toEqual(fresh.alpha?.grade?.statuses);
    // What the canaries found then still flags the trial.
    expect(readResult("gamma")).toMatchObject({ resolved: false, grade: { tampering: [finding] } });
  }, 120_000);
});
