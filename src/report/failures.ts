/**
 * How each tool's trials ended badly, so that a rate of 0.0% never stands alone: trials whose
 * tool exited non-zero (and with which codes), timed out, was stopped by a sandbox limit, or
 * made no change; infrastructure errors by class, and their rate beside the resolve rate (as
 * SWE-bench 5.0 reports them). See docs/design/reports.md ("Failures").
 */
import {
  describeFailurePattern,
  INFRA_CLASSES,
  mentionsTmpPath,
  type InfraClass,
  type RunRecord,
  type SandboxLimit,
} from "../core/index.js";
import type { TrialRow } from "../store/index.js";
import { percent } from "./format.js";

/** An exit code (or the signal that ended the tool) and how many trials ended with it. */
export interface ExitCount {
  /** "127", or a signal's name ("SIGKILL"). */
  readonly code: string;
  readonly trials: number;
}

/** One tool's failures. */
export interface ToolFailures {
  readonly label: string;
  /** The tool's resolve rate (the report's), shown beside the infra error rate; null when not given. */
  readonly resolveRate: number | null;
  /** Finished trials, infrastructure errors included: what every count here is out of. */
  readonly trials: number;
  /** Graded trials whose tool exited non-zero or was ended by a signal (a timeout aside). */
  readonly exitedNonZero: number;
  /** Their exit codes (or signals), most common first, at most five. */
  readonly exitCodes: readonly ExitCount[];
  readonly timedOut: number;
  /** Trials whose tool a sandbox limit stopped, per limit. */
  readonly overLimit: Readonly<Record<SandboxLimit, number>>;
  /** Graded trials with an empty change. */
  readonly emptyChange: number;
  readonly infraErrors: number;
  /** infraErrors / trials; null without trials. */
  readonly infraErrorRate: number | null;
  /** Infrastructure errors per class; "unclassified" are old records whose words say nothing. */
  readonly infraClasses: Readonly<Record<InfraClass | "unclassified", number>>;
  /** The run's end-of-run warning: when most trials ended the same bad way, which and why. */
  readonly warning: string | null;
}

/** The failures part of a report. */
export interface FailuresReport {
  readonly tools: readonly ToolFailures[];
}

const LIMITS: readonly SandboxLimit[] = ["memory", "disk", "processes"];

/** One tool's failures over its finished trials (`expectsEmpty`: noop, whose change is empty by design). */
export function tallyFailures(
  label: string,
  rows: readonly TrialRow[],
  options: {
    readonly expectsEmpty?: boolean;
    readonly resolveRate?: number | null;
    /** The run's command line (run.json's config.toolCommand), which may name a /tmp path. */
    readonly command?: string;
  } = {},
): ToolFailures {
  const graded = rows.filter((row) => row.kind !== "infra_error");
  const crashed = graded.filter(
    (row) =>
      row.kind === "tool_crashed" &&
      ((row.exitCode ?? null) !== null ? row.exitCode !== 0 : (row.signal ?? null) !== null),
  );
  const codes = new Map<string, number>();
  for (const row of crashed) {
    const code =
      row.exitCode === null || row.exitCode === undefined
        ? String(row.signal)
        : String(row.exitCode);
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  const infra = rows.filter((row) => row.kind === "infra_error");
  const classes = { environment: 0, lab: 0, machine: 0, unclassified: 0 };
  for (const row of infra) classes[row.infraClass ?? "unclassified"]++;
  const overLimit = { memory: 0, disk: 0, processes: 0 };
  for (const row of graded)
    if (row.limit !== null && row.limit !== undefined) overLimit[row.limit]++;
  return {
    label,
    resolveRate: options.resolveRate ?? null,
    trials: rows.length,
    exitedNonZero: crashed.length,
    exitCodes: [...codes.entries()]
      .map(([code, trials]) => ({ code, trials }))
      .sort((a, b) => b.trials - a.trials || a.code.localeCompare(b.code))
      .slice(0, 5),
    timedOut: graded.filter((row) => row.kind === "tool_timeout").length,
    overLimit,
    emptyChange: graded.filter((row) => row.patchEmpty === true).length,
    infraErrors: infra.length,
    infraErrorRate: rows.length === 0 ? null : infra.length / rows.length,
    infraClasses: classes,
    warning: describeFailurePattern(
      rows,
      { mentionsTmp: mentionsTmpPath(options.command ?? "") },
      options,
    ),
  };
}

/** The failures of every tool (noop's empty changes are its design, never warned of). */
export function buildFailures(
  tools: readonly {
    readonly label: string;
    readonly tool: string;
    readonly rows: readonly TrialRow[];
    readonly resolveRate: number | null;
    readonly command: string;
  }[],
): FailuresReport {
  return {
    tools: tools.map(({ label, tool, rows, resolveRate, command }) =>
      tallyFailures(label, rows, { expectsEmpty: tool === "noop", resolveRate, command }),
    ),
  };
}

/** A run's command line as run.json records it (config.toolCommand); "" when it has none. */
export function commandOf(record: RunRecord): string {
  const command = record.config.toolCommand;
  return typeof command === "string" ? command : "";
}

/** "127 ×10, 1 ×2", or "–". */
export function exitCodesText(codes: readonly ExitCount[]): string {
  return codes.length === 0
    ? "–"
    : codes.map((entry) => `${entry.code} ×${String(entry.trials)}`).join(", ");
}

/** "memory 2, disk 1", or "–". */
export function limitsText(overLimit: Readonly<Record<SandboxLimit, number>>): string {
  const hit = LIMITS.filter((limit) => overLimit[limit] > 0);
  return hit.length === 0
    ? "–"
    : hit.map((limit) => `${limit} ${String(overLimit[limit])}`).join(", ");
}

/** "environment 2, lab 1", or "–". */
export function infraClassesText(
  classes: Readonly<Record<InfraClass | "unclassified", number>>,
): string {
  const hit = [...INFRA_CLASSES, "unclassified" as const].filter((name) => classes[name] > 0);
  return hit.length === 0 ? "–" : hit.map((name) => `${name} ${String(classes[name])}`).join(", ");
}

/** A count out of the tool's trials: "10/10". */
function outOf(count: number, tool: ToolFailures): string {
  return `${String(count)}/${String(tool.trials)}`;
}

/** The header of the failures table, shared by the Markdown and HTML tables. */
export const FAILURE_COLUMNS = [
  "tool",
  "trials",
  "resolve rate",
  "infra error rate",
  "infra errors by class",
  "exited non-zero",
  "exit codes",
  "timed out",
  "over a limit",
  "empty change",
] as const;

/** The cells of a tool's row of the failures table. */
export function failureCells(tool: ToolFailures): string[] {
  return [
    tool.label,
    String(tool.trials),
    percent(tool.resolveRate),
    percent(tool.infraErrorRate),
    infraClassesText(tool.infraClasses),
    outOf(tool.exitedNonZero, tool),
    exitCodesText(tool.exitCodes),
    outOf(tool.timedOut, tool),
    limitsText(tool.overLimit),
    outOf(tool.emptyChange, tool),
  ];
}

/** The note under the failures table. */
export const FAILURES_NOTE =
  "Out of each tool's finished trials. Infrastructure errors (environment: an install, the interpreter, the network to an index; lab; machine: disk, memory) are left out of every rate; the others count as unresolved. A trial can fall under more than one column (a tool killed at the memory limit also exits non-zero).";
