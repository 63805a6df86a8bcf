import {
  confidenceText,
  describeDifference,
  verdictCell,
  type ComparisonReport,
} from "./comparisons.js";
import {
  decimal,
  dollars,
  percent,
  percentInterval,
  points,
  pValue,
  seconds,
  tokens,
} from "./format.js";
import { clusterWords, type SuiteReport, type ToolReport } from "./model.js";
import { widening, WIDENING_WORTH_SAYING } from "./cluster.js";
import { shortTime, type RunUsed } from "./runs.js";
import { renderContaminationMarkdown } from "./contamination.js";
import { renderFailuresMarkdown } from "./failures-markdown.js";
import { renderIntegrityMarkdown } from "./integrity.js";
import type { SliceTable } from "./slices.js";
import { renderMarkdownTable, renderSummaryMarkdown } from "./tables.js";

/** The parts of the Markdown report, in the order they are printed. */
export type MarkdownSection =
  | "runs"
  | "summary"
  | "rates"
  | "failures"
  | "repeated"
  | "comparisons"
  | "slices"
  | "integrity"
  | "contamination";

/** Every section. */
export const ALL_SECTIONS: readonly MarkdownSection[] = [
  "runs",
  "summary",
  "rates",
  "failures",
  "repeated",
  "comparisons",
  "slices",
  "integrity",
  "contamination",
];

const right = (count: number, leftColumns = 1): boolean[] =>
  Array.from({ length: count }, (_, column) => column >= leftColumns);

/** A run's status as a table shows it, marked when the run is incomplete. */
export function runStatusText(run: RunUsed): string {
  return run.is_complete ? run.status : `${run.status} (incomplete)`;
}

/** The cells of a run's row, shared by the Markdown and HTML tables. */
export function runCells(run: RunUsed): string[] {
  return [
    run.label,
    run.tool_version,
    run.run_id,
    runStatusText(run),
    `${String(run.trials_done)}/${String(run.trials_planned)}`,
    shortTime(run.updated_at),
  ];
}

/** The header of the runs table. */
export const RUN_COLUMNS = ["tool", "version", "run", "status", "trials done", "updated"] as const;

/** The runs a report read, and why where that needs saying. */
function renderRuns(report: SuiteReport): string {
  const table = renderMarkdownTable(RUN_COLUMNS, report.runs.map(runCells), [
    false,
    false,
    false,
    false,
    true,
    false,
  ]);
  const notes = report.runs
    .filter((run) => run.note !== null)
    .map((run) => `- ${run.label} (${run.run_id}): ${String(run.note)}.`);
  const taskSets = report.taskSetNote === null ? "" : `\n${report.taskSetNote}\n`;
  return `Runs read:\n\n${table}\n${notes.length === 0 ? "" : `\n${notes.join("\n")}\n`}${taskSets}`;
}

/** How the report's intervals treat clustered tasks, in a sentence; null when not clustered. */
export function clusteringNote(report: SuiteReport): string | null {
  const { clustering } = report;
  if (clustering === null) return null;
  return `The ${String(clustering.tasks)} tasks fall in ${String(clustering.clusters)} ${clusterWords(clustering.field, clustering.clusters)}, and a tool's results on one ${clusterWords(clustering.field, 1)} move together: beside the task-level figures, each rate has a cluster-robust standard error and a cluster bootstrap interval (${clusterWords(clustering.field)} resampled, then tasks within them), and each pair's verdict rests on a cluster-paired interval.`;
}

/** The tools whose cluster interval is over 1.5 times as wide as their task-level one, in words. */
export function wideningNote(report: SuiteReport): string | null {
  const { clustering } = report;
  if (clustering === null) return null;
  const widened = report.tools.flatMap((tool) => {
    const s = tool.summary;
    if (s.resolve_rate_cluster_boot_low === null || s.resolve_rate_cluster_boot_high === null)
      return [];
    if (s.resolve_rate_boot_low === null || s.resolve_rate_boot_high === null) return [];
    const ratio = widening(
      { low: s.resolve_rate_cluster_boot_low, high: s.resolve_rate_cluster_boot_high },
      { low: s.resolve_rate_boot_low, high: s.resolve_rate_boot_high },
    );
    return ratio > WIDENING_WORTH_SAYING
      ? [`${tool.label} ${Number.isFinite(ratio) ? `${ratio.toFixed(1)} times` : "from nothing"}`]
      : [];
  });
  return widened.length === 0
    ? null
    : `Clustering by ${clusterWords(clustering.field, 1)} widens the bootstrap interval more than 1.5 times: ${widened.join(", ")}.`;
}

/** The smallest difference a pair could detect, as a cell: "+45.0" points, or "–". */
function detectableCell(c: ComparisonReport): string {
  if (c.detectable === null) return "–";
  return c.detectable.difference === null ? "none" : points(c.detectable.difference);
}

/** The cells of a comparison row before its verdict, shared by the Markdown and HTML tables. */
export function comparisonCells(c: ComparisonReport): string[] {
  return [
    c.a,
    c.b,
    String(c.tasks),
    percent(c.aRate),
    percent(c.bRate),
    describeDifference(c),
    c.verdict === "not_compared" ? "–" : String(c.aOnly),
    c.verdict === "not_compared" ? "–" : String(c.bOnly),
    pValue(c.pMcnemar).replace("p = ", ""),
    pValue(c.pWilcoxon).replace("p = ", ""),
    pValue(c.pAdjusted).replace("p = ", ""),
    detectableCell(c),
  ];
}

/** The header of the comparison table, before its verdict column. */
export const COMPARISON_COLUMNS = [
  "a",
  "b",
  "shared tasks",
  "a rate",
  "b rate",
  "a - b [CI]",
  "only a",
  "only b",
  "McNemar",
  "Wilcoxon",
  "p (adjusted)",
  "detectable (80% power)",
] as const;

/** The note under a comparison table: the test, the interval, what "detectable" means. */
export function comparisonMethod(report: SuiteReport): string {
  const holm = report.comparisons.some((c) => c.isHolmAdjusted);
  const confidences = [
    ...new Set(
      report.comparisons
        .filter((c) => c.verdict !== "not_compared")
        .map((c) => confidenceText(c.verdictConfidence)),
    ),
  ];
  return `Only tasks both tools have graded trials on count; a pair with none is not compared. The test is McNemar's exact test on per-task outcomes when each tool has one trial per task, else the Wilcoxon signed-rank test on per-task resolve rates${holm ? "; p-values are Holm-adjusted over the pairs compared" : ""}. Level ${String(report.level)}. The interval of a - b is a paired bootstrap over tasks at the confidence the pair's test is held to (${confidences.join(", ") || "–"}${holm ? ": Holm's step for that pair" : ""}), so it excludes 0 when the verdict is a difference, unless the sentence says why not.${report.clustering === null ? "" : ` The tasks are clustered by ${clusterWords(report.clustering.field, 1)}: the interval shown is the cluster-paired bootstrap (${clusterWords(report.clustering.field)} resampled, then tasks within them), and a difference the test finds stands only when that interval excludes 0.`} Detectable: the smallest difference above the lower rate that these tasks and trials would find 80% of the time (tools independent on a task; see \`lab plan\`).`;
}

/**
 * A tool's pass@k or pass^k at each k, as table cells, shared by the Markdown and HTML tables;
 * a k that fewer than all the tool's tasks reach says over how many it is.
 */
export function passCells(
  tool: ToolReport,
  ks: readonly number[],
  metric: "pass@k" | "pass^k",
): string[] {
  return ks.map((k) => {
    const point = tool.passAtK[k - 1];
    if (point === undefined) return "–";
    const value = percent(metric === "pass@k" ? point.passAtK : point.passHatK);
    return point.tasks < tool.summary.tasks ? `${value} (${String(point.tasks)} tasks)` : value;
  });
}

/** The k columns of a pass@k table: all of 1..K up to ten, else a readable subset. */
export function passColumns(maxK: number): number[] {
  if (maxK <= 10) return Array.from({ length: maxK }, (_, i) => i + 1);
  return [...new Set([1, 2, 3, 5, 10, 15, 20, 25, 50, 100].filter((k) => k < maxK).concat(maxK))];
}

function renderRates(report: SuiteReport): string {
  const rows = report.tools.map(({ label, summary: row }) => [
    label,
    percent(row.resolve_rate),
    percentInterval(row.resolve_rate_ci_low, row.resolve_rate_ci_high),
    String(row.trials),
    percentInterval(row.resolve_rate_boot_low, row.resolve_rate_boot_high),
    String(row.tasks),
    ...(report.clustering === null
      ? []
      : [
          decimal(row.resolve_rate_se === null ? null : row.resolve_rate_se * 100, 1),
          decimal(
            row.resolve_rate_cluster_se === null ? null : row.resolve_rate_cluster_se * 100,
            1,
          ),
          percentInterval(row.resolve_rate_cluster_boot_low, row.resolve_rate_cluster_boot_high),
        ]),
    dollars(row.cost_total),
    dollars(row.cost_per_resolved),
    seconds(row.latency_p90_s),
    tokens(row.input_tokens_mean),
    tokens(row.output_tokens_mean),
    tokens(
      row.cache_read_tokens_mean === null && row.cache_write_tokens_mean === null
        ? null
        : (row.cache_read_tokens_mean ?? 0) + (row.cache_write_tokens_mean ?? 0),
    ),
  ]);
  const header = [
    "tool",
    "resolve rate",
    "95% CI (Wilson)",
    "trials",
    "95% CI (bootstrap)",
    "tasks",
    ...(report.clustering === null
      ? []
      : [
          "SE (tasks, points)",
          `SE (clustered, points)`,
          `95% CI (cluster bootstrap over ${clusterWords(report.clustering.field)})`,
        ]),
    "total cost",
    "cost/resolved",
    "p90 latency",
    "input tokens",
    "output tokens",
    "cache tokens",
  ];
  const infra = report.tools.filter((tool) => tool.summary.infra_errors > 0);
  const unequal = report.tools.filter(
    (tool) => tool.summary.trials_per_task_min < tool.summary.trials_per_task,
  );
  const notes = [
    "The Wilson interval counts trials; the bootstrap resamples tasks (seeded), so repeated trials of one task are not taken as independent. Latency is the tool's own run time; tokens are means per trial that reported them.",
    ...(unequal.length === 0
      ? []
      : [
          `Tasks have unequal numbers of graded trials (${unequal.map((tool) => `${tool.label}: ${String(tool.summary.trials_per_task_min)} to ${String(tool.summary.trials_per_task)}`).join(", ")}): the resolve rate weighs every task the same (the mean of per-task rates), as the bootstrap and the comparisons do, and the Wilson interval counts the trials that weighting is worth (Kish's effective number).`,
        ]),
    ...[clusteringNote(report), wideningNote(report)].filter(
      (line): line is string => line !== null,
    ),
    ...(report.tools.some((tool) => tool.summary.empty_changes > 0)
      ? [
          `Empty changes, counted apart from the apply rate (which is over non-empty changes): ${report.tools.map((tool) => `${tool.label} ${String(tool.summary.empty_changes)}`).join(", ")}.`,
        ]
      : []),
    infra.length === 0
      ? "No infrastructure errors."
      : `Infrastructure errors, left out of every rate: ${infra.map((tool) => `${tool.label} ${String(tool.summary.infra_errors)}`).join(", ")}.`,
  ];
  return `### Resolve rate, cost and tokens\n\n${renderMarkdownTable(header, rows, right(header.length))}\n\n${notes.join("\n\n")}\n`;
}

function renderRepeated(report: SuiteReport): string {
  const repeated = report.tools.filter((tool) => tool.summary.trials_per_task > 1);
  const ks = passColumns(Math.max(...repeated.map((tool) => tool.passAtK.length)));
  const passRows = repeated.flatMap((tool) =>
    (["pass@k", "pass^k"] as const).map((metric) => [
      tool.label,
      metric,
      ...passCells(tool, ks, metric),
    ]),
  );
  const passTable = renderMarkdownTable(
    ["tool", "metric", ...ks.map((k) => `k=${String(k)}`)],
    passRows,
    right(ks.length + 2, 2),
  );
  const consistencyTable = renderMarkdownTable(
    [
      "tool",
      "trials/task",
      "mean consistency",
      "flip rate",
      "rate variance across trials",
      "inconsistent tasks",
    ],
    repeated.map((tool) => [
      tool.label,
      String(tool.summary.trials_per_task),
      percent(tool.summary.mean_consistency),
      percent(tool.summary.flip_rate),
      decimal(tool.summary.rate_variance, 4),
      `${String(tool.tasks.filter((line) => line.consistency !== null && line.resolved > 0 && line.resolved < line.trials).length)}/${String(tool.tasks.filter((line) => line.consistency !== null).length)}`,
    ]),
    right(6),
  );
  const shaky = repeated
    .flatMap((tool) =>
      tool.tasks
        .filter((line) => line.consistency !== null && line.consistency < 1)
        .map((line) => ({ tool, line })),
    )
    .sort(
      (x, y) =>
        (x.line.consistency ?? 1) - (y.line.consistency ?? 1) ||
        (y.line.flipRate ?? 0) - (x.line.flipRate ?? 0),
    )
    .slice(0, 10);
  const shakyTable =
    shaky.length === 0
      ? "Every task had the same outcome in all its trials."
      : `Least consistent tasks:\n\n${renderMarkdownTable(
          ["tool", "task", "resolved", "consistency", "flip rate"],
          shaky.map(({ tool, line }) => [
            tool.label,
            line.taskId,
            `${String(line.resolved)}/${String(line.trials)}`,
            percent(line.consistency),
            percent(line.flipRate),
          ]),
          [false, false, true, true, true],
        )}`;
  return `### Repeated trials\n\npass@k: the chance that at least one of k trials resolves a task; pass^k: that all k do (unbiased estimators, mean over the tasks with at least k graded trials; a k fewer tasks reach says how many).\n\n${passTable}\n\n${consistencyTable}\n\n${shakyTable}\n`;
}

function renderComparisons(report: SuiteReport): string {
  if (report.comparisons.length === 0)
    return "### Paired comparisons\n\nOne tool: nothing to compare.\n";
  const sentences = report.comparisons.map((comparison) => `- ${comparison.sentence}`).join("\n");
  const table = renderMarkdownTable(
    [...COMPARISON_COLUMNS, "verdict (a vs b)"],
    report.comparisons.map((c) => [...comparisonCells(c), verdictCell(c)]),
    right(12, 2),
  );
  return `### Paired comparisons\n\n${sentences}\n\n${table}\n\n${comparisonMethod(report)}\n`;
}

/** One slice table: a row per value, a column per tool. */
export function renderSliceMarkdown(slice: SliceTable, tools: readonly ToolReport[]): string {
  const rows = slice.rows.map((row) => [
    row.value,
    String(row.tasks),
    ...row.cells.map((cell) =>
      cell.trials === 0
        ? "–"
        : `${percent(cell.rate)} ${percentInterval(cell.low, cell.high)} (${String(cell.resolved)}/${String(cell.trials)})`,
    ),
  ]);
  return `#### ${slice.title}\n\n${renderMarkdownTable([slice.column, "tasks", ...tools.map((tool) => tool.label)], rows, right(tools.length + 2))}\n`;
}

function renderSlices(report: SuiteReport): string {
  if (report.slices.length === 0)
    return "### Slices\n\nThe runs hold no task facts (tasks.json); rerun them to slice by repository and difficulty.\n";
  return `### Slices\n\nEach cell: resolve rate, 95% Wilson interval, resolved/trials.\n\n${report.slices.map((slice) => renderSliceMarkdown(slice, report.tools)).join("\n")}`;
}

/** The report as Markdown; the first table is the one `lab report` has always printed. */
export function renderReportMarkdown(
  report: SuiteReport,
  sections: readonly MarkdownSection[] = ALL_SECTIONS,
  options: { readonly heading?: boolean } = {},
): string {
  // Without its "## suite" heading, for a page that has its own (the tier READMEs).
  const parts: string[] = options.heading === false ? [] : [`## ${report.suite}\n`];
  for (const section of sections) {
    if (section === "runs") parts.push(renderRuns(report));
    if (section === "summary")
      parts.push(
        renderSummaryMarkdown(
          report.tools.map((tool) => ({ label: tool.label, row: tool.summary })),
        ),
      );
    if (section === "rates") parts.push(renderRates(report));
    if (section === "failures") parts.push(renderFailuresMarkdown(report.failures));
    if (section === "repeated" && report.isRepeated) parts.push(renderRepeated(report));
    if (section === "comparisons") parts.push(renderComparisons(report));
    if (section === "slices") parts.push(renderSlices(report));
    if (section === "integrity") parts.push(renderIntegrityMarkdown(report.integrity));
    if (section === "contamination") {
      const text = renderContaminationMarkdown(report.contamination);
      if (text !== "") parts.push(text);
    }
  }
  return parts.join("\n");
}
