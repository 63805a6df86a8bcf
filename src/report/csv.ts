import { cleanNumber } from "./format.js";
import type { ToolSummary } from "./summary.js";

/** The CSV columns: every field of a tool's row, in the JSON output's order. */
export const CSV_COLUMNS: readonly (keyof ToolSummary)[] = [
  "tool",
  "tool_version",
  "run_id",
  "suite",
  "tasks",
  "trials",
  "resolved",
  "resolve_rate",
  "apply_rate",
  "cost_per_task",
  "latency_mean_s",
  "latency_median_s",
  "infra_errors",
  "resolve_rate_ci_low",
  "resolve_rate_ci_high",
  "resolve_rate_boot_low",
  "resolve_rate_boot_high",
  "cost_total",
  "cost_per_resolved",
  "latency_p90_s",
  "input_tokens_mean",
  "output_tokens_mean",
  "cache_read_tokens_mean",
  "cache_write_tokens_mean",
  "trials_per_task",
  "mean_consistency",
  "flip_rate",
  "rate_variance",
  "flagged",
  "trials_per_task_min",
  "label",
  "run_status",
  "run_trials_done",
  "run_trials_planned",
  "run_updated_at",
  "cost_per_trial",
  "empty_changes",
  "resolve_rate_se",
  "cluster_field",
  "clusters",
  "resolve_rate_cluster_se",
  "resolve_rate_cluster_boot_low",
  "resolve_rate_cluster_boot_high",
  "is_isolated",
  "infra_error_rate",
  "infra_environment",
  "infra_lab",
  "infra_machine",
  "infra_unclassified",
  "tool_exited_nonzero",
  "tool_exit_codes",
  "tool_timed_out",
  "limit_memory",
  "limit_disk",
  "limit_processes",
  "failure_warning",
];

/** One CSV field, RFC 4180 style: quoted when it holds a comma, quote or line break; null is empty. */
function field(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  const text = String(typeof value === "number" ? cleanNumber(value) : value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report as CSV: a header, then one row per tool; lines end in \n, for Unix tools. */
export function renderCsv(summaries: readonly ToolSummary[]): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const summary of summaries)
    lines.push(CSV_COLUMNS.map((column) => field(summary[column])).join(","));
  return `${lines.join("\n")}\n`;
}
