/** The page's tables, as HTML. Every text taken from the store goes through escapeHtml. */
import { verdictCell } from "../comparisons.js";
import { decimal, dollars, percent, percentInterval, tokens } from "../format.js";
import {
  COMPARISON_COLUMNS,
  comparisonCells,
  clusteringNote,
  comparisonMethod,
  passCells,
  passColumns,
  RUN_COLUMNS,
  runCells,
  runStatusText,
  wideningNote,
} from "../markdown.js";
import type { SuiteReport, ToolReport } from "../model.js";
import { renderCostChart, renderPassChart, toolColor } from "./chart.js";
import { escapeHtml } from "./escape.js";
import { renderDifferenceChart, renderRateChart, renderSliceChart } from "./interval-charts.js";

/** Trusted markup, built here from escaped parts. */
interface Raw {
  readonly html: string;
}

type Cell = string | Raw;

const raw = (html: string): Raw => ({ html });

function cellHtml(cell: Cell): string {
  return typeof cell === "string" ? escapeHtml(cell) : cell.html;
}

/** A table; columns from `numericFrom` on are right-aligned numbers. */
export function htmlTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  numericFrom = 1,
  id?: string,
): string {
  const th = header
    .map((title, i) => `<th${i >= numericFrom ? ' class="num"' : ""}>${escapeHtml(title)}</th>`)
    .join("");
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell, i) => `<td${i >= numericFrom ? ' class="num"' : ""}>${cellHtml(cell)}</td>`).join("")}</tr>`,
    )
    .join("");
  return `<div class="table-wrap"><table${id === undefined ? "" : ` id="${escapeHtml(id)}"`}><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** A tool's name with its chart color. */
export function toolName(tool: ToolReport, index: number): Raw {
  return raw(
    `<span class="swatch" style="background:${toolColor(index)}"></span>${escapeHtml(tool.label)}`,
  );
}

function rateWithInterval(rate: number | null, low: number | null, high: number | null): Raw {
  return raw(
    `<span class="rate">${escapeHtml(percent(rate))}</span> <span class="ci">${escapeHtml(percentInterval(low, high))}</span>`,
  );
}

/** The runs the page was made from, first: which, how complete, and why where it matters. */
export function renderRunsSection(report: SuiteReport): string {
  const rows = report.runs.map((run) => {
    const cells: Cell[] = runCells(run);
    cells[3] = raw(
      `<span class="badge ${run.is_complete ? "complete" : "incomplete"}">${escapeHtml(runStatusText(run))}</span>`,
    );
    return cells;
  });
  const notes = report.runs
    .filter((run) => run.note !== null)
    .map((run) => `<li>${escapeHtml(`${run.label} (${run.run_id}): ${String(run.note)}.`)}</li>`)
    .join("");
  const warnings =
    report.taskSetNote === null ? "" : `<p class="note">${escapeHtml(report.taskSetNote)}</p>`;
  return `<section id="runs"><h2>Runs read</h2>${htmlTable(RUN_COLUMNS, rows, 4, "runs-table")}${notes === "" ? "" : `<ul class="notes">${notes}</ul>`}${warnings}</section>`;
}

/** The summary: every per-tool figure, one row per tool. */
export function renderSummarySection(report: SuiteReport): string {
  const rows = report.tools.map((tool, index) => {
    const s = tool.summary;
    return [
      toolName(tool, index),
      s.tool_version,
      String(s.tasks),
      `${String(s.resolved)}/${String(s.trials)}`,
      rateWithInterval(s.resolve_rate, s.resolve_rate_ci_low, s.resolve_rate_ci_high),
      raw(
        `<span class="ci">${escapeHtml(percentInterval(s.resolve_rate_boot_low, s.resolve_rate_boot_high))}</span>`,
      ),
      ...(report.clustering === null
        ? []
        : [
            raw(
              `<span class="ci">${escapeHtml(percentInterval(s.resolve_rate_cluster_boot_low, s.resolve_rate_cluster_boot_high))}</span>`,
            ),
          ]),
      percent(s.apply_rate),
      dollars(s.cost_per_task),
      dollars(s.cost_per_trial),
      dollars(s.cost_per_resolved),
      s.latency_mean_s === null
        ? "–"
        : `${[s.latency_mean_s, s.latency_median_s, s.latency_p90_s].map((value) => (value ?? 0).toFixed(1)).join(" · ")} s`,
      s.input_tokens_mean === null && s.output_tokens_mean === null
        ? "–"
        : `${tokens(s.input_tokens_mean)} · ${tokens(s.output_tokens_mean)}`,
      String(s.infra_errors),
    ];
  });
  const table = htmlTable(
    [
      "tool",
      "version",
      "tasks",
      "resolved",
      "resolve rate · Wilson 95% CI",
      "bootstrap 95% CI",
      ...(report.clustering === null ? [] : ["cluster bootstrap 95% CI"]),
      "apply rate",
      "cost per task",
      "cost per trial",
      "cost per resolved",
      "latency mean · median · p90",
      "tokens in · out",
      "infra errors",
    ],
    rows,
    2,
    "summary-table",
  );
  const infra = report.tools.reduce((sum, tool) => sum + tool.summary.infra_errors, 0);
  const chart = `<div class="card chart-card">${renderRateChart(report.tools)}</div>`;
  return `<section id="summary"><h2>Summary</h2>${table}${chart}<p class="note">Rates count graded trials; ${infra === 0 ? "there were no infrastructure errors" : `${String(infra)} infrastructure error${infra === 1 ? " is" : "s are"} counted apart and left out of every rate`}. The Wilson interval counts trials; the bootstrap interval resamples tasks (${String(report.resamples)} resamples, seed ${String(report.seed)}). Latency is the tool's own run time.${[
    clusteringNote(report),
    wideningNote(report),
  ]
    .filter((line): line is string => line !== null)
    .map((line) => ` ${escapeHtml(line)}`)
    .join("")}</p></section>`;
}

/** Cost against resolve rate, when some tool reported its cost. */
export function renderChartSection(report: SuiteReport): string {
  if (report.tools.every((tool) => tool.summary.cost_per_task === null))
    return `<section id="chart"><h2>Cost and resolve rate</h2><p class="note">No tool reported its cost, so there is nothing to plot against the resolve rate (above). Agent CLIs report theirs; a command tool writes <code>{"costUsd": ...}</code> to <code>$LAB_TELEMETRY_FILE</code>.</p></section>`;
  return `<section id="chart"><h2>Cost and resolve rate</h2><div class="card chart-card">${renderCostChart(report.tools)}<div class="legend">${report.tools.map((tool, index) => `<span>${toolName(tool, index).html}</span>`).join("")}</div></div><p class="note">Up and to the left is better. Bars are 95% Wilson intervals.</p></section>`;
}

/** pass@k, pass^k and consistency, when some task has several trials. */
export function renderRepeatedSection(report: SuiteReport): string {
  if (!report.isRepeated)
    return `<section id="repeated"><h2>Repeated trials</h2><p class="note">Every task has one trial per tool. Run with <code>--trials K</code> to measure pass@k, pass^k and consistency.</p></section>`;
  const tools = report.tools.filter((tool) => tool.summary.trials_per_task > 1);
  const ks = passColumns(Math.max(...tools.map((tool) => tool.passAtK.length)));
  const passRows = report.tools.flatMap((tool, index) =>
    tool.summary.trials_per_task < 2
      ? []
      : (["pass@k", "pass^k"] as const).map((metric) => [
          toolName(tool, index),
          metric,
          ...passCells(tool, ks, metric),
        ]),
  );
  const consistencyRows = report.tools.flatMap((tool, index) =>
    tool.summary.trials_per_task < 2
      ? []
      : [
          [
            toolName(tool, index),
            String(tool.summary.trials_per_task),
            percent(tool.summary.mean_consistency),
            percent(tool.summary.flip_rate),
            decimal(tool.summary.rate_variance, 4),
            tool.trialRates.map((rate) => percent(rate.rate)).join(" · "),
          ],
        ],
  );
  return `<section id="repeated"><h2>Repeated trials</h2><div class="card chart-card">${renderPassChart(report.tools)}<div class="legend">${report.tools.map((tool, index) => `<span>${toolName(tool, index).html}</span>`).join("")}<span class="key">solid: pass@k · dashed: pass^k</span></div></div>${htmlTable(["tool", "metric", ...ks.map((k) => `k=${String(k)}`)], passRows, 2, "pass-table")}${htmlTable(["tool", "trials/task", "mean consistency", "flip rate", "rate variance", "rate by trial number"], consistencyRows, 1, "consistency-table")}<p class="note">pass@k: the chance that at least one of k trials resolves a task; pass^k: that all k do (unbiased estimators, mean over tasks; k up to the fewest graded trials any task has). Consistency: the share of a task's trials that agree with its majority outcome.</p></section>`;
}

/** The verdicts in words, then the figures behind them. */
export function renderComparisonSection(report: SuiteReport): string {
  if (report.comparisons.length === 0)
    return `<section id="comparisons"><h2>Paired comparisons</h2><p class="note">One tool: nothing to compare.</p></section>`;
  const verdicts = report.comparisons
    .map((c) => `<li class="verdict ${escapeHtml(c.verdict)}">${escapeHtml(c.sentence)}</li>`)
    .join("");
  const table = htmlTable(
    [...COMPARISON_COLUMNS.map((title) => title.replace("a - b", "a − b")), "verdict"],
    report.comparisons.map((c) => [
      ...comparisonCells(c),
      raw(`<span class="badge ${escapeHtml(c.verdict)}">${escapeHtml(verdictCell(c))}</span>`),
    ]),
    2,
    "comparison-table",
  );
  const chart = `<div class="card chart-card">${renderDifferenceChart(report.comparisons)}</div>`;
  return `<section id="comparisons"><h2>Paired comparisons</h2><ul class="verdicts">${verdicts}</ul>${chart}${table}<p class="note">${escapeHtml(comparisonMethod(report))}</p></section>`;
}

/** One table per slicing field: a row per value, a column per tool. */
export function renderSliceSection(report: SuiteReport): string {
  if (report.slices.length === 0)
    return `<section id="slices"><h2>Slices</h2><p class="note">The runs hold no task facts (tasks.json): rerun them to slice by repository and difficulty.</p></section>`;
  const tables = report.slices
    .map((slice) => {
      const rows = slice.rows.map((row) => [
        row.value,
        String(row.tasks),
        ...row.cells.map((cell) =>
          cell.trials === 0
            ? "–"
            : raw(
                `${rateWithInterval(cell.rate, cell.low, cell.high).html} <span class="count">${escapeHtml(`${String(cell.resolved)}/${String(cell.trials)}`)}</span>`,
              ),
        ),
      ]);
      const chart = `<div class="card chart-card">${renderSliceChart(slice, report.tools)}</div>`;
      return `<h3>${escapeHtml(slice.title)}</h3>${chart}${htmlTable([slice.column, "tasks", ...report.tools.map((tool) => tool.label)], rows, 1)}`;
    })
    .join("");
  const legend = `<div class="legend">${report.tools.map((tool, index) => `<span>${toolName(tool, index).html}</span>`).join("")}</div>`;
  return `<section id="slices"><h2>Slices</h2><p class="note">Each chart row: a value of the field and its number of tasks, then each tool's resolve rate with its 95% Wilson interval. Each table cell: resolve rate, interval, resolved/trials.</p>${legend}${tables}</section>`;
}
