/**
 * The report as a CI gate (`lab report --fail-under`, `--no-worse-than`): pure checks over a
 * built report, each failure said in a sentence. The convention is promptfoo's thresholds: the
 * report prints as usual, and the exit code says whether the gate held.
 */
import { LabError } from "../core/index.js";
import { percent, pValue } from "./format.js";
import type { SuiteReport, ToolReport } from "./model.js";

/** What the gate checks. */
export interface GateOptions {
  /** Fail when a checked tool's resolve rate (or its interval's lower end) is under this. */
  readonly failUnder?: number | undefined;
  /** Compare the lower end of the interval, not the rate: the cluster bootstrap's when the tasks are clustered, else Wilson's. */
  readonly useInterval?: boolean;
  /** Fail when a checked tool is worse than this one with significance (the report's verdict). */
  readonly noWorseThan?: string | undefined;
  /** The tools checked, by report label; every tool (but the baseline) when empty. */
  readonly tools?: readonly string[];
}

/** The gate's outcome: every failure in words, none when it held. */
export interface GateResult {
  readonly failures: readonly string[];
  /** What was checked, in words, for the line printed when the gate holds. */
  readonly checked: readonly string[];
}

function findTool(report: SuiteReport, label: string, option: string): ToolReport {
  const tool = report.tools.find((candidate) => candidate.label === label);
  if (tool === undefined)
    throw new LabError("USAGE", `${option} "${label}": no tool of that name in the report.`, {
      hint: `Tools in the report: ${report.tools.map((candidate) => candidate.label).join(", ") || "none"}.`,
    });
  return tool;
}

/** The lower end the gate compares with --ci, and its name. */
function lowerEnd(tool: ToolReport): { value: number; name: string } {
  const s = tool.summary;
  if (s.resolve_rate_cluster_boot_low !== null)
    return { value: s.resolve_rate_cluster_boot_low, name: "cluster bootstrap interval" };
  return { value: s.resolve_rate_ci_low, name: "Wilson interval" };
}

/** Checks a report against the gate's thresholds. */
export function checkGate(report: SuiteReport, options: GateOptions): GateResult {
  const failures: string[] = [];
  const checked: string[] = [];
  const named = options.tools ?? [];
  const baseline =
    options.noWorseThan === undefined
      ? null
      : findTool(report, options.noWorseThan, "--no-worse-than");
  const tools =
    named.length > 0
      ? named.map((label) => findTool(report, label, "--tool"))
      : report.tools.filter((tool) => tool !== baseline);
  if (options.failUnder !== undefined) {
    const threshold = options.failUnder;
    for (const tool of tools) {
      if (tool.summary.tasks === 0) {
        failures.push(`${tool.label} has no graded trial, so no resolve rate to check.`);
        continue;
      }
      if (options.useInterval === true) {
        const { value, name } = lowerEnd(tool);
        checked.push(`${tool.label}: ${name} from ${percent(value)}`);
        if (value < threshold)
          failures.push(
            `${tool.label}'s 95% ${name} starts at ${percent(value)}, under ${percent(threshold)} (resolve rate ${percent(tool.summary.resolve_rate)}).`,
          );
      } else {
        checked.push(`${tool.label}: ${percent(tool.summary.resolve_rate)}`);
        if (tool.summary.resolve_rate < threshold)
          failures.push(
            `${tool.label}'s resolve rate ${percent(tool.summary.resolve_rate)} is under ${percent(threshold)}.`,
          );
      }
    }
  }
  if (baseline !== null) {
    for (const tool of tools) {
      if (tool === baseline) continue;
      const pair = report.comparisons.find(
        (c) =>
          (c.a === tool.label && c.b === baseline.label) ||
          (c.b === tool.label && c.a === baseline.label),
      );
      if (pair === undefined || pair.verdict === "not_compared") {
        failures.push(
          `${tool.label} and ${baseline.label} share no graded task, so ${tool.label} cannot be shown no worse.`,
        );
        continue;
      }
      const isWorse =
        (pair.a === tool.label && pair.verdict === "worse") ||
        (pair.b === tool.label && pair.verdict === "better");
      checked.push(`${tool.label} against ${baseline.label}: ${pValue(pair.pAdjusted)}`);
      if (isWorse)
        failures.push(
          `${tool.label} is worse than ${baseline.label} with significance: ${pair.sentence}`,
        );
    }
  }
  return { failures, checked };
}
