import { LabError } from "../core/index.js";
import {
  listRuns,
  readRunLock,
  readRunTasks,
  readTrialRows,
  type RunPaths,
  type RunTasks,
} from "../store/index.js";
import type { ReportRun } from "./model.js";
import { nameRuns, selectRuns } from "./runs.js";

/** A run chosen for a report, with where it lives. */
export interface LoadedRun extends ReportRun {
  readonly paths: RunPaths;
}

/** What a report reads from the store. */
export interface LoadedReport {
  readonly runs: readonly LoadedRun[];
  /** Task facts merged over the runs (later runs win). */
  readonly tasks: RunTasks;
}

/**
 * Reads the runs a suite report shows (the ones named, else the latest completed run of each
 * tool, see runs.ts), their trials through the results index, and their task facts. Only the
 * store is read.
 */
export async function loadReport(
  runsDir: string,
  suite: string,
  runIds?: readonly string[],
): Promise<LoadedReport> {
  const all = await listRuns(runsDir);
  const chosen = selectRuns(all, suite, runIds);
  const missing = (runIds ?? []).filter((id) => !chosen.some(({ run }) => run.record.runId === id));
  if (missing.length > 0) {
    throw new LabError(
      "RUN_NOT_FOUND",
      `No run ${missing.map((id) => `"${id}"`).join(", ")} of suite "${suite}" in ${runsDir}.`,
      {
        hint: `Runs of "${suite}" there: ${
          all
            .filter((run) => run.record.suite === suite)
            .map((run) => run.record.runId)
            .join(", ") || "none"
        }.`,
      },
    );
  }
  if (chosen.length === 0) {
    throw new LabError("RUN_NOT_FOUND", `No runs of suite "${suite}" in ${runsDir}.`, {
      hint: `Start one with \`lab run gold --suite ${suite}\`.`,
    });
  }
  // Named among every run of the suite, so a run named with --run-id, or added later, does not
  // rename another.
  const names = nameRuns(
    chosen.map(({ run }) => run.record),
    all.filter((run) => run.record.suite === suite).map((run) => run.record),
  );
  const runs: LoadedRun[] = [];
  let tasks: RunTasks = {};
  for (const [index, { run, note }] of chosen.entries()) {
    runs.push({
      record: run.record,
      paths: run.paths,
      trials: await readTrialRows(run.paths),
      note,
      name: names[index],
    });
    tasks = { ...tasks, ...(await readRunTasks(run.paths)) };
  }
  return { runs, tasks };
}

/**
 * What a report should say about runs that are not finished: one line per run whose lock is
 * held by a live process (its figures are partial) or was left by one that is gone.
 */
export async function describeUnfinishedRuns(runs: readonly LoadedRun[]): Promise<string[]> {
  const notes: string[] = [];
  for (const run of runs) {
    const lock = await readRunLock(run.paths);
    if (lock === null) continue;
    const { pid, host, since } = lock.holder;
    const who = `lab process ${String(pid)} on ${host}`;
    notes.push(
      lock.state === "stale"
        ? `run ${run.record.runId} was left unfinished by ${who}, which is gone; rerun the same command to resume it.`
        : `run ${run.record.runId} is in progress (${who}${since === "" ? "" : ` since ${since}`}); its figures are partial.`,
    );
  }
  return notes;
}
