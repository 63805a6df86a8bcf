import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { rmdir } from "node:fs/promises";
import path from "node:path";
import {
  LabError,
  removeTree,
  runPool,
  SCHEMA_VERSION,
  sourceFingerprint,
  sourceName,
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
} from "../suite/index.js";
import type { RunConfig, TrialJob } from "./config.js";
import { selectTasks } from "./select.js";
import { runTrial } from "./trial.js";

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

/**
 * Fails with SANDBOX_UNAVAILABLE when the sandbox cannot run here or cannot enforce a limit
 * the user asked for; otherwise returns what the run's log should say about it (a warning when
 * the trust boundary is not enforced).
 */
async function checkSandbox(
  config: RunConfig,
  reporter: Reporter,
  signal: AbortSignal,
): Promise<{ level: "info" | "warn"; message: string }[]> {
  const { provider, limits, network } = config.sandbox;
  // docker may build its image first (minutes, once): say so as it goes.
  await provider.checkReady({
    progress: (message) => {
      reporter.emit({
        type: "log",
        level: "info",
        message: `sandbox ${provider.name}: ${message}`,
      });
    },
    signal,
  });
  const enforcement = await provider.describeLimits(limits);
  if (limits.memoryMb !== null && enforcement.unenforced.includes("memory")) {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      `A memory limit of ${String(limits.memoryMb)} MiB was asked for, but lab cannot make a memory cgroup here.`,
      {
        hint: "Run lab as root or in a cgroup that delegates the memory controller (e.g. `systemd-run --user --scope -p Delegate=yes lab run ...`), or drop --memory.",
      },
    );
  }
  const notes: { level: "info" | "warn"; message: string }[] = [
    {
      level: "info",
      message: `sandbox ${provider.name} (network ${network ? "on" : "off"}); limits: ${enforcement.summary}; grading: ${provider.isolatesFilesystem ? `the change's install and tests run in ${provider.name} too (network on)` : "the change's install and tests run unconfined, on the host"}`,
    },
  ];
  if (!provider.isolatesFilesystem) {
    notes.push({
      level: "warn",
      message: `sandbox "${provider.name}": tools run on the host as you and can read the oracle, other trials and your files; the trust boundary is NOT enforced.`,
    });
  }
  if (!network && !provider.canIsolateNetwork) {
    notes.push({
      level: "warn",
      message: `network off was asked for, but sandbox "${provider.name}" cannot turn it off.`,
    });
  }
  if (enforcement.unenforced.includes("processes")) {
    notes.push({
      level: "warn",
      message:
        "the process limit is not enforced here (no writable pids cgroup); a fork bomb can reach the host.",
    });
  }
  return notes;
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
): Promise<RunResult> {
  const lock = await acquireRunLock(runPaths(config.runsDir, config.runId));
  try {
    if (lock.tookOverFrom !== null)
      reporter.emit({
        type: "log",
        level: "warn",
        message: `run ${config.runId}: took over the lock of lab process ${String(lock.tookOverFrom.pid)}, which is gone`,
      });
    return await runLocked(config, reporter, signal);
  } finally {
    await lock.release();
  }
}

/** runSuite's work, under the run's lock. */
async function runLocked(
  config: RunConfig,
  reporter: Reporter,
  signal: AbortSignal,
): Promise<RunResult> {
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
  const tasks: { task: Task; oracle: Oracle }[] = [];
  for (const id of ids) {
    const task = await loadTask(suite, id);
    tasks.push({ task, oracle: await loadOracle(task) });
  }
  const name = sourceName(source);
  if (source.kind === "tool") await source.tool.checkReady();
  // Grading runs the change's code in the run's sandbox, whatever made the change.
  const sandboxNotes = await checkSandbox(config, reporter, signal);
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
  let record: RunRecord;
  const resumed = existsSync(run.runJson);
  if (resumed) {
    const earlier = await readRunRecord(run);
    const mismatch =
      earlier.suite !== suite.name
        ? `suite "${earlier.suite}"`
        : earlier.tool !== name
          ? `tool "${earlier.tool}"`
          : earlier.toolFingerprint !== sourceFingerprint(source)
            ? "a different command line"
            : null;
    if (mismatch !== null) {
      throw new LabError(
        "RUN_CONFLICT",
        `Run "${config.runId}" in ${run.dir} was made with ${mismatch}; resuming it with this one would mix results.`,
        {
          hint: "Pass another --run-id to start a new run, or delete that folder.",
        },
      );
    }
    // The run keeps the settings it was started with; each resume's are recorded beside them.
    record = {
      ...earlier,
      trials: Math.max(earlier.trials, config.trials),
      taskIds: [...new Set([...earlier.taskIds, ...ids])].sort(),
      status: "started",
      updatedAt: now,
      ...(config.label === undefined ? {} : { label: config.label }),
      resumes: [
        ...(earlier.resumes ?? []),
        { at: now, config: config.recorded, toolVersion, labVersion: config.labVersion },
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
      config: config.recorded,
      status: "started",
      createdAt: now,
      updatedAt: now,
      ...(config.label === undefined ? {} : { label: config.label }),
    };
  }

  // What no trial's sandbox may show: every suite, the runs, lab's cache, the scratch root.
  const hiddenPaths = [
    path.dirname(suite.dir),
    ...evalsSearchPath({ evalsDir: config.evalsDir, cwd: config.cwd }),
    builtinEvalsDir,
    config.runsDir,
    config.environment.cacheDir,
    config.scratchRoot,
  ];
  const jobs: TrialJob[] = [];
  let skipped = 0;
  for (const { task, oracle } of tasks) {
    for (let trial = 1; trial <= config.trials; trial++) {
      const paths = trialPaths(run, task.info.id, trial);
      const done = await readTrialResult(paths).catch(() => null);
      // Infra errors are the lab's or the environment's fault, not the tool's: try them again.
      if (done !== null && done.outcome.kind !== "infra_error") {
        skipped++;
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
    suite: suite.name,
    pending: jobs.length,
    skipped,
    resumed,
  });
  for (const note of sandboxNotes) reporter.emit({ type: "log", ...note });

  let done = 0;
  // Held in an object: TypeScript does not see the pool's callbacks assign it.
  const state: { failure: Error | null } = { failure: null };
  const inner = new AbortController();
  const onAbort = (): void => {
    inner.abort();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // Interrupted while run.json was being written: the listener above would never fire.
  if (signal.aborted) inner.abort();
  try {
    await runPool(
      jobs,
      config.concurrency,
      async (job) => {
        reporter.emit({ type: "trial:start", taskId: job.task.info.id, trial: job.trial });
        try {
          const result = await runTrial(job, config, toolVersion, reporter, inner.signal);
          if (result !== null) {
            // The index is a cache that reports rebuild from result.json: never fail a run over it.
            await appendTrialIndex(run, result).catch(() => undefined);
            reporter.emit({ type: "trial:end", result, done: ++done, pending: jobs.length });
          }
        } catch (error) {
          // A bug or a store failure: stop taking trials, let the running ones end, and rethrow.
          state.failure ??= error instanceof Error ? error : new Error(String(error));
          inner.abort();
        }
      },
      inner.signal,
    );
  } finally {
    signal.removeEventListener("abort", onAbort);
  }

  // Each trial removed its own scratch; the run's folder goes too (left only if it is not empty).
  await rmdir(scratchDir).catch(() => undefined);
  const status: RunStatus =
    state.failure !== null ? "failed" : signal.aborted ? "cancelled" : "completed";
  await writeJsonAtomic(run.runJson, { ...record, status, updatedAt: new Date().toISOString() });
  const results = await readTrialResults(run);
  const summary = summarizeTrials(results);
  reporter.emit({ type: "run:end", runId: config.runId, runDir: run.dir, status, summary });
  if (state.failure !== null) throw state.failure;
  return { runId: config.runId, runDir: run.dir, status, summary, results };
}

/**
 * The scratch folder of one run's trials under the scratch root: named by the run id and its
 * folder, so two runs folders with one run id never share it.
 */
export function runScratchDir(scratchRoot: string, run: RunPaths): string {
  const key = createHash("sha256").update(run.dir).digest("hex").slice(0, 8);
  return path.join(scratchRoot, `${path.basename(run.dir)}-${key}`);
}
