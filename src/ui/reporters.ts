import type { Reporter, RunEvent, TrialResult } from "../core/index.js";

/** Something text can be written to. */
export interface TextSink {
  write(text: string): unknown;
}

/** How progress is shown. */
export type DisplayMode = "tty" | "plain" | "json" | "silent";

/** The one-word verdict of a trial, as users read it. */
export function describeVerdict(result: TrialResult): string {
  switch (result.outcome.kind) {
    case "infra_error":
      return `infra error (${result.outcome.phase}): ${result.outcome.message}`;
    case "tool_timeout":
      return `${result.resolved === true ? "resolved" : "unresolved"} (tool timed out)`;
    case "tool_crashed":
      return `${result.resolved === true ? "resolved" : "unresolved"} (tool exited ${String(result.outcome.exitCode ?? result.outcome.signal)}${result.outcome.message === undefined ? "" : `: ${shorten(result.outcome.message, 120)}`})`;
    case "graded":
      return result.resolved === true
        ? "resolved"
        : `unresolved${result.grade?.reason == null ? "" : `: ${shorten(result.grade.reason, 120)}`}`;
  }
}

/** Cuts text to `max` characters, marking the cut. */
function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** One line per event, for logs and CI; `color` adds ANSI colors for terminals. */
export function createLineReporter(sink: TextSink, options: { color: boolean }): Reporter {
  const paint = (code: number, text: string): string =>
    options.color ? `\u001b[${String(code)}m${text}\u001b[0m` : text;
  return {
    emit(event: RunEvent) {
      switch (event.type) {
        case "run:start":
          sink.write(
            `lab: ${event.resumed ? "resuming" : "starting"} run ${event.runId}: ${event.tool} ${event.toolVersion} on ${event.suite}, ${String(event.pending)} trial(s) to do` +
              (event.skipped > 0 ? `, ${String(event.skipped)} already done` : "") +
              `\n`,
          );
          break;
        case "trial:end": {
          const { result } = event;
          const verdict = describeVerdict(result);
          const colored =
            result.resolved === true
              ? paint(32, verdict)
              : result.outcome.kind === "infra_error"
                ? paint(33, verdict)
                : paint(31, verdict);
          sink.write(
            `[${String(event.done)}/${String(event.pending)}] ${result.taskId} #${String(result.trial)}: ${colored} (${seconds(result.durationMs)})\n`,
          );
          break;
        }
        case "run:end": {
          const { summary } = event;
          sink.write(
            `lab: run ${event.runId} ${event.status}: ${String(summary.resolved)}/${String(summary.trials - summary.infraErrors)} resolved` +
              (summary.infraErrors > 0 ? `, ${String(summary.infraErrors)} infra error(s)` : "") +
              `; results in ${event.runDir}\n`,
          );
          break;
        }
        case "log":
          sink.write(`lab: ${event.level === "warn" ? "warning: " : ""}${event.message}\n`);
          break;
        case "trial:start":
        case "trial:phase":
          break;
      }
    },
  };
}

/** NDJSON: one JSON object per event. */
export function createJsonReporter(sink: TextSink): Reporter {
  return {
    emit(event) {
      sink.write(`${JSON.stringify(event)}\n`);
    },
  };
}

/** Says nothing (tests). */
export function createSilentReporter(): Reporter {
  return { emit: () => undefined };
}

/** Picks the reporter: `--display` if given, else tty on a terminal outside CI, plain otherwise. */
export function createReporter(
  mode: DisplayMode | undefined,
  sink: TextSink & { isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>>,
): Reporter {
  const resolved = mode ?? (sink.isTTY === true && env.CI === undefined ? "tty" : "plain");
  const color = resolved === "tty" && env.NO_COLOR === undefined;
  switch (resolved) {
    case "json":
      return createJsonReporter(sink);
    case "silent":
      return createSilentReporter();
    case "tty":
    case "plain":
      return createLineReporter(sink, { color });
  }
}
