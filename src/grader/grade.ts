import { existsSync } from "node:fs";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createPhaseTimer, removeTree, type Grade, type Oracle, type Task } from "../core/index.js";
import { applyChange, readChange } from "./apply.js";
import { plantCanaries } from "./canaries.js";
import { checkoutForGrade } from "./checkout.js";
import { openGradeSession } from "./grade-session.js";
import { countCanaries, judgeTestLog, storedTestEnd, testEndOf, withLeftOut } from "./judge.js";
import {
  describePlan,
  planGrade,
  type Change,
  type GradeOptions,
  type GradingPlan,
} from "./plan.js";
import { detectJsRunnerConfigChange } from "./tamper-js.js";
import { detectTestTampering } from "./tamper.js";
import { applyTestPatch, readGradingLog, resetTestFiles } from "./test-run.js";

/** Where the base commit of pytest's or pluggy's own repository keeps its package. */
const OWN_PYTEST = ["src/_pytest", "_pytest", "src/pluggy", "pluggy"];

/** A grade and the exact diff it graded. */
export interface GradeOutcome {
  readonly grade: Grade;
  readonly patch: string;
}

/**
 * Grades a change as upstream SWE-bench does: a fresh checkout at the base commit, the change
 * applied as a diff, the project installed, the test files reset and the hidden test patch
 * applied, the named test files run, and the log parsed and judged. The plan of it all is made
 * first (`plan.ts`) and printed at the top of the log; the install steps and the tests run the
 * change's code, so they run in a sandbox, while lab's own steps run on the host.
 */
export async function gradeChange(
  task: Task,
  oracle: Oracle,
  change: Change,
  options: GradeOptions,
): Promise<GradeOutcome> {
  return executeGrade(planGrade(task, oracle, change, options), options.signal, options.onPhase);
}

/**
 * Carries out a grading plan, step by step; the scratch folder is removed unless kept.
 * `onPhase` is told each step's name as it starts (checkout, apply, install, tests, ...).
 */
export async function executeGrade(
  plan: GradingPlan,
  signal: AbortSignal | undefined,
  onPhase?: (phase: string) => void,
): Promise<GradeOutcome> {
  const timer = createPhaseTimer(onPhase);
  const { phaseMs } = timer;
  const { places } = plan;
  await mkdir(path.dirname(places.logFile), { recursive: true });

  try {
    await writeFile(places.logFile, describePlan(plan));
    await timer.timed("checkout", () => checkoutForGrade(plan, signal));
    const captured = await timer.timed("capture", () => readChange(plan));
    const { leftOut } = captured;
    if (leftOut.length > 0)
      await appendFile(places.logFile, `lab: left out of the change: ${leftOut.join("; ")}\n`);
    const patch = "patch" in captured ? captured.patch : "";
    const patchEmpty = "patch" in captured && patch.trim() === "";
    // What hidden tests cannot guard against (a new conftest.py, pytest config, an exit hook)
    // is found in the change itself; such a trial is flagged and not resolved.
    const tampering = patchEmpty
      ? []
      : detectTestTampering(patch, plan.testPatch, {
          projectIsPytest:
            plan.js === null && OWN_PYTEST.some((dir) => existsSync(path.join(places.repo, dir))),
          isJsTask: plan.js !== null,
        });

    const unresolved = (fields: Partial<Grade> & { reason: string }): GradeOutcome => ({
      grade: {
        resolved: false,
        patchApplied: false,
        patchEmpty,
        applyMethod: null,
        failToPass: Object.fromEntries(plan.failToPass.map((id) => [id, false])),
        passToPass: Object.fromEntries(plan.passToPass.map((id) => [id, false])),
        statuses: {},
        testsTimedOut: false,
        testExitCode: null,
        phaseMs,
        environmentKey: null,
        tampering,
        ...(leftOut.length === 0 ? {} : { leftOut }),
        ...fields,
        reason: withLeftOut(fields.reason, leftOut),
      },
      patch,
    });

    if ("refused" in captured)
      return unresolved({
        reason: `the work tree could not be taken as a diff: ${captured.refused}`,
      });

    const open = await openGradeSession(plan, timer, signal);
    const prepared = { key: open.key };
    // Upstream's image ran these before any prediction met the repository: the change is
    // applied over their edits, and measured against them.
    const baseline = await timer.timed("pre-install", () => open.preInstall());

    let applyMethod: string | null = null;
    if (!patchEmpty) {
      applyMethod = await timer.timed("apply", () => applyChange(plan, patch, open.gitEnv, signal));
      if (applyMethod === null) {
        return unresolved({
          environmentKey: prepared.key,
          reason:
            plan.install.preInstall.length === 0
              ? "the change did not apply to a fresh checkout of the base commit"
              : "the change did not apply to a fresh checkout of the base commit with its pre-install steps run, as upstream applies it",
        });
      }
    }
    if (applyMethod !== null && plan.js !== null)
      tampering.push(
        ...(await detectJsRunnerConfigChange(
          patch,
          plan.testPatch,
          places.repo,
          baseline,
          open.gitEnv,
        )),
      );
    const install = await open.install(baseline);

    await timer.timed("reset", () => resetTestFiles(plan, open));
    if (!(await applyTestPatch(plan, open, signal))) {
      return unresolved({
        patchApplied: applyMethod !== null,
        applyMethod,
        environmentKey: prepared.key,
        install,
        reason: "the hidden tests did not apply over the change",
      });
    }

    const canaries = await timer.timed("canaries", () =>
      plantCanaries(plan.canaries, places.repo, undefined, (line) =>
        appendFile(places.logFile, `${line}\n`),
      ),
    );
    const testRun = await open.runTests(canaries?.guard ?? null);
    const read = await readGradingLog(places.logFile);
    if ("tooLong" in read)
      return unresolved({
        patchApplied: applyMethod !== null,
        applyMethod,
        environmentKey: prepared.key,
        install,
        testExitCode: testRun.exitCode,
        reason: read.tooLong,
      });
    const verdict = judgeTestLog({
      parser: plan.parser,
      failToPass: plan.failToPass,
      passToPass: plan.passToPass,
      testRun: testEndOf(testRun, plan.limits.testMs),
      log: read.text,
      changeTampering: tampering,
      canaries,
    });
    return {
      grade: {
        resolved: verdict.resolved,
        patchApplied: applyMethod !== null,
        patchEmpty,
        applyMethod,
        failToPass: verdict.failToPass,
        passToPass: verdict.passToPass,
        statuses: verdict.statuses,
        reason: verdict.resolved ? null : withLeftOut(verdict.reason ?? "", leftOut),
        testsTimedOut: testRun.timedOut,
        testExitCode: testRun.exitCode,
        testEnd: storedTestEnd(testRun, plan.limits.testMs),
        phaseMs,
        environmentKey: prepared.key,
        install,
        tampering: verdict.tampering,
        ...(leftOut.length === 0 ? {} : { leftOut }),
        ...(canaries === null ? {} : { canaries: countCanaries(canaries) }),
      },
      patch,
    };
  } finally {
    // The change's code may have left folders it cannot be removed from; what stays is removed
    // with the trial's or the run's scratch folder.
    if (!plan.keepScratch) await removeTree(places.scratchDir);
  }
}
