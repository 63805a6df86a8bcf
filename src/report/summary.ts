import type { RunRecord } from "../core/index.js";
import type { TrialRow } from "../store/index.js";
import { isIsolated } from "./runs.js";
import {
  clusterBootstrapInterval,
  clusterCount,
  clusteredStandardError,
  naiveStandardError,
} from "./cluster.js";
import { commandOf, exitCodesText, tallyFailures, type ToolFailures } from "./failures.js";
import {
  bootstrapResolveRate,
  consistency,
  flipRate,
  percentile,
  resolveRateVariance,
  taskWeightedRate,
  wilsonIntervalOfRate,
} from "./stats.js";

/**
 * One tool's row in a suite report. Field names are the JSON output's; the first thirteen are
 * the original row and keep their meaning, the rest were added beside them.
 */
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
  /**
   * The mean over tasks of each task's resolved / trials: resolved / trials when every task has
   * the same number of trials, and what both intervals describe when they do not.
   */
  readonly resolve_rate: number;
  /**
   * Trials whose change applied to a fresh checkout / trials with a non-empty change; empty
   * changes are counted apart (empty_changes), as upstream's empty_patch_instances. null when
   * every change was empty (noop): there was nothing to apply.
   */
  readonly apply_rate: number | null;
  /**
   * Total reported cost / tasks, in USD: what a task cost however many trials it had; null when
   * the tool reported none. Before, this field was the mean per trial (now cost_per_trial).
   */
  readonly cost_per_task: number | null;
  /** Mean and median of the tool's own run time, in seconds. */
  readonly latency_mean_s: number | null;
  readonly latency_median_s: number | null;
  /** Trials the lab or environment failed; not counted in the rates. */
  readonly infra_errors: number;
  /** 95% Wilson interval of resolve_rate, over graded trials (Kish's effective count when tasks have unequal trials). */
  readonly resolve_rate_ci_low: number;
  readonly resolve_rate_ci_high: number;
  /** 95% percentile-bootstrap interval of the mean per-task resolve rate, resampling tasks. */
  readonly resolve_rate_boot_low: number | null;
  readonly resolve_rate_boot_high: number | null;
  /** Sum of reported costs in USD. */
  readonly cost_total: number | null;
  /**
   * cost_per_trial / resolve_rate: what one resolving trial costs (total cost / resolved trials
   * when counts are equal); null when none resolved.
   */
  readonly cost_per_resolved: number | null;
  /** 90th percentile of the tool's run time, in seconds. */
  readonly latency_p90_s: number | null;
  /** Mean tokens per graded trial, over the trials that reported them. */
  readonly input_tokens_mean: number | null;
  readonly output_tokens_mean: number | null;
  readonly cache_read_tokens_mean: number | null;
  readonly cache_write_tokens_mean: number | null;
  /** The most graded trials any task has (K of pass@k). */
  readonly trials_per_task: number;
  /** Mean over tasks with two or more trials of the share agreeing with the majority outcome. */
  readonly mean_consistency: number | null;
  /** Mean over those tasks of the share of consecutive trials whose outcome flips. */
  readonly flip_rate: number | null;
  /** Sample variance of the resolve rate across trial numbers (trial 1, trial 2, ...). */
  readonly rate_variance: number | null;
  /** Graded trials flagged for tampering with the test run (never resolved). */
  readonly flagged: number;
  /** The fewest graded trials any attempted task has (below trials_per_task: unequal counts). */
  readonly trials_per_task_min: number;
  /** The name the report gives the tool: its --label or name, or its run id where two would look the same. */
  readonly label: string;
  /** The run's status in run.json: started, completed, failed or cancelled. */
  readonly run_status: string;
  /** Finished trials of the run (infra errors included) and the trials it planned. */
  readonly run_trials_done: number;
  readonly run_trials_planned: number;
  /** When the run was last written (ISO). */
  readonly run_updated_at: string;
  /** Mean reported cost per graded trial in USD (cost_per_task / trials per task when counts are equal). */
  readonly cost_per_trial: number | null;
  /** Graded trials whose change was empty: not counted in apply_rate. */
  readonly empty_changes: number;
  /** Task-level standard error of resolve_rate (the per-task rates taken as independent). */
  readonly resolve_rate_se: number | null;
  /** The field tasks are clustered by ("repo" or a metadata field); null when not clustered. */
  readonly cluster_field: string | null;
  /** Clusters among the tool's tasks; null when not clustered. */
  readonly clusters: number | null;
  /** Cluster-robust (CR1) standard error of resolve_rate; null when not clustered. */
  readonly resolve_rate_cluster_se: number | null;
  /** 95% two-stage bootstrap interval (clusters, then tasks within them); null when not clustered. */
  readonly resolve_rate_cluster_boot_low: number | null;
  readonly resolve_rate_cluster_boot_high: number | null;
  /** Every invocation of the run isolated the tool (a sandbox other than `none`). */
  readonly is_isolated: boolean;
  /** Infrastructure errors over finished trials (infra errors included); null without trials. */
  readonly infra_error_rate: number | null;
  /** Infrastructure errors by class (failures.ts); unclassified: old records that say nothing. */
  readonly infra_environment: number;
  readonly infra_lab: number;
  readonly infra_machine: number;
  readonly infra_unclassified: number;
  /** Graded trials whose tool exited non-zero or was ended by a signal (timeouts aside). */
  readonly tool_exited_nonzero: number;
  /** Their most common exit codes (or signals), "127 ×10, 1 ×2"; null when none. */
  readonly tool_exit_codes: string | null;
  /** Graded trials whose tool timed out. */
  readonly tool_timed_out: number;
  /** Graded trials whose tool a sandbox limit stopped, per limit. */
  readonly limit_memory: number;
  readonly limit_disk: number;
  readonly limit_processes: number;
  /** When most trials ended the same bad way: which, in how many, and the likely cause. */
  readonly failure_warning: string | null;
}

/** How intervals are drawn. */
export interface SummaryOptions {
  /** Bootstrap resamples; 10 000 by default. */
  readonly resamples?: number;
  /** Bootstrap seed, so the same store gives the same report; 0 by default. */
  readonly seed?: number;
}

/** How the tasks are clustered, when they are (see clusteringOf in model.ts). */
export interface Clustering {
  /** "repo" or a metadata field. */
  readonly field: string;
  /** A task's cluster; every task of the report has one. */
  readonly clusterOf: (taskId: string) => string;
}

/** One tool's trials of one task, in trial order. */
export interface TaskTrials {
  readonly taskId: string;
  /** Every finished trial, infra errors included. */
  readonly rows: readonly TrialRow[];
  /** Outcomes of the graded trials: true when resolved. */
  readonly graded: readonly boolean[];
}

/** Groups a run's trials by task, keeping the order the rows come in (task id, then trial). */
export function groupByTask(rows: readonly TrialRow[]): TaskTrials[] {
  const groups = new Map<string, { taskId: string; rows: TrialRow[]; graded: boolean[] }>();
  for (const row of rows) {
    let group = groups.get(row.taskId);
    if (group === undefined) {
      group = { taskId: row.taskId, rows: [], graded: [] };
      groups.set(row.taskId, group);
    }
    group.rows.push(row);
    if (row.kind !== "infra_error") group.graded.push(row.resolved === true);
  }
  for (const group of groups.values()) group.rows.sort((a, b) => a.trial - b.trial);
  return [...groups.values()];
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** The median of some numbers (mean of the middle two for an even count). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function finite(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** Values of one figure over the trials that reported it. */
function reported(rows: readonly TrialRow[], pick: (row: TrialRow) => number | null): number[] {
  const values: number[] = [];
  for (const row of rows) {
    const value = pick(row);
    if (value !== null) values.push(value);
  }
  return values;
}

/** Summarizes one run's trials into a report row (groups: the same trials by task, if known). */
export function summarizeRun(
  record: RunRecord,
  results: readonly TrialRow[],
  options: SummaryOptions = {},
  groups: readonly TaskTrials[] = groupByTask(results),
  clustering: Clustering | null = null,
): ToolSummary {
  const graded = results.filter((result) => result.kind !== "infra_error");
  const resolved = graded.filter((result) => result.resolved === true).length;
  const empty = graded.filter((result) => result.patchEmpty === true).length;
  const applied = graded.filter(
    (result) => result.patchEmpty !== true && result.patchApplied === true,
  ).length;
  const costs = reported(graded, (row) => row.costUsd);
  const latencies = reported(graded, (row) => row.toolMs).map((ms) => ms / 1000);
  const attempted = groups.filter((group) => group.graded.length > 0);
  const repeated = attempted.filter((group) => group.graded.length > 1);
  // Rate and both intervals describe one quantity: the mean per-task rate (docs/design/reports.md).
  const weighted = taskWeightedRate(
    attempted.map((group) => ({
      trials: group.graded.length,
      resolved: group.graded.filter(Boolean).length,
    })),
  );
  const wilson = wilsonIntervalOfRate(weighted.rate, weighted.effectiveTrials);
  const taskRates = attempted.map(
    (group) => group.graded.filter(Boolean).length / group.graded.length,
  );
  const bootOptions = { resamples: options.resamples ?? 10_000, seed: options.seed ?? 0 };
  const boot = bootstrapResolveRate(taskRates, bootOptions);
  // A tool whose tasks fall in one cluster has no between-cluster spread to measure.
  const clusters =
    clustering === null ? null : attempted.map((group) => clustering.clusterOf(group.taskId));
  const isClustered = clusters !== null && clusterCount(clusters) >= 2;
  const clusterBoot = isClustered
    ? clusterBootstrapInterval(taskRates, clusters, bootOptions)
    : null;
  const clusterSe = isClustered ? clusteredStandardError(taskRates, clusters) : null;
  const resolveRate = attempted.length === 0 ? 0 : weighted.rate;
  const costPerTrial = mean(costs);
  const costTotal = costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0);
  const byTrial = new Map<number, { trials: number; resolved: number }>();
  for (const row of graded) {
    const tally = byTrial.get(row.trial) ?? { trials: 0, resolved: 0 };
    byTrial.set(row.trial, {
      trials: tally.trials + 1,
      resolved: tally.resolved + (row.resolved === true ? 1 : 0),
    });
  }
  return {
    tool: record.tool,
    tool_version: record.toolVersion,
    run_id: record.runId,
    suite: record.suite,
    tasks: attempted.length,
    trials: graded.length,
    resolved,
    resolve_rate: resolveRate,
    apply_rate: graded.length === empty ? null : applied / (graded.length - empty),
    cost_per_task:
      costTotal === null || attempted.length === 0 ? null : costTotal / attempted.length,
    latency_mean_s: mean(latencies),
    latency_median_s: median(latencies),
    infra_errors: results.length - graded.length,
    resolve_rate_ci_low: wilson.low,
    resolve_rate_ci_high: wilson.high,
    resolve_rate_boot_low: finite(boot.low),
    resolve_rate_boot_high: finite(boot.high),
    cost_total: costTotal,
    cost_per_resolved: costPerTrial === null || resolved === 0 ? null : costPerTrial / resolveRate,
    latency_p90_s: latencies.length === 0 ? null : percentile(latencies, 90),
    input_tokens_mean: mean(reported(graded, (row) => row.inputTokens)),
    output_tokens_mean: mean(reported(graded, (row) => row.outputTokens)),
    cache_read_tokens_mean: mean(reported(graded, (row) => row.cacheReadTokens)),
    cache_write_tokens_mean: mean(reported(graded, (row) => row.cacheWriteTokens)),
    trials_per_task: attempted.reduce((most, group) => Math.max(most, group.graded.length), 0),
    mean_consistency: mean(repeated.map((group) => consistency(group.graded))),
    flip_rate: mean(repeated.map((group) => flipRate(group.graded))),
    rate_variance:
      byTrial.size < 2
        ? null
        : resolveRateVariance([...byTrial.values()].map((tally) => tally.resolved / tally.trials)),
    flagged: graded.filter((row) => row.flagged).length,
    trials_per_task_min: attempted.reduce(
      (fewest, group) => Math.min(fewest, group.graded.length),
      attempted.length === 0 ? 0 : Infinity,
    ),
    label: record.label ?? record.tool,
    run_status: record.status,
    run_trials_done: results.length,
    run_trials_planned: record.taskIds.length * record.trials,
    run_updated_at: record.updatedAt,
    ...failureFields(
      tallyFailures(record.tool, results, {
        expectsEmpty: record.tool === "noop",
        command: commandOf(record),
      }),
    ),
    cost_per_trial: costPerTrial,
    empty_changes: empty,
    resolve_rate_se: finite(naiveStandardError(taskRates)),
    cluster_field: clustering?.field ?? null,
    clusters: clusters === null ? null : clusterCount(clusters),
    resolve_rate_cluster_se: clusterSe === null ? null : finite(clusterSe),
    resolve_rate_cluster_boot_low: clusterBoot === null ? null : finite(clusterBoot.low),
    resolve_rate_cluster_boot_high: clusterBoot === null ? null : finite(clusterBoot.high),
    is_isolated: isIsolated(record),
  };
}

/** A tool's failures as the summary row's flat fields. */
function failureFields(failures: ToolFailures) {
  return {
    infra_error_rate: failures.infraErrorRate,
    infra_environment: failures.infraClasses.environment,
    infra_lab: failures.infraClasses.lab,
    infra_machine: failures.infraClasses.machine,
    infra_unclassified: failures.infraClasses.unclassified,
    tool_exited_nonzero: failures.exitedNonZero,
    tool_exit_codes: failures.exitCodes.length === 0 ? null : exitCodesText(failures.exitCodes),
    tool_timed_out: failures.timedOut,
    limit_memory: failures.overLimit.memory,
    limit_disk: failures.overLimit.disk,
    limit_processes: failures.overLimit.processes,
    empty_changes: failures.emptyChange,
    failure_warning: failures.warning,
  } satisfies Partial<ToolSummary>;
}
