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
  type Sandbox,
  type SandboxSpec,
  type Task,
  type Telemetry,
  type ToolExit,
  type TrialResult,
} from "../core/index.js";
import { checkoutTask, gradeChange, type Grade } from "../grader/index.js";
import { createEnvMarker, killProcessesByEnvMarker } from "../process/index.js";
import { writeFileAtomic, writeJsonAtomic, type TrialPaths } from "../store/index.js";
import { builtinEvalsDir, evalsSearchPath } from "../suite/index.js";
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
  // The prompt sits in a folder of its own, which the sandbox shows read-only.
  const inputDir = path.join(scratch, "input");
  const promptFile = path.join(inputDir, "prompt.txt");
  let toolExit: ToolExit | null = null;
  let telemetry: Telemetry = {};
  let statedPatch: string | undefined;
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

  /** Records an infrastructure failure of `phase`; null (no record) when the run was interrupted. */
  const infraError = async (
    phase: "setup" | "sandbox" | "tool" | "grade",
    message: string,
  ): Promise<TrialResult | null> => {
    if (signal.aborted) return null;
    outcome = { kind: "infra_error", phase, message };
    return finish();
  };

  try {
    if (config.tool.statedChange !== undefined) {
      // A change made elsewhere (predictions): no work tree to prepare, nothing to sandbox.
      const stated = config.tool.statedChange.bind(config.tool);
      try {
        const report = await timed("tool", () => stated(task.info.id));
        telemetry = report.telemetry;
        statedPatch = report.patch ?? "";
        toolExit = { ...report.exit, strayProcesses: 0 };
      } catch (error) {
        return await infraError(
          "tool",
          `the ${config.tool.name} tool failed: ${errorMessage(error)}`,
        );
      }
    } else {
      try {
        await timed("setup", () =>
          checkoutTask(task, workTree, {
            timeoutMs: config.limits.setupMs,
            env: { PATH: config.environment.pathEnv, HOME: scratch },
            signal,
            purpose: "tool",
          }),
        );
      } catch (error) {
        return await infraError("setup", errorMessage(error));
      }

      await mkdir(inputDir);
      await writeFile(promptFile, task.prompt);
      const marker = createEnvMarker();
      let sandbox: Sandbox;
      try {
        sandbox = await config.sandbox.provider.create(sandboxSpec(job, config, scratch, workTree));
      } catch (error) {
        return await infraError("sandbox", errorMessage(error));
      }
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
            env: {
              ...config.toolEnv,
              ...(sandbox.homeDir === undefined ? {} : { HOME: sandbox.homeDir, TMPDIR: "/tmp" }),
              [marker.name]: marker.value,
            },
            signal,
            sandbox,
            ...(config.tool.readsOracle ? { goldPatch: job.oracle.goldPatch } : {}),
          }),
        );
        telemetry = report.telemetry;
        statedPatch = report.patch;
        toolExit = { ...report.exit, strayProcesses: 0 };
      } catch (error) {
        return await infraError(
          "tool",
          `the ${config.tool.name} adapter failed: ${errorMessage(error)}`,
        );
      } finally {
        // Anything still carrying this trial's marker was left behind by the tool: a daemon
        // that escaped its process group must not live on to tamper with grading.
        const strays = await killProcessesByEnvMarker(marker.name, marker.value);
        if (toolExit !== null) toolExit = { ...toolExit, strayProcesses: strays };
        await sandbox.dispose();
      }
    }
    if (signal.aborted) return null;

    try {
      const graded = await timed("grade", () =>
        gradeChange(
          task,
          job.oracle,
          statedPatch === undefined ? { workTree } : { patch: statedPatch },
          {
            scratchDir: path.join(scratch, "grade"),
            logFile: paths.graderLog,
            environment: config.environment,
            setupTimeoutMs: config.limits.setupMs,
            installTimeoutMs: config.limits.installMs,
            testTimeoutMs: config.limits.testMs,
            signal,
            keepScratch: config.keepScratch,
            // The change's code runs in the run's sandbox too, behind the same hidden folders.
            sandbox: {
              provider: config.sandbox.provider,
              hostHome: config.sandbox.hostHome,
              hiddenPaths: hiddenFolders(job, config),
              limits: config.sandbox.limits,
            },
          },
        ),
      );
      grade = graded.grade;
      await writeFileAtomic(paths.patch, graded.patch);
    } catch (error) {
      if (wasCancelled(error, signal)) return null;
      return await infraError("grade", errorMessage(error));
    }

    outcome = toolExit.timedOut
      ? { kind: "tool_timeout" }
      : toolExit.exitCode === 0 && toolExit.error === undefined
        ? { kind: "graded" }
        : {
            kind: "tool_crashed",
            exitCode: toolExit.exitCode,
            signal: toolExit.signal,
            ...(toolExit.error === undefined ? {} : { message: toolExit.error }),
          };
    return await finish();
  } finally {
    if (!config.keepScratch) await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * What one trial's sandbox is made of: its work tree, the prompt, the tool's artifacts folder
 * and installation; and the folders the sandbox must keep out of sight (every suite, the runs,
 * lab's cache and the scratch root, where other trials' work trees are).
 */
function sandboxSpec(
  job: TrialJob,
  config: RunConfig,
  scratch: string,
  workTree: string,
): SandboxSpec {
  return {
    workTree,
    stateDir: path.join(scratch, "sandbox"),
    readOnlyPaths: [path.join(scratch, "input")],
    toolPaths: config.tool.sandboxPaths ?? [],
    writablePaths: [job.paths.artifactsDir],
    hiddenPaths: hiddenFolders(job, config),
    hostHome: config.sandbox.hostHome,
    pathEnv: config.toolEnv.PATH ?? "/usr/bin:/bin",
    network: config.sandbox.network,
    limits: config.sandbox.limits,
  };
}

/** Folders a trial's sandboxes never show: every suite, the runs, lab's cache, the scratch root. */
function hiddenFolders(job: TrialJob, config: RunConfig): string[] {
  const suiteDir = path.dirname(path.dirname(job.task.oracleDir));
  return [
    path.dirname(suiteDir),
    ...evalsSearchPath({ evalsDir: config.evalsDir, cwd: config.cwd }),
    builtinEvalsDir,
    config.runsDir,
    config.environment.cacheDir,
    config.scratchRoot,
  ];
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
