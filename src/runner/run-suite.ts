import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rmdir } from "node:fs/promises";
import path from "node:path";
import {
  LabError,
  removeTree,
  SCHEMA_VERSION,
  sourceDescription,
  sourceFingerprint,
  sourceName,
  type ChangeSource,
  type Oracle,
  type Reporter,
  type RunRecord,
  type RunStatus,
  type RunSummary,
  type Task,
  type TrialResult,
} from "../core/index.js";
import {
  acquireRunLock,
  appendTrialIndex,
  readRunRecord,
  readTrialResult,
  readTrialResults,
  readTrialRows,
  runPaths,
  trialPaths,
  writeJsonAtomic,
  writeRunTasks,
  type RunPaths,
} from "../store/index.js";
import {
  builtinEvalsDir,
  evalsSearchPath,
  loadOracle,
  loadSuite,
  loadTask,
  type Suite,
} from "../suite/index.js";
import { MAX_RUN_TRIALS, type RunConfig, type TrialJob } from "./config.js";
import { localExecutor, type TrialExecutor } from "./executor.js";
import { createBudget, usd } from "./budget.js";
import { failureWarning } from "./failure-warning.js";
import { selectTasks } from "./select.js";
import { sayOnce } from "./trial.js";

/** What `runSuite` returns. */
export interface RunResult {
  readonly runId: string;
  readonly runDir: string;
  readonly status: RunStatus;
  readonly summary: RunSummary;
  /** Every finished trial of the run, this invocation's and earlier ones'. */
  readonly results: readonly TrialResult[];
}

/** A run interrupted before it started writes nothing: it fails with CANCELLED. */
function throwIfInterrupted(signal: AbortSignal, runId: string): void {
  if (!signal.aborted) return;
  throw new LabError("CANCELLED", `Run "${runId}" was interrupted before it started.`, {
    hint: "Nothing was written; run the same command again.",
  });
}

/** Refuses a run of more than MAX_RUN_TRIALS trials, before it plans any. */
function checkRunSize(config: RunConfig, tasks: number): void {
  if (tasks * config.trials <= MAX_RUN_TRIALS) return;
  throw new LabError(
    "CONFIG_INVALID",
    `Run "${config.runId}" would hold ${String(tasks * config.trials)} trials (${String(tasks)} task(s) × --trials ${String(config.trials)}); a run holds at most ${String(MAX_RUN_TRIALS)}.`,
    {
      hint: "Ask for fewer --trials, or fewer tasks (--tasks), or split the tasks over several runs (--run-id).",
    },
  );
}

/** Counts over finished trials. */
export function summarizeTrials(results: readonly TrialResult[]): RunSummary {
  const infraErrors = results.filter((result) => result.outcome.kind === "infra_error").length;
  const resolved = results.filter((result) => result.resolved === true).length;
  return {
    trials: results.length,
    resolved,
    unresolved: results.length - infraErrors - resolved,
    infraErrors,
  };
}

/** Options of `runSuite` beyond its config. */
export interface RunSuiteOptions {
  /** Where the trials are carried out; default: here, `config.concurrency` at once. */
  readonly executor?: TrialExecutor | undefined;
}

/**
 * What no trial's sandbox may show: every suite, the runs, lab's cache and the scratch root
 * (where other trials' work trees are).
 */
export function hiddenPathsOf(
  config: Pick<RunConfig, "evalsDir" | "cwd" | "runsDir" | "environment" | "scratchRoot">,
  suite: Suite,
): string[] {
  return [
    path.dirname(suite.dir),
    ...evalsSearchPath({ evalsDir: config.evalsDir, cwd: config.cwd }),
    builtinEvalsDir,
    config.runsDir,
    config.environment.cacheDir,
    config.scratchRoot,
  ];
}

/**
 * Runs a change source (a tool, or stated changes) over a suite: it loads the suite once,
 * selects the tasks, and runs a trial per task and repeat. Every check that can fail on bad
 * input (suite, tasks, oracles, the tool's readiness, a conflicting earlier run) happens before
 * anything but the run's lock is written. One process runs a run at a time (`run.lock`); a
 * second one stops with RUN_LOCKED, naming the first.
 * Rerunning with the same run id resumes: finished trials are skipped, infra errors retried.
 */
export async function runSuite(
  config: RunConfig,
  reporter: Reporter,
  signal: AbortSignal,
  options: RunSuiteOptions = {},
): Promise<RunResult> {
  const lock = await acquireRunLock(runPaths(config.runsDir, config.runId));
  try {
    if (lock.tookOverFrom !== null)
      reporter.emit({
        type: "log",
        level: "warn",
        message: `run ${config.runId}: took over the lock of lab process ${String(lock.tookOverFrom.pid)}, which is gone`,
      });
    return await runLocked(config, reporter, signal, options);
  } finally {
    await lock.release();
  }
}

/** runSuite's work, under the run's lock. */
async function runLocked(
  config: RunConfig,
  given: Reporter,
  signal: AbortSignal,
  options: RunSuiteOptions,
): Promise<RunResult> {
  const executor = options.executor ?? localExecutor;
  const reporter = sayOnce(given);
  const suite = await loadSuite(config.suite, { evalsDir: config.evalsDir, cwd: config.cwd });
  const { source } = config;
  const selection = await selectTasks(suite, {
    requested: config.taskIds,
    validOnly: config.validOnly,
    strongOnly: config.strongOnly,
    source,
  });
  for (const note of selection.notes) reporter.emit({ type: "log", ...note });
  const ids = selection.taskIds;
  checkRunSize(config, ids.length);
  const tasks: { task: Task; oracle: Oracle }[] = [];
  for (const id of ids) {
    const task = await loadTask(suite, id);
    tasks.push({ task, oracle: await loadOracle(task) });
  }
  const name = sourceName(source);
  if (source.kind === "tool") await source.tool.checkReady();
  // Where trials run must be ready (the sandbox here, or the queue) before anything is written;
  // docker may build its image first (minutes, once), and says so as it goes.
  const prepared = await executor.prepare(config, { reporter, signal });
  throwIfInterrupted(signal, config.runId);
  const toolVersion = source.kind === "tool" ? await source.tool.detectVersion() : source.version;

  const run = runPaths(config.runsDir, config.runId);
  // Under the lock, whatever this run's scratch folder holds was left by a killed process.
  const scratchDir = runScratchDir(config.scratchRoot, run);
  const left = await removeTree(scratchDir);
  if (left !== null)
    reporter.emit({
      type: "log",
      level: "warn",
      message: `could not empty ${scratchDir}: ${left.message}`,
    });
  const now = new Date().toISOString();
  const recorded = { ...config.recorded, ...prepared.recorded };
  let record: RunRecord;
  const resumed = existsSync(run.runJson);
  if (resumed) {
    const earlier = await readRunRecord(run);
    const mismatch = describeMismatch(earlier, suite.name, source);
    if (mismatch !== null) {
      throw new LabError(
        "RUN_CONFLICT",
        `Run "${config.runId}" in ${run.dir} was made ${mismatch}; resuming it with this one would mix results.`,
        {
          hint: "Pass another --run-id to start a new run, or delete that folder.",
        },
      );
    }
    // A process killed between a trial's result.json and its index line left the index short:
    // reading it through result.json rewrites it, so the resumed run appends to a whole index.
    // Best effort, as the appends are: an unreadable result.json is a trial to run again below.
    await readTrialRows(run).catch(() => undefined);
    // The run keeps the settings it was started with; each resume's are recorded beside them.
    record = {
      ...earlier,
      trials: Math.max(earlier.trials, config.trials),
      taskIds: [...new Set([...earlier.taskIds, ...ids])].sort(),
      status: "started",
      updatedAt: now,
      budgetStop: undefined,
      ...(config.label === undefined ? {} : { label: config.label }),
      resumes: [
        ...(earlier.resumes ?? []),
        { at: now, config: recorded, toolVersion, labVersion: config.labVersion },
      ],
    };
  } else {
    record = {
      schemaVersion: SCHEMA_VERSION,
      runId: config.runId,
      tool: name,
      toolVersion,
      toolFingerprint: sourceFingerprint(source),
      suite: suite.name,
      labVersion: config.labVersion,
      trials: config.trials,
      taskIds: [...ids].sort(),
      config: recorded,
      status: "started",
      createdAt: now,
      updatedAt: now,
      ...(config.label === undefined ? {} : { label: config.label }),
    };
  }

  const hiddenPaths = hiddenPathsOf(config, suite);
  const budget = createBudget(config.maxCostTotalUsd);
  const jobs: TrialJob[] = [];
  let skipped = 0;
  // A run no trial has started in reads no file to plan.
  const mayHaveDone = existsSync(run.trialsDir);
  for (const { task, oracle } of tasks) {
    throwIfInterrupted(signal, config.runId);
    for (let trial = 1; trial <= config.trials; trial++) {
      const paths = trialPaths(run, task.info.id, trial);
      const done = mayHaveDone ? await readTrialResult(paths).catch(() => null) : null;
      // Infra errors are the lab's or the environment's fault, not the tool's: try them again.
      if (done !== null && done.outcome.kind !== "infra_error") {
        skipped++;
        budget.add(done);
        continue;
      }
      jobs.push({ task, oracle, trial, paths, hiddenPaths, scratchDir });
    }
  }
  await writeJsonAtomic(run.runJson, record);
  await writeRunTasks(
    run,
    tasks.map(({ task }) => task.info),
  );
  reporter.emit({
    type: "run:start",
    runId: config.runId,
    runDir: run.dir,
    tool: name,
    toolVersion,
    label: record.label,
    suite: suite.name,
    pending: jobs.length,
    skipped,
    resumed,
  });
  for (const note of prepared.notes) reporter.emit({ type: "log", ...note });
  if (budget.isReached() && jobs.length > 0)
    reporter.emit({
      type: "log",
      level: "warn",
      message: `run ${config.runId}: the cap is reached: ${budget.describe()}; no trial starts. Rerun with a higher --max-cost-total to continue.`,
    });

  let done = 0;
  let failure: Error | null = null;
  try {
    await executor.execute(jobs, {
      config,
      run,
      record,
      toolVersion,
      reporter,
      signal,
      mayStart: budget.mayStart,
      onResult: async (result) => {
        budget.add(result);
        // The index is a cache that reports rebuild from result.json: never fail a run over it.
        await appendTrialIndex(run, result).catch(() => undefined);
        reporter.emit({ type: "trial:end", result, done: ++done, pending: jobs.length });
      },
    });
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
  }

  // Each trial removed its own scratch; the run's folder goes too (left only if it is not empty).
  await rmdir(scratchDir).catch(() => undefined);
  const stop = budget.stop();
  const status: RunStatus =
    failure !== null
      ? "failed"
      : signal.aborted
        ? "cancelled"
        : stop !== null
          ? "stopped"
          : "completed";
  await writeJsonAtomic(run.runJson, {
    ...record,
    status,
    updatedAt: new Date().toISOString(),
    ...(status === "stopped" && stop !== null ? { budgetStop: stop } : {}),
  });
  if (status === "stopped" && stop !== null)
    reporter.emit({
      type: "log",
      level: "warn",
      message: `run ${config.runId} stopped for budget: spent ${usd(stop.spentUsd)} of --max-cost-total ${usd(stop.maxCostUsd)}; ${String(stop.notStarted)} trial(s) not started. Rerun the same command with a higher --max-cost-total to continue.`,
    });
  if (budget.noneReported(done + skipped))
    reporter.emit({
      type: "log",
      level: "warn",
      message: `run ${config.runId}: no trial reported a cost; --max-cost-total counts a trial without one as $0, so it cannot stop this run.`,
    });
  const results = await readTrialResults(run);
  const summary = summarizeTrials(results);
  const warning = failureWarning(results, source, run);
  if (warning !== null)
    reporter.emit({ type: "log", level: "warn", message: `run ${config.runId}: ${warning}` });
  reporter.emit({
    type: "run:end",
    runId: config.runId,
    runDir: run.dir,
    status,
    summary,
    planned: skipped + jobs.length,
  });
  if (failure !== null) throw failure;
  return { runId: config.runId, runDir: run.dir, status, summary, results };
}

/**
 * How an earlier run differs from what would resume it, as "was made ..." goes on; null when it
 * may be resumed. Predictions are told apart by their file's contents: the same file changed
 * since is said so, naming it, as is another file.
 */
function describeMismatch(earlier: RunRecord, suite: string, source: ChangeSource): string | null {
  if (earlier.suite !== suite) return `with suite "${earlier.suite}"`;
  if (earlier.tool !== sourceName(source)) return `with tool "${earlier.tool}"`;
  if (earlier.toolFingerprint === sourceFingerprint(source)) return null;
  if (source.kind === "tool") return "with a different command line";
  const made = earlier.config.toolCommand;
  return made === sourceDescription(source)
    ? `from the predictions file ${source.origin} as it was then: it has changed since`
    : `from other predictions than ${source.origin}${typeof made === "string" ? ` (run.json: ${made})` : ""}`;
}

/**
 * The scratch folder of one run's trials under the scratch root: named by the run id and its
 * folder, so two runs folders with one run id never share it.
 */
export function runScratchDir(scratchRoot: string, run: RunPaths): string {
  const key = createHash("sha256").update(run.dir).digest("hex").slice(0, 8);
  return path.join(scratchRoot, `${path.basename(run.dir)}-${key}`);
}
