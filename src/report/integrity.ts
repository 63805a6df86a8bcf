/**
 * What a report says about trusting its figures: per tool, the trials flagged for tampering
 * with the test run (the cheat count; flagged trials are never resolved), its infrastructure
 * errors, and a warning when one tool has clearly more infrastructure errors than another on
 * the same tasks, since a tool that could cause its own would take its failures out of every
 * rate. See docs/design/integrity.md.
 */
import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";
import { pValue } from "./format.js";
import type { TaskTrials } from "./summary.js";
import { renderMarkdownTable } from "./tables.js";

/** One tool's integrity figures. */
export interface ToolIntegrity {
  readonly label: string;
  /** Graded trials whose change was flagged for tampering with the test run. */
  readonly flagged: number;
  /** Tasks with a flagged trial, sorted. */
  readonly flaggedTasks: readonly string[];
  /** Trials that ended in an infrastructure error, and the tasks they were on. */
  readonly infraErrors: number;
  readonly infraTasks: number;
}

/** A tool with clearly more infrastructure errors than another on the tasks both attempted. */
export interface InfraWarning {
  readonly tool: string;
  readonly other: string;
  /** Shared tasks where only `tool`, or only `other`, had an infrastructure error. */
  readonly onlyTool: number;
  readonly onlyOther: number;
  readonly shared: number;
  /** One-sided exact sign test over the discordant tasks. */
  readonly pValue: number;
  readonly sentence: string;
}

/** The integrity part of a report. */
export interface IntegrityReport {
  readonly tools: readonly ToolIntegrity[];
  readonly warnings: readonly InfraWarning[];
}

/** Builds the integrity figures of some tools' trials, grouped by task. */
export function buildIntegrity(
  tools: readonly { readonly label: string; readonly groups: readonly TaskTrials[] }[],
  level: number,
): IntegrityReport {
  const figures = tools.map(({ label, groups }) => {
    const flaggedTasks = groups
      .filter((group) => group.rows.some((row) => row.flagged && row.kind !== "infra_error"))
      .map((group) => group.taskId)
      .sort();
    const rows = groups.flatMap((group) => group.rows);
    return {
      label,
      flagged: rows.filter((row) => row.flagged && row.kind !== "infra_error").length,
      flaggedTasks,
      infraErrors: rows.filter((row) => row.kind === "infra_error").length,
      infraTasks: groups.filter((group) => group.rows.some((row) => row.kind === "infra_error"))
        .length,
    };
  });
  return { tools: figures, warnings: compareInfraErrors(tools, level) };
}

/**
 * For each ordered pair of tools, the tasks both attempted where exactly one had an
 * infrastructure error; a warning when the first had them on more such tasks than chance
 * allows (exact one-sided sign test at `level`).
 */
function compareInfraErrors(
  tools: readonly { readonly label: string; readonly groups: readonly TaskTrials[] }[],
  level: number,
): InfraWarning[] {
  const hadInfra = tools.map(
    ({ groups }) =>
      new Map(
        groups.map((group) => [group.taskId, group.rows.some((row) => row.kind === "infra_error")]),
      ),
  );
  const warnings: InfraWarning[] = [];
  tools.forEach((tool, a) => {
    tools.forEach((other, b) => {
      if (a === b) return;
      const mine = hadInfra[a] as Map<string, boolean>;
      const theirs = hadInfra[b] as Map<string, boolean>;
      let shared = 0;
      let onlyTool = 0;
      let onlyOther = 0;
      for (const [task, errored] of mine) {
        const otherErrored = theirs.get(task);
        if (otherErrored === undefined) continue;
        shared++;
        if (errored && !otherErrored) onlyTool++;
        if (!errored && otherErrored) onlyOther++;
      }
      const n = onlyTool + onlyOther;
      if (onlyTool <= onlyOther || n === 0) return;
      // P(X >= onlyTool) for X ~ Binomial(n, 1/2).
      const p = onlyTool === 0 ? 1 : 1 - binomialCdf(onlyTool - 1, n, 0.5);
      if (p >= level) return;
      warnings.push({
        tool: tool.label,
        other: other.label,
        onlyTool,
        onlyOther,
        shared,
        pValue: p,
        sentence: `${tool.label} has clearly more infrastructure errors than ${other.label} on the same tasks: on ${String(onlyTool)} of ${String(shared)} shared tasks only ${tool.label} had one, on ${String(onlyOther)} only ${other.label} (${pValue(p)}, one-sided sign test). Infrastructure errors are left out of its rates; read their messages before trusting them.`,
      });
    });
  });
  return warnings;
}

/** The integrity section of the Markdown report. */
export function renderIntegrityMarkdown(integrity: IntegrityReport): string {
  const table = renderMarkdownTable(
    ["tool", "flagged (tampering)", "tasks flagged", "infra errors", "tasks with infra errors"],
    integrity.tools.map((tool) => [
      tool.label,
      String(tool.flagged),
      tool.flaggedTasks.length === 0
        ? "–"
        : `${tool.flaggedTasks.slice(0, 3).join(", ")}${tool.flaggedTasks.length > 3 ? ` and ${String(tool.flaggedTasks.length - 3)} more` : ""}`,
      String(tool.infraErrors),
      String(tool.infraTasks),
    ]),
    [false, true, false, true, true],
  );
  const note =
    "A flagged trial's change tampers with the test run (the scan of the change) or its test log is not the test run's own (the canary tests); it is never resolved.";
  const warnings = integrity.warnings.map((warning) => `**Warning:** ${warning.sentence}`);
  return `### Integrity\n\n${table}\n\n${[note, ...warnings].join("\n\n")}\n`;
}
