import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError, quoteShell, type PhaseTimer, type SandboxExecResult } from "../core/index.js";
import { git, tryGit } from "../git/index.js";
import { removeInside } from "./grade-sandbox.js";
import type { OpenGrade } from "./open-grade.js";
import { TEST_OUTPUT_END, TEST_OUTPUT_START } from "./parse-log.js";
import type { GradingPlan, PythonGradingPlan } from "./plan.js";
import { runnerGuardEnv, writeRunnerGuard } from "./runner-guard.js";
import { startServices, withServices } from "./services.js";

/**
 * Puts the plan's test files back to the base commit: modified files checked out, new ones
 * removed; a renamed one is checked out under its old name and removed under its new one (which
 * the base does not have: astropy-7336's test patch renames py3_test_quantity_annotations.py).
 */
export async function resetTestFiles(
  plan: Pick<GradingPlan, "resetFiles" | "places"> & {
    readonly task: { readonly info: { readonly baseCommit: string } };
  },
  open: Pick<OpenGrade, "gitEnv">,
): Promise<void> {
  const { repo } = plan.places;
  const existing = plan.resetFiles.flatMap((file) =>
    file.isNew ? [] : [file.renamedFrom ?? file.path],
  );
  if (existing.length > 0)
    await git(["checkout", plan.task.info.baseCommit, "--", ...existing], {
      cwd: repo,
      env: open.gitEnv,
    });
  for (const file of plan.resetFiles.filter(
    (entry) => entry.isNew || entry.renamedFrom !== undefined,
  ))
    await removeInside(repo, file.path);
}

/** Applies the hidden test patch over the change; returns whether it applied. */
export async function applyTestPatch(
  plan: Pick<GradingPlan, "places" | "testPatch">,
  open: Pick<OpenGrade, "gitEnv">,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const { repo, scratchDir, logFile } = plan.places;
  const testPatchFile = path.join(scratchDir, "test.patch");
  await writeFile(testPatchFile, plan.testPatch);
  const applied = await tryGit(["apply", "-v", testPatchFile], {
    cwd: repo,
    env: open.gitEnv,
    logFile,
    signal,
  });
  return applied.exitCode === 0;
}

/**
 * Runs the plan's test command in the grade's sandbox, with its services on loopback, between
 * upstream's output markers; the log ends with upstream's exit code line. Pre-test lines run
 * first in the same shell, before the start marker as upstream's eval script has them: that
 * shell then prints the marker itself, after them. With a `guard` token, pytest or SymPy's
 * bin/test or unittest (Django's runtests.py) loads lab's runner guard (`runner-guard.ts`).
 */
export async function runHiddenTests(
  plan: PythonGradingPlan,
  open: OpenGrade,
  timer: PhaseTimer,
  signal: AbortSignal | undefined,
  guard: string | null = null,
): Promise<SandboxExecResult> {
  const { logFile, repo, scratchDir } = plan.places;
  const log = (text: string): Promise<void> => appendFile(logFile, `${text}\n`);
  const opening = `+ ${plan.testCommand}\n: '${TEST_OUTPUT_START}'`;
  if (plan.preTest.length === 0) await log(opening);
  const services = await timer.timed("services", () =>
    startServices(plan.services, { environment: plan.machine, logDir: scratchDir, signal }),
  );
  const testEnv = withServices(open.gradeEnv.testEnv, services);
  // lab's runner guard (pytest, SymPy, unittest), read-only to the tests like the services' folders.
  const style = plan.canaries.style;
  const runner = style === null || style === "js" ? "pytest" : style;
  const guardDir =
    guard === null ? null : await writeRunnerGuard(path.join(scratchDir, "lab-guard"), runner);
  const env = {
    ...open.runEnv,
    ...testEnv,
    ...(guardDir === null || guard === null
      ? {}
      : runnerGuardEnv(guardDir, guard, { ...open.runEnv, ...testEnv }, runner)),
  };
  const shown = guardDir === null ? services.pythonPath : [...services.pythonPath, guardDir];
  const testRun = await timer
    .timed("tests", () =>
      open.confinement.phase(shown, (sandbox) =>
        sandbox.exec(
          [
            "bash",
            "-c",
            testScript(plan.testCommand, plan.preTest, opening, plan.canaries.style !== null),
          ],
          {
            cwd: repo,
            env,
            timeoutMs: plan.limits.testMs,
            logFile,
            signal,
          },
        ),
      ),
    )
    .finally(() => services.stop());
  if (testRun.aborted) throw new LabError("CANCELLED", "Cancelled while running the tests.");
  await log(`: '${TEST_OUTPUT_END}'\n>>>>> Test Exit Code: ${String(testRun.exitCode)}`);
  return testRun;
}

/**
 * The test run's script: the command alone, or with pre-test lines first and the opening lines
 * printed by the shell after them, all on stdout, the stream the test runner writes its results
 * to, so the log keeps their order.
 */
export function testScript(
  testCommand: string,
  preTest: readonly string[],
  opening: string,
  joinStreams = false,
): string {
  // With canaries, stderr joins stdout in the process itself, so the log keeps the order in
  // which the test process wrote: the canaries' sentinel must come before anything printed
  // after it, whichever stream that went to.
  const join = joinStreams ? "exec 2>&1\n" : "";
  if (preTest.length === 0) return `${join}${testCommand}`;
  return `${join}${["{", ...preTest, "} 2>&1", `printf '%s\\n' ${quoteShell(opening)}`, testCommand].join("\n")}`;
}

/** The most of a grading log lab reads: the parsers need it whole, and memory is finite. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

/**
 * The grading log as text, or why it is not read: a log over MAX_LOG_BYTES was made by the
 * change's code printing, which is the change's outcome, not a failure of lab.
 */
export async function readGradingLog(
  file: string,
): Promise<{ text: string } | { tooLong: string }> {
  const { size } = await stat(file);
  if (size > MAX_LOG_BYTES)
    return {
      tooLong: `the test run printed ${String(Math.round(size / 1024 / 1024))} MB, more than the ${String(MAX_LOG_BYTES / 1024 / 1024)} MB lab reads`,
    };
  return { text: await readFile(file, "utf8") };
}
