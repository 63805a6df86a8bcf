import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  errorMessage,
  isLabError,
  LabError,
  SCHEMA_VERSION,
  type Oracle,
  type Outcome,
  type Reporter,
  type Task,
  type Telemetry,
  type ToolExit,
  type TrialResult,
} from "../core/index.js";
import { checkoutTask, gradeChange, type Grade } from "../grader/index.js";
import { createEnvMarker, killProcessesByEnvMarker } from "../process/index.js";
import { writeFileAtomic, writeJsonAtomic, type TrialPaths } from "../store/index.js";
import type { RunConfig } from "./config.js";

/** One trial to do. */
export interface TrialJob {
  readonly task: Task;
  readonly oracle: Oracle;
  readonly trial: number;
  readonly paths: TrialPaths;
}

/**
 * Runs one trial: a fresh work tree, the tool under its limit, every process it left killed,
 * its change graded on a fresh checkout, and the record written atomically last.
 * Returns null when the run was interrupted: an unfinished trial leaves no result and is redone on resume.
 */
export async function runTrial(
  job: TrialJob,
  config: RunConfig,
  toolVersion: string,
  reporter: Reporter,
  signal: AbortSignal,
): Promise<TrialResult | null> {
  const { task, paths } = job;
  const startedAt = new Date();
  const phaseMs: Record<string, number> = {};
  const phase = (name: string): void => {
    reporter.emit({ type: "trial:phase", taskId: task.info.id, trial: job.trial, phase: name });
  };
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    phase(name);
    const start = performance.now();
    try {
      return await work();
    } finally {
      phaseMs[name] = Math.round(performance.now() - start);
    }
  };

  await rm(paths.dir, { recursive: true, force: true });
  await mkdir(paths.artifactsDir, { recursive: true });
  await mkdir(config.scratchRoot, { recursive: true });
  const scratch = await mkdtemp(
    path.join(config.scratchRoot, `${task.info.id}-${String(job.trial)}-`),
  );
  const workTree = path.join(scratch, "work");
  const promptFile = path.join(scratch, "prompt.txt");
  let toolExit: ToolExit | null = null;
  let telemetry: Telemetry = {};
  let grade: Grade | null = null;
  let outcome: Outcome;

  const finish = async (): Promise<TrialResult> => {
    const finishedAt = new Date();
    const result: TrialResult = {
      schemaVersion: SCHEMA_VERSION,
      runId: config.runId,
      tool: config.tool.name,
      toolVersion,
      suite: task.suite,
      taskId: task.info.id,
      trial: job.trial,
      outcome,
      resolved: outcome.kind === "infra_error" ? null : (grade?.resolved ?? false),
      patchApplied: outcome.kind === "infra_error" ? null : (grade?.patchApplied ?? false),
      patchEmpty: outcome.kind === "infra_error" ? null : (grade?.patchEmpty ?? null),
      grade,
      toolExit,
      telemetry,
      phaseMs,
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
    };
    await writeJsonAtomic(paths.result, result);
    return result;
  };

  try {
    try {
      await timed("setup", () =>
        checkoutTask(task, workTree, {
          timeoutMs: config.limits.setupMs,
          env: { PATH: config.environment.pathEnv, HOME: scratch },
          signal,
        }),
      );
    } catch (error) {
      if (signal.aborted) return null;
      outcome = { kind: "infra_error", phase: "setup", message: errorMessage(error) };
      return await finish();
    }

    await writeFile(promptFile, task.prompt);
    const marker = createEnvMarker();
    try {
      const report = await timed("tool", () =>
        config.tool.run({
          taskId: task.info.id,
          prompt: task.prompt,
          promptFile,
          workTree,
          timeoutMs: config.limits.toolMs,
          logFile: paths.toolLog,
          artifactsDir: paths.artifactsDir,
          env: { ...config.toolEnv, [marker.name]: marker.value },
          signal,
          ...(config.tool.readsOracle ? { goldPatch: job.oracle.goldPatch } : {}),
        }),
      );
      telemetry = report.telemetry;
      toolExit = { ...report.exit, strayProcesses: 0 };
    } catch (error) {
      if (signal.aborted) return null;
      outcome = {
        kind: "infra_error",
        phase: "tool",
        message: `the ${config.tool.name} adapter failed: ${errorMessage(error)}`,
      };
      return await finish();
    } finally {
      // Anything still carrying this trial's marker was left behind by the tool: a daemon
      // that escaped its process group must not live on to tamper with grading.
      const strays = await killProcessesByEnvMarker(marker.name, marker.value);
      if (toolExit !== null) toolExit = { ...toolExit, strayProcesses: strays };
    }
    if (signal.aborted) return null;

    try {
      const graded = await timed("grade", () =>
        gradeChange(
          task,
          job.oracle,
          { workTree },
          {
            scratchDir: path.join(scratch, "grade"),
            logFile: paths.graderLog,
            environment: config.environment,
            setupTimeoutMs: config.limits.setupMs,
            installTimeoutMs: config.limits.installMs,
            testTimeoutMs: config.limits.testMs,
            signal,
            keepScratch: config.keepScratch,
          },
        ),
      );
      grade = graded.grade;
      await writeFileAtomic(paths.patch, graded.patch);
    } catch (error) {
      if (wasCancelled(error, signal)) return null;
      outcome = { kind: "infra_error", phase: "grade", message: errorMessage(error) };
      return await finish();
    }

    outcome = toolExit.timedOut
      ? { kind: "tool_timeout" }
      : toolExit.exitCode === 0
        ? { kind: "graded" }
        : { kind: "tool_crashed", exitCode: toolExit.exitCode, signal: toolExit.signal };
    return await finish();
  } finally {
    if (!config.keepScratch) await rm(scratch, { recursive: true, force: true });
  }
}

/** Whether a failure is the run's interruption rather than the trial's own. */
function wasCancelled(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (isLabError(error) && error.code === "CANCELLED");
}

/** A LabError for an interrupted run. */
export function cancelledError(): LabError {
  return new LabError("CANCELLED", "The run was interrupted; finished trials are kept.", {
    hint: "Run the same command again to resume.",
  });
}
