import { FAILURE_COLUMNS, FAILURES_NOTE, failureCells, type FailuresReport } from "./failures.js";
import { renderMarkdownTable } from "./tables.js";

/** The failures section of the Markdown report. */
export function renderFailuresMarkdown(failures: FailuresReport): string {
  const table = renderMarkdownTable(FAILURE_COLUMNS, failures.tools.map(failureCells), [
    false,
    true,
    true,
    false,
    true,
    false,
    true,
    false,
    true,
  ]);
  const warnings = failures.tools
    .filter((tool) => tool.warning !== null)
    .map((tool) => `**Warning:** ${tool.label}: ${String(tool.warning)}.`);
  return `### Failures\n\n${table}\n\n${[FAILURES_NOTE, ...warnings].join("\n\n")}\n`;
}
