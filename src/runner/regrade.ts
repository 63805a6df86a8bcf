import { existsSync } from "node:fs";
import {
  errorMessage,
  LabError,
  type Grade,
  type RunRegrade,
  type TrialResult,
  type VerdictChange,
} from "../core/index.js";
import {
  readGradingLog,
  rejudgeGrade,
  testLogParserOf,
  type RejudgeInput,
} from "../grader/index.js";
import {
  acquireRunLock,
  readRunRecord,
  readTrialResults,
  rewriteTrialIndex,
  runPaths,
  trialPaths,
  writeJsonAtomic,
} from "../store/index.js";
import { loadOracle, loadSuite, loadTask, type Suite } from "../suite/index.js";

/** Where `regradeRun` finds the run and its suite. */
export interface RegradeOptions {
  readonly runsDir: string;
  readonly runId: string;
  /** The suites folder and the working folder, as `lab run` finds suites. */
  readonly evalsDir: string | undefined;
  readonly cwd: string;
  readonly labVersion: string;
}

/** What `regradeRun` did. */
export interface RegradeResult extends RunRegrade {
  readonly runId: string;
  readonly runDir: string;
  /** Trials not judged again, and why. */
  readonly notJudged: readonly {
    readonly taskId: string;
    readonly trial: number;
    readonly why: string;
  }[];
  /** Trials whose stored grade changed in its details (statuses, reason) but not its verdict. */
  readonly detailsChanged: number;
}

function verdictOf(grade: Grade): VerdictChange["old"] {
  return { resolved: grade.resolved, flagged: grade.tampering.length > 0, reason: grade.reason };
}

/**
 * Judges every graded trial of a run again from its stored grader.log with today's parsers,
 * grading rules and canary checks, and the task's test lists as its suite has them now;
 * nothing runs. Changed grades are written back to their result.json (each atomically), then
 * the results index in one rename, then run.json records the regrade with every changed verdict.
 * Holds the run's lock throughout, so no run or resume writes beside it; a later resume skips
 * these trials as finished, so it never undoes a regrade.
 */
export async function regradeRun(options: RegradeOptions): Promise<RegradeResult> {
  const run = runPaths(options.runsDir, options.runId);
  if (!existsSync(run.runJson))
    throw new LabError("RUN_NOT_FOUND", `No run "${options.runId}" in ${options.runsDir}.`, {
      hint: "Name a folder of the runs folder (lab report --suite S lists the runs it reads), or pass --runs-dir.",
    });
  const lock = await acquireRunLock(run);
  try {
    const record = await readRunRecord(run);
    const suite = await loadSuite(record.suite, { evalsDir: options.evalsDir, cwd: options.cwd });
    const notJudged: { taskId: string; trial: number; why: string }[] = [];
    const changes: VerdictChange[] = [];
    const rewritten: TrialResult[] = [];
    let judged = 0;
    let detailsChanged = 0;
    for (const result of await readTrialResults(run)) {
      const { grade } = result;
      if (grade === null) continue; // an infra error: no verdict to judge again
      const skip = (why: string): void => {
        notJudged.push({ taskId: result.taskId, trial: result.trial, why });
      };
      const lists = await listsOf(suite, result.taskId);
      if ("missing" in lists) {
        skip(lists.missing);
        continue;
      }
      const logFile = trialPaths(run, result.taskId, result.trial).graderLog;
      if (!existsSync(logFile)) {
        skip("its grader.log is gone");
        continue;
      }
      const again = rejudgeGrade(grade, await readGradingLog(logFile), lists);
      if ("skipped" in again) {
        skip(again.skipped);
        continue;
      }
      judged++;
      if (JSON.stringify(again.grade) === JSON.stringify(grade)) continue;
      rewritten.push({ ...result, resolved: again.grade.resolved, grade: again.grade });
      const before = verdictOf(grade);
      const after = verdictOf(again.grade);
      if (before.resolved === after.resolved && before.flagged === after.flagged) {
        detailsChanged++;
        continue;
      }
      changes.push({
        taskId: result.taskId,
        trial: result.trial,
        old: before,
        new: after,
        why: after.reason ?? `every listed test passes; it was judged: ${String(before.reason)}`,
      });
    }
    for (const result of rewritten)
      await writeJsonAtomic(trialPaths(run, result.taskId, result.trial).result, result);
    if (rewritten.length > 0) await rewriteTrialIndex(run);
    const regrade: RunRegrade = {
      at: new Date().toISOString(),
      labVersion: options.labVersion,
      judged,
      skipped: notJudged.length,
      changes,
    };
    await writeJsonAtomic(run.runJson, {
      ...record,
      regrades: [...(record.regrades ?? []), regrade],
    });
    return { ...regrade, runId: options.runId, runDir: run.dir, notJudged, detailsChanged };
  } finally {
    await lock.release();
  }
}

/** A task's test lists and parser as its suite has them now, or why there are none. */
async function listsOf(suite: Suite, taskId: string): Promise<RejudgeInput | { missing: string }> {
  try {
    const oracle = await loadOracle(await loadTask(suite, taskId));
    return {
      parser: testLogParserOf(oracle.environment),
      failToPass: oracle.failToPass,
      passToPass: oracle.passToPass,
    };
  } catch (error) {
    return { missing: `its task is not in suite "${suite.name}" any more: ${errorMessage(error)}` };
  }
}
