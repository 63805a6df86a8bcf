/**
 * The suite report as data: a pure function of stored runs and task facts. Every rendering
 * (Markdown, JSON, CSV, HTML, the tier READMEs) is made from this one model.
 */
import { LabError, type Outcome, type RunRecord } from "../core/index.js";
import type { RunTasks, TrialRow } from "../store/index.js";
import { buildComparisons, type ComparisonReport } from "./comparisons.js";
import { describeRunsUsed, nameRuns, type RunName, type RunUsed } from "./runs.js";
import { buildSlices, type SliceTable } from "./slices.js";
import { buildContamination, type ContaminationReport } from "./contamination.js";
import { buildFailures, commandOf, type FailuresReport } from "./failures.js";
import { buildIntegrity, type IntegrityReport } from "./integrity.js";
import { consistency, flipRate, passAtK, passHatK, type TaskTallies } from "./stats.js";
import {
  groupByTask,
  summarizeRun,
  type Clustering,
  type SummaryOptions,
  type ToolSummary,
} from "./summary.js";

/** A run as the report reads it from the store. */
export interface ReportRun {
  readonly record: RunRecord;
  readonly trials: readonly TrialRow[];
  /** Why this run was chosen, when that needs saying (an incomplete run, newer ones skipped). */
  readonly note?: string | null | undefined;
  /** Its name among every run of the suite (nameRuns); by default, among the runs reported. */
  readonly name?: RunName | undefined;
}

/** How a report is made. */
export interface ReportOptions extends SummaryOptions {
  /** Significance level of the verdicts; 0.05 by default. */
  readonly level?: number;
  /** Metadata fields to slice by, beside repository and difficulty. */
  readonly slices?: readonly string[];
  /** Training cutoffs by model (or tool) name, from lab.config.json, for the contamination slice. */
  readonly cutoffs?: Readonly<Record<string, { readonly cutoff: string }>>;
  /** The task field to cluster by: "repo" (the default) or a metadata field. */
  readonly cluster?: string;
}

/** How the report's tasks are clustered, when they are. */
export interface ClusteringReport {
  /** "repo" or the metadata field. */
  readonly field: string;
  /** Clusters among the report's tasks. */
  readonly clusters: number;
  readonly tasks: number;
}

/** One trial in the per-task grid. */
export interface TrialCell {
  readonly trial: number;
  /** resolved, unresolved, or infra_error (left out of every rate). */
  readonly status: "resolved" | "unresolved" | "infra_error";
  readonly kind: Outcome["kind"];
}

/** One tool's record on one task. */
export interface TaskLine {
  readonly taskId: string;
  /** Graded trials and resolved ones. */
  readonly trials: number;
  readonly resolved: number;
  /** Share of trials agreeing with the majority; null below two graded trials. */
  readonly consistency: number | null;
  readonly flipRate: number | null;
  /** Every finished trial, infra errors included, in trial order. */
  readonly cells: readonly TrialCell[];
}

/**
 * pass@k and pass^k at one k (1..K, K the most graded trials any attempted task has), each the
 * mean over the tasks with at least k graded trials.
 */
export interface PassAtKPoint {
  readonly k: number;
  /** The tasks with at least k graded trials, which this point averages over. */
  readonly tasks: number;
  readonly passAtK: number;
  readonly passHatK: number;
}

/** The resolve rate of one trial number (every task's trial 1, trial 2, ...). */
export interface TrialRate {
  readonly trial: number;
  readonly trials: number;
  readonly resolved: number;
  readonly rate: number;
}

/** Everything the report says about one tool. */
export interface ToolReport {
  /** The tool's name, or its run id when two runs of one tool are reported. */
  readonly label: string;
  readonly summary: ToolSummary;
  /** k = 1..K, K the most graded trials any attempted task has; each k over the tasks that have k. */
  readonly passAtK: readonly PassAtKPoint[];
  readonly trialRates: readonly TrialRate[];
  readonly tasks: readonly TaskLine[];
}

/** The whole report. */
export interface SuiteReport {
  /** The runs read, first: every rendering starts by naming them. */
  readonly runs: readonly RunUsed[];
  readonly suite: string;
  readonly level: number;
  /** Coverage of every interval. */
  readonly confidence: number;
  readonly resamples: number;
  readonly seed: number;
  /** Some tool has two or more graded trials on a task. */
  readonly isRepeated: boolean;
  /** Every task any tool has a finished trial on, sorted. */
  readonly taskIds: readonly string[];
  readonly tools: readonly ToolReport[];
  readonly comparisons: readonly ComparisonReport[];
  readonly slices: readonly SliceTable[];
  /** Flagged trials and infrastructure errors per tool, with warnings. */
  readonly integrity: IntegrityReport;
  /** Each tool's rate on tasks fixed before and after its model's training cutoff. */
  readonly contamination: ContaminationReport;
  /**
   * How tasks are clustered: by repository when they span several with more than one task in
   * some (or by --cluster FIELD); null when they are not, and every interval is task-level.
   */
  readonly clustering: ClusteringReport | null;
  /** When the runs read differ in their task sets: which, and how many tasks each; else null. */
  readonly taskSetNote: string | null;
  /** How each tool's trials ended badly: exits, timeouts, limits, empty changes, infra classes. */
  readonly failures: FailuresReport;
}

/** A cluster field in words: "repository" or the metadata field's name. */
export function clusterWords(field: string, count = 2): string {
  if (field === "repo") return count === 1 ? "repository" : "repositories";
  return `${field} value${count === 1 ? "" : "s"}`;
}

/**
 * The report's clustering: by `field` ("repo" unless --cluster names another) when the tasks
 * have it and it groups them into at least two clusters, one of them with two tasks or more
 * (every task a cluster of its own is the task level). A task without the field is a cluster
 * of its own. A field no task has is an error when asked for, and no clustering by default.
 */
export function clusteringOf(
  taskIds: readonly string[],
  tasks: RunTasks,
  requested: string | undefined,
): (Clustering & { readonly clusters: number }) | null {
  const field = requested ?? "repo";
  const valueOf = (id: string): string | null => {
    const task = tasks[id];
    if (task === undefined) return null;
    const value = field === "repo" ? task.repo : task.metadata[field];
    return value === undefined || value === null ? null : String(value);
  };
  const values = new Map(taskIds.map((id) => [id, valueOf(id)]));
  if (requested !== undefined && [...values.values()].every((value) => value === null))
    throw new LabError("USAGE", `--cluster "${requested}": no task of the report has that field.`, {
      hint: "Cluster by repo (the default) or a metadata field the tasks have (see --slice).",
    });
  const clusterOf = (id: string): string => {
    const value = values.get(id) ?? valueOf(id);
    // The task id, apart from any value: a task without the field clusters with nothing.
    return value === null ? `\u0000${id}` : `=${value}`;
  };
  const clusters = new Set(taskIds.map(clusterOf)).size;
  if (clusters < 2 || clusters >= taskIds.length) return null;
  return { field, clusterOf, clusters };
}

/** Names the runs when they were made over different task sets; null when they were not. */
export function describeTaskSets(
  runs: readonly ReportRun[],
  labels: readonly string[],
): string | null {
  const sets = runs.map((run) => [...new Set(run.record.taskIds)].sort().join("\n"));
  if (new Set(sets).size < 2) return null;
  const named = runs.map(
    (run, index) =>
      `${labels[index] ?? run.record.tool} (${run.record.runId}): ${String(new Set(run.record.taskIds).size)} tasks`,
  );
  return `The runs read cover different task sets: ${named.join("; ")}. Each comparison uses only the tasks its two runs share, and says how many.`;
}

function passCurve(graded: readonly (readonly boolean[])[], maxK: number): PassAtKPoint[] {
  const tallies = graded.map((outcomes) => ({
    trials: outcomes.length,
    resolved: outcomes.filter(Boolean).length,
  }));
  const curve: PassAtKPoint[] = [];
  for (let k = 1; k <= maxK; k++) {
    let tasks = 0;
    let sumAt = 0;
    let sumHat = 0;
    for (const { trials, resolved } of tallies) {
      if (trials < k) continue;
      tasks++;
      sumAt += passAtK(trials, resolved, k);
      sumHat += passHatK(trials, resolved, k);
    }
    curve.push({ k, tasks, passAtK: sumAt / tasks, passHatK: sumHat / tasks });
  }
  return curve;
}

/** Builds the report of some runs of one suite (tools in the order given). */
export function buildReport(
  suite: string,
  runs: readonly ReportRun[],
  tasks: RunTasks,
  options: ReportOptions = {},
): SuiteReport {
  const level = options.level ?? 0.05;
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 0;
  const names = nameRuns(runs.map((run) => run.record)).map(
    (name, index) => runs[index]?.name ?? name,
  );
  const labels = names.map((name) => name.label);
  const allTaskIds = [
    ...new Set(runs.flatMap((run) => run.trials.map((row) => row.taskId))),
  ].sort();
  const clustering = clusteringOf(allTaskIds, tasks, options.cluster);

  const tools: ToolReport[] = [];
  const grouped: { label: string; groups: ReturnType<typeof groupByTask> }[] = [];
  const taskIds = new Set<string>();
  runs.forEach((run, runIndex) => {
    const label = labels[runIndex] ?? run.record.tool;
    const groups = groupByTask(run.trials);
    const attempted = groups.map((group) => group.graded).filter((graded) => graded.length > 0);
    grouped.push({ label, groups });
    const summary = {
      ...summarizeRun(run.record, run.trials, { resamples, seed }, groups, clustering),
      label,
    };
    const trialTallies = new Map<number, { trials: number; resolved: number }>();
    for (const row of run.trials) {
      taskIds.add(row.taskId);
      if (row.kind === "infra_error") continue;
      const tally = trialTallies.get(row.trial) ?? { trials: 0, resolved: 0 };
      trialTallies.set(row.trial, {
        trials: tally.trials + 1,
        resolved: tally.resolved + (row.resolved === true ? 1 : 0),
      });
    }
    tools.push({
      label,
      summary,
      // Each k over the tasks with k trials: one task short of a trial shortens nothing.
      passAtK: passCurve(
        attempted,
        attempted.reduce((most, outcomes) => Math.max(most, outcomes.length), 0),
      ),
      trialRates: [...trialTallies.entries()]
        .sort(([a], [b]) => a - b)
        .map(([trial, tally]) => ({ trial, ...tally, rate: tally.resolved / tally.trials })),
      tasks: groups.map((group) => ({
        taskId: group.taskId,
        trials: group.graded.length,
        resolved: group.graded.filter(Boolean).length,
        consistency: group.graded.length < 2 ? null : consistency(group.graded),
        flipRate: group.graded.length < 2 ? null : flipRate(group.graded),
        cells: group.rows.map((row) => ({
          trial: row.trial,
          status:
            row.kind === "infra_error"
              ? "infra_error"
              : row.resolved === true
                ? "resolved"
                : "unresolved",
          kind: row.kind,
        })),
      })),
    });
  });

  const tallies = new Map<string, TaskTallies>();
  for (const tool of tools) {
    tallies.set(
      tool.label,
      new Map(
        tool.tasks
          .filter((line) => line.trials > 0)
          .map((line) => [line.taskId, { trials: line.trials, resolved: line.resolved }]),
      ),
    );
  }
  const comparisons = buildComparisons(tallies, { level, resamples, seed, clustering });

  return {
    runs: describeRunsUsed(
      runs.map((run, index) => ({
        ...run,
        note: [run.note, names[index]?.clash].filter((note) => note != null).join("; ") || null,
      })),
      labels,
    ),
    suite,
    level,
    confidence: 0.95,
    resamples,
    seed,
    isRepeated: tools.some((tool) => tool.summary.trials_per_task > 1),
    taskIds: [...taskIds].sort(),
    tools,
    comparisons,
    slices: buildSlices(grouped, tasks, options.slices),
    integrity: buildIntegrity(grouped, level),
    contamination: buildContamination(grouped, tasks, options.cutoffs ?? {}, { level, seed }),
    clustering:
      clustering === null
        ? null
        : { field: clustering.field, clusters: clustering.clusters, tasks: allTaskIds.length },
    taskSetNote: describeTaskSets(runs, labels),
    failures: buildFailures(
      runs.map((run, index) => ({
        label: labels[index] ?? run.record.tool,
        tool: run.record.tool,
        rows: run.trials,
        resolveRate: tools[index]?.summary.resolve_rate ?? null,
        command: commandOf(run.record),
      })),
    ),
  };
}
