import { dollars, percent, seconds } from "./format.js";
import type { ToolSummary } from "./summary.js";

/** Renders rows as a Markdown table, aligned for reading in a terminal too. */
export function renderMarkdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  alignRight: readonly boolean[] = [],
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => (alignRight[column] === true ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((width, column) => (alignRight[column] === true ? `${"-".repeat(width + 1)}:` : "-".repeat(width + 2))).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/**
 * The suite report's first table as Markdown: one row per tool, named by its report label (its
 * run id where two rows would otherwise look the same).
 */
export function renderSummaryMarkdown(
  tools: readonly { readonly label: string; readonly row: ToolSummary }[],
): string {
  const header = [
    "tool",
    "version",
    "tasks",
    "resolved",
    "resolve rate",
    "apply rate",
    "empty changes",
    "cost/task",
    "cost/trial",
    "mean latency",
    "median latency",
    "infra errors",
  ];
  const rows = tools.map(({ label, row }) => [
    label,
    row.tool_version,
    String(row.tasks),
    `${String(row.resolved)}/${String(row.trials)}`,
    percent(row.resolve_rate),
    percent(row.apply_rate),
    String(row.empty_changes),
    dollars(row.cost_per_task),
    dollars(row.cost_per_trial),
    seconds(row.latency_mean_s),
    seconds(row.latency_median_s),
    String(row.infra_errors),
  ]);
  const table = renderMarkdownTable(
    header,
    rows,
    header.map((_, column) => column >= 2),
  );
  return `${table}\n`;
}
