/**
 * What `lab runs list` says of each run folder, and the checks of `lab runs rm`: read through
 * the store's own readers (run.json's schema, the results index, the run's lock), never by
 * guessing at file names. A run folder whose run.json cannot be read is still listed, so that
 * it can be found and removed.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { errorMessage, LabError, type RunRecord } from "../core/index.js";
import { readTrialRows } from "./results-index.js";
import { readRunLock, type RunLockState } from "./run-lock.js";
import { readRunRecord, runPaths, type RunPaths } from "./runs.js";

/** How a run stands, as a user asks it: done, stopped, under way, or left unfinished. */
export type RunState =
  "completed" | "cancelled" | "failed" | "stopped" | "running" | "incomplete" | "unreadable";

/** One run folder, summed up. */
export interface RunOverview {
  readonly runId: string;
  readonly dir: string;
  readonly state: RunState;
  /** The suite, tool and label run.json names; null when it cannot be read. */
  readonly suite: string | null;
  readonly tool: string | null;
  /** The name reports give the run's tool: its --label, else its tool's name. */
  readonly label: string | null;
  readonly trialsDone: number;
  readonly trialsPlanned: number;
  readonly resolved: number;
  /** The cost the finished trials reported, in USD; null when none reported any. */
  readonly costUsd: number | null;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
  /** The lab process that holds the run's lock, when one does (state "running"). */
  readonly holder: { readonly pid: number; readonly host: string } | null;
  /** Why the run is unreadable, or what else a reader should know; null when nothing. */
  readonly note: string | null;
}

/** A run folder name lab could have made (`checkRunId`'s rule); others are not runs. */
function isRunFolderName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name);
}

/** The ids of the run folders under runsDir (folders holding a run.json or a run.lock). */
export function listRunIds(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .filter((name) => isRunFolderName(name))
    .filter((name) => {
      const dir = path.join(runsDir, name);
      return (
        statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true &&
        (existsSync(path.join(dir, "run.json")) || existsSync(path.join(dir, "run.lock")))
      );
    })
    .sort();
}

/** The state of a run from its record and its lock. */
function stateOf(
  record: RunRecord,
  lock: RunLockState | null,
  done: number,
  planned: number,
): RunState {
  if (lock !== null && lock.state !== "stale") return "running";
  if (record.status === "completed") return done >= planned ? "completed" : "incomplete";
  if (record.status === "started") return "incomplete";
  return record.status;
}

/** Sums up one run folder; never throws for what is in the folder. */
export async function describeRun(runsDir: string, runId: string): Promise<RunOverview> {
  const paths = runPaths(runsDir, runId);
  const lock = await readRunLock(paths);
  const holder =
    lock !== null && lock.state !== "stale"
      ? { pid: lock.holder.pid, host: lock.holder.host }
      : null;
  let record: RunRecord;
  try {
    record = await readRunRecord(paths);
  } catch (error) {
    return {
      ...blank(paths, runId),
      state: holder === null ? "unreadable" : "running",
      holder,
      note: existsSync(paths.runJson) ? errorMessage(error) : "no run.json yet",
    };
  }
  const rows = await readTrialRows(paths).catch(() => null);
  const done = rows?.length ?? 0;
  const planned = record.taskIds.length * record.trials;
  const costs = (rows ?? []).flatMap((row) => (row.costUsd === null ? [] : [row.costUsd]));
  return {
    runId,
    dir: paths.dir,
    state: stateOf(record, lock, done, planned),
    suite: record.suite,
    tool: record.tool,
    label: record.label ?? record.tool,
    trialsDone: done,
    trialsPlanned: planned,
    resolved: (rows ?? []).filter((row) => row.resolved === true).length,
    costUsd: costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    holder,
    note: rows === null ? "a trial's result.json cannot be read" : null,
  };
}

function blank(paths: RunPaths, runId: string): Omit<RunOverview, "state" | "holder" | "note"> {
  return {
    runId,
    dir: paths.dir,
    suite: null,
    tool: null,
    label: null,
    trialsDone: 0,
    trialsPlanned: 0,
    resolved: 0,
    costUsd: null,
    createdAt: null,
    updatedAt: null,
  };
}

/** Every run folder under runsDir, summed up, oldest first. */
export async function listRunOverviews(runsDir: string): Promise<RunOverview[]> {
  const runs = await Promise.all(listRunIds(runsDir).map((id) => describeRun(runsDir, id)));
  return runs.sort(
    (a, b) =>
      (a.createdAt ?? "").localeCompare(b.createdAt ?? "") || a.runId.localeCompare(b.runId),
  );
}

/**
 * The folder of run `runId` under runsDir, checked to be one: an id with a slash, `..` or
 * other characters lab never puts in a run id is refused, so nothing outside runsDir is named.
 */
export function runFolderOf(runsDir: string, runId: string): string {
  if (!isRunFolderName(runId) || runId === "." || runId === "..")
    throw new LabError(
      "USAGE",
      `"${runId}" is not a run id: run ids are letters, digits, '.', '_' or '-', with no '/'.`,
      { hint: "`lab runs list` shows the run ids." },
    );
  const dir = path.resolve(runsDir, runId);
  if (path.dirname(dir) !== path.resolve(runsDir))
    throw new LabError("USAGE", `"${runId}" names a folder outside ${runsDir}.`);
  return dir;
}
