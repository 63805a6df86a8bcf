/** The page's failures section: the Markdown report's failures table, as HTML. */
import { FAILURE_COLUMNS, FAILURES_NOTE, failureCells } from "../failures.js";
import type { SuiteReport } from "../model.js";
import { escapeHtml } from "./escape.js";
import { htmlTable, toolName } from "./sections.js";

/** How each tool's trials ended badly, and the warning when most ended one way. */
export function renderFailuresSection(report: SuiteReport): string {
  const rows = report.failures.tools.map((failures, index) => {
    const tool = report.tools[index];
    const cells: (string | { readonly html: string })[] = failureCells(failures);
    if (tool !== undefined) cells[0] = toolName(tool, index);
    return cells;
  });
  const warnings = report.failures.tools
    .filter((tool) => tool.warning !== null)
    .map(
      (tool) =>
        `<p class="warning"><b>Warning:</b> ${escapeHtml(`${tool.label}: ${String(tool.warning)}.`)}</p>`,
    )
    .join("");
  return `<section id="failures"><h2>Failures</h2>${htmlTable(FAILURE_COLUMNS, rows, 1, "failures-table")}${warnings}<p class="note">${escapeHtml(FAILURES_NOTE)}</p></section>`;
}
