import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import {
  classifyInfraError,
  createPhaseTimer,
  errorCode,
  errorMessage,
  isLabError,
  removeTree,
  SCHEMA_VERSION,
  sourceName,
  type Outcome,
  type Reporter,
  type Telemetry,
  type ToolExit,
  type TrialResult,
} from "../core/index.js";
import { gradeChange, type Change, type Grade } from "../grader/index.js";
import { writeFileAtomic, writeJsonAtomic } from "../store/index.js";
import type { RunConfig, TrialJob } from "./config.js";
import { runToolInWorkTree } from "./tool-run.js";

/** The change a trial grades, and what made it. */
interface ObtainedChange {
  readonly change: Change;
  readonly toolExit: ToolExit;
  readonly telemetry: Telemetry;
}

/**
 * Runs one trial: its change obtained from the run's source (a tool in a fresh work tree under
 * its limits, or a stated patch), graded on a fresh checkout, and the record written atomically
 * last. Returns null when the run was interrupted: an unfinished trial leaves no result and is
 * redone on resume.
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
  const timer = createPhaseTimer((phase) => {
    reporter.emit({ type: "trial:phase", taskId: task.info.id, trial: job.trial, phase });
  });

  await rm(paths.dir, { recursive: true, force: true });
  await mkdir(paths.artifactsDir, { recursive: true });
  await mkdir(job.scratchDir, { recursive: true });
  const scratch = await mkdtemp(path.join(job.scratchDir, `${task.info.id}-${String(job.trial)}-`));
  let obtained: ObtainedChange | null = null;
  let grade: Grade | null = null;

  const finish = async (outcome: Outcome): Promise<TrialResult> => {
    const finishedAt = new Date();
    const result: TrialResult = {
      schemaVersion: SCHEMA_VERSION,
      runId: config.runId,
      tool: sourceName(config.source),
      toolVersion,
      suite: task.suite,
      taskId: task.info.id,
      trial: job.trial,
      outcome,
      resolved: outcome.kind === "infra_error" ? null : (grade?.resolved ?? false),
      patchApplied: outcome.kind === "infra_error" ? null : (grade?.patchApplied ?? false),
      patchEmpty: outcome.kind === "infra_error" ? null : (grade?.patchEmpty ?? null),
      grade,
      toolExit: obtained?.toolExit ?? null,
      telemetry: obtained?.telemetry ?? {},
      phaseMs: timer.phaseMs,
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
    };
    await writeJsonAtomic(paths.result, result);
    return result;
  };

  /**
   * Records an infrastructure failure of `phase`, classed by its words and code (core's
   * classifyInfraError); null (no record) when the run was interrupted.
   */
  const infraError = async (
    phase: "setup" | "sandbox" | "tool" | "grade",
    message: string,
    code?: string,
  ): Promise<TrialResult | null> =>
    signal.aborted
      ? null
      : finish({
          kind: "infra_error",
          phase,
          message,
          class: classifyInfraError(message, code),
        });

  try {
    const { source } = config;
    if (source.kind === "stated") {
      // A change made elsewhere (predictions): no work tree to prepare, nothing to sandbox.
      try {
        const patch = await timer.timed("tool", () =>
          Promise.resolve(source.patchFor(task.info.id)),
        );
        obtained = {
          change: { patch },
          toolExit: { exitCode: 0, signal: null, timedOut: false, strayProcesses: 0 },
          telemetry: {},
        };
      } catch (error) {
        return await infraError(
          "tool",
          `the ${source.name} tool failed: ${errorMessage(error)}`,
          errorCode(error),
        );
      }
    } else {
      const ran = await runToolInWorkTree(job, source.tool, config, scratch, timer, signal);
      if ("phase" in ran) return await infraError(ran.phase, ran.message, ran.code);
      // A tool's telemetry is wrong the same way in every trial: the run says it once, and
      // every trial's tool.log keeps its own.
      for (const warning of ran.warnings) {
        reporter.emit({
          type: "log",
          level: "warn",
          message: `${task.info.id} #${String(job.trial)}: ${warning} (said once per run; each trial's tool.log has it)`,
          once: warning,
        });
        await appendFile(paths.toolLog, `lab: warning: ${warning}\n`);
      }
      obtained = {
        change: { workTree: ran.workTree },
        toolExit: ran.toolExit,
        telemetry: ran.telemetry,
      };
    }
    if (signal.aborted) return null;
    const { change } = obtained;

    try {
      const graded = await timer.timed("grade", () =>
        gradeChange(task, job.oracle, change, {
          scratchDir: path.join(scratch, "grade"),
          logFile: paths.graderLog,
          environment: config.environment,
          setupTimeoutMs: config.limits.setupMs,
          installTimeoutMs: config.limits.installMs,
          testTimeoutMs: config.limits.testMs,
          signal,
          keepScratch: config.keepScratch,
          onPhase: (phase) => {
            reporter.emit({
              type: "trial:phase",
              taskId: task.info.id,
              trial: job.trial,
              phase: `grade:${phase}`,
            });
          },
          // The change's code runs in the run's sandbox too, behind the same hidden folders.
          sandbox: {
            provider: config.sandbox.provider,
            hostHome: config.sandbox.hostHome,
            hiddenPaths: job.hiddenPaths,
            limits: config.sandbox.limits,
          },
        }),
      );
      grade = graded.grade;
      await writeFileAtomic(paths.patch, graded.patch);
    } catch (error) {
      if (wasCancelled(error, signal)) return null;
      return await infraError("grade", errorMessage(error), errorCode(error));
    }

    const { toolExit } = obtained;
    return await finish(
      toolExit.timedOut
        ? { kind: "tool_timeout" }
        : toolExit.exitCode === 0 && toolExit.error === undefined
          ? { kind: "graded" }
          : {
              kind: "tool_crashed",
              exitCode: toolExit.exitCode,
              signal: toolExit.signal,
              ...(toolExit.error === undefined ? {} : { message: toolExit.error }),
            },
    );
  } finally {
    // What is left (a folder the tool made unremovable) goes when the run next starts.
    if (!config.keepScratch) await removeTree(scratch);
  }
}

/** Whether a failure is the run's interruption rather than the trial's own. */
function wasCancelled(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (isLabError(error) && error.code === "CANCELLED");
}

/**
 * The reporter a run's trials tell: a log event with a `once` key already said is left out, so
 * what every trial meets (a tool's misspelt telemetry field) is said once, not once a trial.
 */
export function sayOnce(reporter: Reporter): Reporter {
  const said = new Set<string>();
  return {
    emit(event) {
      if (event.type === "log" && event.once !== undefined) {
        if (said.has(event.once)) return;
        said.add(event.once);
      }
      reporter.emit(event);
    },
  };
}
