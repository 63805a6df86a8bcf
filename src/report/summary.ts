import type { RunRecord, TrialResult } from "../core/index.js";

/** One tool's row in a suite report. Field names are the JSON output's. */
export interface ToolSummary {
  readonly tool: string;
  readonly tool_version: string;
  readonly run_id: string;
  readonly suite: string;
  /** Distinct tasks with at least one graded trial. */
  readonly tasks: number;
  /** Graded trials (infra errors left out). */
  readonly trials: number;
  /** Resolved trials. */
  readonly resolved: number;
  /** resolved / trials. */
  readonly resolve_rate: number;
  /** Trials whose change applied to a fresh checkout / trials. */
  readonly apply_rate: number;
  /** Mean reported cost per graded trial in USD, null when the tool reported none. */
  readonly cost_per_task: number | null;
  /** Mean and median of the tool's own run time, in seconds. */
  readonly latency_mean_s: number | null;
  readonly latency_median_s: number | null;
  /** Trials the lab or environment failed; not counted in the rates. */
  readonly infra_errors: number;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The median of some numbers (mean of the middle two for an even count). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Summarizes one run's trials into a report row. */
export function summarizeRun(record: RunRecord, results: readonly TrialResult[]): ToolSummary {
  const graded = results.filter((result) => result.outcome.kind !== "infra_error");
  const resolved = graded.filter((result) => result.resolved === true).length;
  const applied = graded.filter((result) => result.patchApplied === true).length;
  const costs = graded
    .map((result) => result.telemetry.costUsd)
    .filter((cost): cost is number => cost !== undefined);
  const latencies = graded
    .map((result) => result.phaseMs.tool)
    .filter((ms): ms is number => ms !== undefined)
    .map((ms) => ms / 1000);
  return {
    tool: record.tool,
    tool_version: record.toolVersion,
    run_id: record.runId,
    suite: record.suite,
    tasks: new Set(graded.map((result) => result.taskId)).size,
    trials: graded.length,
    resolved,
    resolve_rate: graded.length === 0 ? 0 : resolved / graded.length,
    apply_rate: graded.length === 0 ? 0 : applied / graded.length,
    cost_per_task: mean(costs),
    latency_mean_s: mean(latencies),
    latency_median_s: median(latencies),
    infra_errors: results.length - graded.length,
  };
}

/**
 * Which runs a suite report shows: the ones named, or else the latest run of each tool.
 */
export function selectRuns<R extends { record: RunRecord }>(
  runs: readonly R[],
  suite: string,
  runIds?: readonly string[],
): R[] {
  const ofSuite = runs.filter((run) => run.record.suite === suite);
  if (runIds !== undefined && runIds.length > 0)
    return ofSuite.filter((run) => runIds.includes(run.record.runId));
  const latest = new Map<string, R>();
  for (const run of ofSuite) {
    const seen = latest.get(run.record.tool);
    if (seen === undefined || seen.record.updatedAt < run.record.updatedAt)
      latest.set(run.record.tool, run);
  }
  return [...latest.values()].sort((a, b) => a.record.tool.localeCompare(b.record.tool));
}
