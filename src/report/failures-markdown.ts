import { FAILURE_COLUMNS, FAILURES_NOTE, failureCells, type FailuresReport } from "./failures.js";
import { renderMarkdownTable } from "./tables.js";

/** The failures section of the Markdown report. */
export function renderFailuresMarkdown(failures: FailuresReport): string {
  // Counts and rates right-aligned; the lists (classes, codes, limits) left.
  const listed = new Set([0, 4, 6, 8]);
  const table = renderMarkdownTable(
    FAILURE_COLUMNS,
    failures.tools.map(failureCells),
    FAILURE_COLUMNS.map((_, column) => !listed.has(column)),
  );
  const warnings = failures.tools
    .filter((tool) => tool.warning !== null)
    .map((tool) => `**Warning:** ${tool.label}: ${String(tool.warning)}.`);
  return `### Failures\n\n${table}\n\n${[FAILURES_NOTE, ...warnings].join("\n\n")}\n`;
}
