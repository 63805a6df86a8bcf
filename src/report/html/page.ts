/**
 * The report as one self-contained page: inline CSS, script and SVG, the trial data embedded
 * as JSON, nothing fetched. A Content-Security-Policy forbids loading anything at all, so the
 * page works offline and text from the store could not pull in a resource even if it escaped.
 */
import type { RunRecord } from "../../core/index.js";
import type { RunTasks } from "../../store/index.js";
import type { SuiteReport } from "../model.js";
import { SCRIPT, STYLE } from "./assets.js";
import type { TrialDetail } from "./details.js";
import { embedJson, escapeHtml } from "./escape.js";
import { renderFailuresSection } from "./failures-section.js";
import { detailKey, renderGridSection } from "./grid.js";
import {
  renderChartSection,
  renderComparisonSection,
  renderRepeatedSection,
  renderRunsSection,
  renderSliceSection,
  renderSummarySection,
} from "./sections.js";

/** What the page shows beside the report model. */
export interface PageInput {
  readonly report: SuiteReport;
  readonly records: readonly RunRecord[];
  readonly tasks: RunTasks;
  /** Every trial's details, in any order; matched to the grid by tool label, task and trial. */
  readonly details: readonly TrialDetail[];
  /** lab's version, shown in the footer. */
  readonly labVersion: string;
}

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The ids of the page's sections, in order; the tests check each is there. */
export const PAGE_SECTIONS = [
  "runs",
  "summary",
  "failures",
  "comparisons",
  "chart",
  "repeated",
  "slices",
  "tasks",
] as const;

const NAV: Record<(typeof PAGE_SECTIONS)[number], string> = {
  runs: "Runs",
  summary: "Summary",
  failures: "Failures",
  chart: "Cost",
  repeated: "Repeated trials",
  comparisons: "Comparisons",
  slices: "Slices",
  tasks: "Tasks",
};

/** Renders the whole page. */
export function renderReportHtml(input: PageInput): string {
  const { report, records, tasks, details } = input;
  const labels = new Map(report.tools.map((tool, index) => [tool.label, index]));
  const index = new Map<string, number>();
  details.forEach((detail, i) => {
    const toolIndex = labels.get(detail.tool);
    if (toolIndex !== undefined) index.set(detailKey(toolIndex, detail.taskId, detail.trial), i);
  });
  const updated = records.reduce(
    (latest, record) => (record.updatedAt > latest ? record.updatedAt : latest),
    "",
  );
  const trials = report.tools.reduce(
    (sum, tool) => sum + tool.summary.trials + tool.summary.infra_errors,
    0,
  );
  const runs = records
    .map(
      (record) =>
        `<b>${escapeHtml(record.tool)}</b> ${escapeHtml(record.toolVersion)} (run ${escapeHtml(record.runId)}, ${escapeHtml(record.status)})`,
    )
    .join(", ");
  const meta = `${String(report.taskIds.length)} tasks · ${String(trials)} trials · ${runs}${updated === "" ? "" : ` · last updated ${escapeHtml(updated.replace("T", " ").replace(/\.\d+Z$/, " UTC"))}`}`;
  const body = [
    renderRunsSection(report),
    renderSummarySection(report),
    renderFailuresSection(report),
    renderComparisonSection(report),
    renderChartSection(report),
    renderRepeatedSection(report),
    renderSliceSection(report),
    renderGridSection(report, tasks, index),
  ].join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lab ${escapeHtml(input.labVersion)}">
<title>${escapeHtml(`lab report: ${report.suite}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top"><h1>lab report · <span class="suite">${escapeHtml(report.suite)}</span></h1><div class="meta">${meta}</div></header>
<nav>${PAGE_SECTIONS.map((id) => `<a href="#${id}">${NAV[id]}</a>`).join("")}</nav>
<main>
${body}
<footer>Made by lab ${escapeHtml(input.labVersion)} from the run folders alone. Intervals are 95%; verdicts at level ${escapeHtml(String(report.level))}.</footer>
</main>
<aside id="trial" aria-label="Trial details"><header><div class="head"><h2 id="trial-title"></h2><button type="button" class="close" id="trial-close" aria-label="Close" title="Close (Esc)">×</button></div><dl id="trial-facts"></dl></header><div class="tabs" id="trial-tabs" role="tablist"></div><div class="file-note" id="trial-note" hidden></div><pre class="file" id="trial-file"></pre></aside>
<script type="application/json" id="lab-trials">${embedJson(details)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
