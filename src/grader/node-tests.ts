import { appendFile, readFile, realpath, rm } from "node:fs/promises";
import { LabError, type PhaseTimer, type SandboxExecResult } from "../core/index.js";
import { jsResultsBlock, readJsResultsLog } from "./js/index.js";
import type { NodeOpenGrade } from "./node-open.js";
import { TEST_OUTPUT_END, TEST_OUTPUT_START } from "./parse-log.js";
import type { NodeGradingPlan } from "./plan.js";

/**
 * Runs a Node plan's test command (only the hidden test files, with the runner's
 * machine-readable reporter: `jsTestCommand`) in the grade's sandbox with the task's Node first
 * on PATH, between upstream's output markers, then copies the results file into the log after
 * the exit code line (`js/results-log.ts`), where the judge reads it. A plan with upstream's
 * commands runs those instead (`runUpstreamTests`).
 */
export async function runNodeTests(
  plan: NodeGradingPlan,
  open: NodeOpenGrade,
  timer: PhaseTimer,
  signal: AbortSignal | undefined,
): Promise<SandboxExecResult> {
  const { logFile, repo } = plan.places;
  const { runner, resultsPath, upstream } = plan.js;
  const log = (text: string): Promise<void> => appendFile(logFile, `${text}\n`);
  if (upstream !== null) return runUpstreamTests(plan, open, timer, signal);
  await rm(resultsPath, { force: true });
  await log(`+ ${plan.testCommand}\n: '${TEST_OUTPUT_START}'`);
  const testRun = await timer.timed("tests", () =>
    execInGrade(plan, open, plan.testCommand, plan.limits.testMs, signal),
  );
  if (testRun.aborted) throw new LabError("CANCELLED", "Cancelled while running the tests.");
  await log(`: '${TEST_OUTPUT_END}'\n>>>>> Test Exit Code: ${String(testRun.exitCode)}`);
  const text = await readFile(resultsPath, "utf8").catch(() => null);
  // The runners write absolute paths, as they saw the checkout: its real path.
  const block = jsResultsBlock(runner, await realpath(repo), text);
  await appendFile(logFile, block);
  const read = readJsResultsLog(block);
  if ("problem" in read) await log(`lab: the ${runner} results cannot be read: ${read.problem}`);
  return testRun;
}

/** A bash script in the grade's checkout and sandbox, with the grade's environment, into its log. */
function execInGrade(
  plan: NodeGradingPlan,
  open: NodeOpenGrade,
  script: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<SandboxExecResult> {
  return open.confinement.phase([], (sandbox) =>
    sandbox.exec(["bash", "-c", script], {
      cwd: plan.places.repo,
      env: open.runEnv,
      timeoutMs,
      logFile: plan.places.logFile,
      signal,
    }),
  );
}

/**
 * Upstream's eval script, after the test patch: the build again (its exit status logged; like
 * upstream's script, the tests run whatever it returned), then the test commands between the
 * output markers. The log is read by the spec's upstream parser; no results file.
 */
async function runUpstreamTests(
  plan: NodeGradingPlan,
  open: NodeOpenGrade,
  timer: PhaseTimer,
  signal: AbortSignal | undefined,
): Promise<SandboxExecResult> {
  const log = (text: string): Promise<void> => appendFile(plan.places.logFile, `${text}\n`);
  const exec = (script: string, timeoutMs: number): Promise<SandboxExecResult> =>
    execInGrade(plan, open, script, timeoutMs, signal);
  if (plan.preTest.length > 0) {
    await log(`+ ${plan.preTest.join("\n+ ")}`);
    const build = await timer.timed("build", () =>
      exec(plan.preTest.join("\n"), plan.limits.installMs),
    );
    if (build.aborted) throw new LabError("CANCELLED", "Cancelled while building the project.");
    await log(
      `lab: the build after the test patch ${build.timedOut ? "timed out" : `exited with ${String(build.exitCode)}`}`,
    );
  }
  await log(`+ ${plan.testCommand.split("\n").join("\n+ ")}\n: '${TEST_OUTPUT_START}'`);
  const testRun = await timer.timed("tests", () => exec(plan.testCommand, plan.limits.testMs));
  if (testRun.aborted) throw new LabError("CANCELLED", "Cancelled while running the tests.");
  await log(`: '${TEST_OUTPUT_END}'\n>>>>> Test Exit Code: ${String(testRun.exitCode)}`);
  return testRun;
}
