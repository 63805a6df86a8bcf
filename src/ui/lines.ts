/** The lines a run or a gen leaves in a log: the plain display's whole output. */
import type { RunEvent, TrialResult } from "../core/index.js";

/** Something text can be written to. */
export interface TextSink {
  write(text: string): unknown;
}

/** The one-word verdict of a trial, as users read it, its reason cut to `max` characters. */
export function describeVerdict(result: TrialResult, max = 120): string {
  switch (result.outcome.kind) {
    case "infra_error":
      return `infra error (${result.outcome.phase}): ${result.outcome.message}`;
    case "tool_timeout":
      return `${result.resolved === true ? "resolved" : "unresolved"} (tool timed out)`;
    case "tool_crashed":
      return `${result.resolved === true ? "resolved" : "unresolved"} (tool exited ${String(result.outcome.exitCode ?? result.outcome.signal)}${result.outcome.message === undefined ? "" : `: ${shorten(result.outcome.message, max)}`})`;
    case "graded":
      return result.resolved === true
        ? "resolved"
        : `unresolved${result.grade?.reason == null ? "" : `: ${shorten(result.grade.reason, max)}`}`;
  }
}

/**
 * A run's tool as its start line names it: its label first when it has one (the name reports
 * give it), then the tool and its version; "unknown" is said as such, not as if it were the
 * version (`command (version unknown)`, `mine (command, version unknown)`, `mine (aider 0.86)`).
 */
export function describeTool(tool: string, version: string, label?: string): string {
  const known = version !== "unknown";
  if (label === undefined || label === tool)
    return known ? `${tool} ${version}` : `${tool} (version unknown)`;
  return `${label} (${tool}${known ? ` ${version}` : ", version unknown"})`;
}

/** Cuts text to `max` characters, marking the cut. */
function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** Colors a text with an ANSI code, or leaves it plain. */
export type Paint = (code: number, text: string) => string;

/** ANSI colors when `color`, plain text otherwise. */
export function painter(color: boolean): Paint {
  return (code, text) => (color ? `\u001b[${String(code)}m${text}\u001b[0m` : text);
}

/**
 * The line an event leaves in a log, without its newline; null for the events only a live
 * display shows (a trial starting, a phase). The plain display prints these lines and the live
 * one keeps them above its status area, so both leave the same record. With `width` (a
 * terminal's), a trial's line is cut to it at its reason, which its grader.log holds whole;
 * other lines stay whole, so a path in them can be copied.
 */
export function describeEventLine(event: RunEvent, paint: Paint, width?: number): string | null {
  switch (event.type) {
    case "run:start":
      return (
        `lab: ${event.resumed ? "resuming" : "starting"} run ${event.runId}: ${describeTool(event.tool, event.toolVersion, event.label)} on ${event.suite}, ${String(event.pending)} trial(s) to do` +
        (event.skipped > 0 ? `, ${String(event.skipped)} already done` : "")
      );
    case "trial:end": {
      const { result } = event;
      const head = `[${String(event.done)}/${String(event.pending)}] ${result.taskId} #${String(result.trial)}: `;
      const tail = ` (${seconds(result.durationMs)})`;
      const verdict = shorten(
        describeVerdict(result),
        width === undefined ? Infinity : Math.max(20, width - head.length - tail.length),
      );
      const colored =
        result.resolved === true
          ? paint(32, verdict)
          : result.outcome.kind === "infra_error"
            ? paint(33, verdict)
            : paint(31, verdict);
      return `${head}${colored}${tail}`;
    }
    case "run:end": {
      const { summary, planned } = event;
      // A trial is done once graded: an infra error is tried again on resume.
      const done = summary.trials - summary.infraErrors;
      const resolved = String(summary.resolved);
      // A run that stopped short says how much of its plan is done, not only what ran; one
      // whose folder holds more trials than this command named says whose they are.
      const counts =
        done < planned
          ? `${String(done)} of ${String(planned)} trials done, ${resolved} resolved`
          : summary.trials > planned
            ? `${resolved}/${String(done)} resolved over the run's ${String(summary.trials)} trials (this command named ${String(planned)})`
            : `${resolved}/${String(done)} resolved`;
      return (
        `lab: run ${event.runId} ${event.status}: ${counts}` +
        (summary.infraErrors > 0 ? `, ${String(summary.infraErrors)} infra error(s)` : "") +
        `; results in ${event.runDir}`
      );
    }
    case "log":
      return `lab: ${event.level === "warn" ? "warning: " : ""}${event.message}`;
    case "proof:task:end":
      return `lab: [${String(event.done)}/${String(event.total)}] ${event.kept ? event.message : paint(31, event.message)}`;
    case "trial:start":
    case "trial:phase":
    case "proof:start":
    case "proof:task:start":
    case "proof:task:phase":
    case "proof:end":
      return null;
  }
}
