import type { Reporter, RunEvent } from "../core/index.js";
import { describeEventLine, painter, type TextSink } from "./lines.js";
import { createLiveReporter, type TerminalSink } from "./live.js";

/** How progress is shown. */
export type DisplayMode = "tty" | "plain" | "json" | "silent";

/** One line per event, for logs and CI; `color` adds ANSI colors for terminals. */
export function createLineReporter(sink: TextSink, options: { color: boolean }): Reporter {
  const paint = painter(options.color);
  return {
    emit(event: RunEvent) {
      const line = describeEventLine(event, paint);
      if (line !== null) sink.write(`${line}\n`);
    },
  };
}

/** NDJSON: one JSON object per event, with `time`, when it was emitted (ISO 8601, UTC). */
export function createJsonReporter(sink: TextSink, now: () => Date = () => new Date()): Reporter {
  return {
    emit(event) {
      sink.write(`${JSON.stringify({ time: now().toISOString(), ...event })}\n`);
    },
  };
}

/** Says nothing (tests). */
export function createSilentReporter(): Reporter {
  return { emit: () => undefined };
}

/**
 * Picks the reporter: `--display` if given, else tty on a terminal outside CI, plain otherwise.
 * tty is the live display (live.ts); plain and json print one line per event.
 */
export function createReporter(
  mode: DisplayMode | undefined,
  sink: TerminalSink,
  env: Readonly<Record<string, string | undefined>>,
): Reporter {
  const resolved = mode ?? (sink.isTTY === true && env.CI === undefined ? "tty" : "plain");
  switch (resolved) {
    case "json":
      return createJsonReporter(sink);
    case "silent":
      return createSilentReporter();
    case "tty":
      return createLiveReporter(sink, { color: env.NO_COLOR === undefined });
    case "plain":
      return createLineReporter(sink, { color: false });
  }
}
