/**
 * Which runs a report reads, and how it names them. A tool is what its run.json says makes it
 * what it is: its name and fingerprint (a command tool's command line, an agent's settings),
 * or the label given with `lab run --label`. Two command lines are two tools, never "latest
 * wins"; of one tool's runs the latest completed one is read, and an incomplete one only when
 * there is no other, marked as such.
 */
import type { RunRecord, RunStatus } from "../core/index.js";

/** A run as the report lists it at its top: what was read, and how complete it is. */
export interface RunUsed {
  readonly run_id: string;
  /** The tool's name in run.json. */
  readonly tool: string;
  /** The name the report gives it: its --label or its tool's name, or its run id when another tool took that name first. */
  readonly label: string;
  readonly tool_version: string;
  readonly status: RunStatus;
  /** Finished trials (graded or infrastructure errors). */
  readonly trials_done: number;
  /** The run's tasks times its trials per task. */
  readonly trials_planned: number;
  readonly created_at: string;
  readonly updated_at: string;
  /** Completed with every planned trial finished. */
  readonly is_complete: boolean;
  /**
   * Why this run was read when it is incomplete or newer runs were passed over, and that it was
   * not isolated when it ran with `--sandbox none`; null otherwise.
   */
  readonly note: string | null;
  /** No invocation of the run used the `none` sandbox. */
  readonly is_isolated: boolean;
}

/** What a report says of a run made with `--sandbox none`, in every format. */
export const NOT_ISOLATED = "not isolated: the tool could read the oracle (--sandbox none)";

/** A run chosen for a report, with why, when that needs saying. */
export interface SelectedRun<R> {
  readonly run: R;
  readonly note: string | null;
}

/** What makes two runs the same tool: the label, else the tool's name and fingerprint. */
export function toolIdentity(record: RunRecord): string {
  return record.label === undefined
    ? `tool\u0000${record.tool}\u0000${record.toolFingerprint}`
    : `label\u0000${record.label}`;
}

/** A run's name for its tool: its label, else its tool's name. */
function baseLabel(record: RunRecord): string {
  return record.label ?? record.tool;
}

/**
 * Which runs a suite report shows: the ones named (in the order of their tools), or else one per
 * tool: its latest completed run, or, when it has none, its latest run, with a note.
 */
export function selectRuns<R extends { record: RunRecord }>(
  runs: readonly R[],
  suite: string,
  runIds?: readonly string[],
): SelectedRun<R>[] {
  const ofSuite = runs.filter((run) => run.record.suite === suite);
  const byName = (a: SelectedRun<R>, b: SelectedRun<R>): number =>
    baseLabel(a.run.record).localeCompare(baseLabel(b.run.record)) ||
    a.run.record.runId.localeCompare(b.run.record.runId);
  if (runIds !== undefined && runIds.length > 0) {
    return ofSuite
      .filter((run) => runIds.includes(run.record.runId))
      .map((run) => ({
        run,
        note:
          run.record.status === "completed"
            ? null
            : `named with --run-id; it is ${run.record.status}, not completed`,
      }))
      .sort(byName);
  }
  const groups = new Map<string, R[]>();
  for (const run of ofSuite) {
    const identity = toolIdentity(run.record);
    groups.set(identity, [...(groups.get(identity) ?? []), run]);
  }
  const chosen: SelectedRun<R>[] = [];
  for (const group of groups.values()) {
    const newestFirst = [...group].sort((a, b) =>
      b.record.updatedAt.localeCompare(a.record.updatedAt),
    );
    const newest = newestFirst[0] as R;
    const completed = newestFirst.find((run) => run.record.status === "completed");
    if (completed === undefined) {
      chosen.push({
        run: newest,
        note: `the only run${group.length > 1 ? "s" : ""} of this tool ${group.length > 1 ? "are" : "is"} incomplete; the latest (${newest.record.status}) is read`,
      });
    } else if (completed !== newest) {
      const skipped = newestFirst.slice(0, newestFirst.indexOf(completed));
      chosen.push({
        run: completed,
        note: `the latest completed run; newer incomplete run${skipped.length > 1 ? "s" : ""} not read: ${skipped.map((run) => `${run.record.runId} (${run.record.status})`).join(", ")}`,
      });
    } else {
      chosen.push({ run: completed, note: null });
    }
  }
  return chosen.sort(byName);
}

/** A run's name in a report, and why it is not its label or tool name when it is not. */
export interface RunName {
  readonly label: string;
  /** Why the run is named by its run id: another tool of the suite took the name first. */
  readonly clash: string | null;
}

/**
 * Each run's name in the report, in the order given: its label or tool name, which belongs to
 * the tool that took it first among `all` (every run of the suite, `records` by default). A
 * later tool with the same name (a second command line, a --label naming another tool) is
 * named by its run id, with a note saying why. A run added later never renames one a report
 * already showed.
 */
export function nameRuns(
  records: readonly RunRecord[],
  all: readonly RunRecord[] = records,
): RunName[] {
  const first = new Map<string, RunRecord>();
  for (const record of [...all, ...records]) {
    const taken = first.get(baseLabel(record));
    if (
      taken === undefined ||
      record.createdAt < taken.createdAt ||
      (record.createdAt === taken.createdAt && record.runId < taken.runId)
    )
      first.set(baseLabel(record), record);
  }
  return records.map((record) => {
    const base = baseLabel(record);
    const owner = first.get(base) ?? record;
    // Two runs of one tool read at once (named with --run-id) are told apart by their run ids.
    if (toolIdentity(owner) === toolIdentity(record))
      return records.some(
        (other) => other !== record && toolIdentity(other) === toolIdentity(record),
      )
        ? { label: record.runId, clash: null }
        : { label: base, clash: null };
    return {
      label: record.runId,
      clash: `named by its run id: "${base}" is the name of another tool of this suite, run first in ${owner.runId}; ${record.label === undefined ? "name this one with --label" : "give this one another --label"}`,
    };
  });
}

/** The list of runs a report starts with. */
export function describeRunsUsed(
  runs: readonly {
    readonly record: RunRecord;
    readonly trials: readonly unknown[];
    readonly note?: string | null | undefined;
  }[],
  labels: readonly string[],
): RunUsed[] {
  return runs.map((run, index) => {
    const { record } = run;
    const planned = record.taskIds.length * record.trials;
    const done = run.trials.length;
    const isComplete = record.status === "completed" && done >= planned;
    const note =
      run.note ??
      (isComplete
        ? null
        : record.status === "completed"
          ? `${String(planned - done)} planned trial(s) have no result`
          : `the run is ${record.status}: ${String(done)} of ${String(planned)} trials finished`);
    const isolated = isIsolated(record);
    return {
      run_id: record.runId,
      tool: record.tool,
      label: labels[index] ?? record.tool,
      tool_version: record.toolVersion,
      status: record.status,
      trials_done: done,
      trials_planned: planned,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
      is_complete: isComplete,
      note: isolated ? note : note === null ? NOT_ISOLATED : `${NOT_ISOLATED}; ${note}`,
      is_isolated: isolated,
    };
  });
}

/** "2025-01-01 12:00 UTC" from an ISO time. */
export function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");
}

/**
 * Whether a run was made without isolation: its first invocation or a resume used the `none`
 * sandbox, where the tool could read the oracle.
 */
export function isIsolated(record: RunRecord): boolean {
  const provider = (config: Readonly<Record<string, unknown>>): unknown => {
    const sandbox = config.sandbox;
    return typeof sandbox === "object" && sandbox !== null
      ? (sandbox as Record<string, unknown>).provider
      : undefined;
  };
  return [record.config, ...(record.resumes ?? []).map((resume) => resume.config)].every(
    (config) => provider(config) !== "none",
  );
}
