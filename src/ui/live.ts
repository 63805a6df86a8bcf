/**
 * The live display on a terminal: the lines a plain log would show stay in the scrollback, and
 * below them a status area is redrawn in place: done/total with a bar, resolved (or proven) so
 * far, each trial in flight with its phase and time, the elapsed time and an ETA. log-update
 * does the terminal drawing (erasing and rewriting the area, wrapping to the width); see
 * docs/design/live-display.md for why that library.
 */
import { createLogUpdate } from "log-update";
import type { Reporter, RunEvent } from "../core/index.js";
import { describeEventLine, painter, type TextSink } from "./lines.js";

/** A stream that may be a terminal, with its size when it is one. */
export interface TerminalSink extends TextSink {
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
  readonly rows?: number | undefined;
}

/** How the live display draws. */
export interface LiveOptions {
  readonly color: boolean;
  /** The clock, for tests; Date.now by default. */
  readonly now?: () => number;
  /** How often the times are redrawn; 1 s by default. */
  readonly refreshMs?: number;
}

/** One trial (or proof) in flight. */
interface InFlight {
  readonly label: string;
  readonly startedAt: number;
  phase: string;
}

/** What the status area shows. */
interface Progress {
  /** "trials" or "proofs". */
  readonly noun: string;
  /** "resolved" or "proven". */
  readonly goodWord: string;
  readonly total: number;
  readonly startedAt: number;
  done: number;
  good: number;
  readonly inFlight: Map<string, InFlight>;
  /** Each task's expected time (proofs: the ledger's reference), when known. */
  readonly expectedMs?: Readonly<Record<string, number>> | undefined;
  /** Tasks worked on at once. */
  readonly concurrency?: number | undefined;
  /** Tasks finished, by id. */
  readonly finished?: Set<string>;
}

/** What a grading step is, in the words of the phases: checkout, apply, install, tests. */
const GRADE_STEPS: Readonly<Record<string, string>> = {
  checkout: "checkout",
  capture: "checkout",
  apply: "apply",
  environment: "install",
  venv: "install",
  "pre-install": "install",
  layer: "install",
  install: "install",
  reset: "tests",
  services: "tests",
  tests: "tests",
};

/** A phase in words: "grade:tests" -> "grade: tests", "run 1/2 gold: venv" -> "run 1/2 gold: install". */
export function phaseWords(phase: string): string {
  if (phase.startsWith("grade:")) return `grade: ${GRADE_STEPS[phase.slice(6)] ?? phase.slice(6)}`;
  const cut = phase.lastIndexOf(": ");
  if (cut === -1) return phase;
  const step = phase.slice(cut + 2);
  return `${phase.slice(0, cut)}: ${GRADE_STEPS[step] ?? step}`;
}

/** 75 s -> "1:15", 3 725 s -> "1:02:05". */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0
    ? `${String(hours)}:${String(minutes).padStart(2, "0")}:${seconds}`
    : `${String(minutes)}:${seconds}`;
}

/**
 * From reference times: what the unfinished tasks are expected to take, less the time those in
 * flight have had already, spread over the tasks worked on at once.
 */
export function expectedRemainingMs(
  progress: Pick<Progress, "expectedMs" | "concurrency" | "finished" | "inFlight">,
  now: number,
): number {
  let total = 0;
  for (const [id, ms] of Object.entries(progress.expectedMs ?? {})) {
    if (progress.finished?.has(id) === true) continue;
    const flight = progress.inFlight.get(id);
    total += Math.max(0, ms - (flight === undefined ? 0 : now - flight.startedAt));
  }
  return total / Math.max(1, progress.concurrency ?? 1);
}

/** A bar of `width` cells, `done` of `total` filled. */
function bar(done: number, total: number, width: number): string {
  const filled = total === 0 ? width : Math.round((width * done) / total);
  return `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
}

/** Cuts a line to the terminal's width (plain text: color is added after). */
function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** The terminal's size; one that says none (0 x 0: `script`, some CI ptys) gets 80 x 24. */
export function terminalSize(sink: {
  readonly columns?: number | undefined;
  readonly rows?: number | undefined;
}): {
  columns: number;
  rows: number;
} {
  const positive = (value: number | undefined) =>
    value !== undefined && value > 0 ? value : undefined;
  return { columns: positive(sink.columns) ?? 80, rows: positive(sink.rows) ?? 24 };
}

/**
 * The status area: the bar line, then one line per trial in flight, oldest first, as many as
 * the terminal has room for.
 */
export function renderStatus(
  progress: Progress,
  now: number,
  size: { columns: number; rows: number },
  paint: (code: number, text: string) => string,
): string {
  const elapsed = now - progress.startedAt;
  const remaining = progress.total - progress.done;
  const eta =
    progress.expectedMs === undefined
      ? // From finished work: the rate so far, over what is left.
        progress.done === 0
        ? "–"
        : clock((elapsed / progress.done) * remaining)
      : clock(expectedRemainingMs(progress, now));
  const width = Math.max(20, size.columns - 1);
  const counts = `${String(progress.done)}/${String(progress.total)}`;
  // The longest head that fits beside a bar of 10 cells; on a narrow terminal the words go
  // first, then the bar, and the counts and the ETA stay whole.
  const heads = [
    `${counts} ${progress.noun} · ${String(progress.good)} ${progress.goodWord} · ${clock(elapsed)} elapsed · ETA ${eta}`,
    `${counts} · ${String(progress.good)} ${progress.goodWord} · ${clock(elapsed)} · ETA ${eta}`,
    `${counts} · ${String(progress.good)} ${progress.goodWord} · ETA ${eta}`,
    `${counts} · ETA ${eta}`,
  ];
  const head = heads.find((text) => text.length + 11 <= width) ?? heads.at(-1) ?? "";
  const barWidth = head.length + 11 <= width ? Math.min(30, width - head.length - 1) : 0;
  const lines = [
    barWidth === 0
      ? fit(head, width)
      : `${paint(36, bar(progress.done, progress.total, barWidth))} ${head}`,
  ];
  const flights = [...progress.inFlight.values()].sort((a, b) => a.startedAt - b.startedAt);
  const room = Math.max(1, size.rows - 4);
  const shown = flights.length > room ? flights.slice(0, room - 1) : flights;
  const labelWidth = Math.min(40, Math.max(0, ...shown.map((flight) => flight.label.length)));
  const phaseWidth = Math.max(0, ...shown.map((flight) => phaseWords(flight.phase).length));
  for (const flight of shown) {
    const phase = phaseWords(flight.phase);
    lines.push(
      fit(
        `  ${fit(flight.label, labelWidth).padEnd(labelWidth)}  ${phase.padEnd(phaseWidth)}  ${clock(now - flight.startedAt)}`,
        width,
      ),
    );
  }
  if (shown.length < flights.length)
    lines.push(`  … and ${String(flights.length - shown.length)} more in flight`);
  return lines.join("\n");
}

/** The status areas on screen now, so a message from outside a display can clear them first. */
const shown = new Set<{ clear(): void }>();

/**
 * Clears every live status area from the screen, for a message written straight to the terminal
 * (Ctrl-C's): written under an area, it would be half erased by the next frame. The areas come
 * back, below the message, at their next redraw.
 */
export function clearLiveDisplays(): void {
  for (const area of shown) area.clear();
}

/** The live reporter: lines into the scrollback, a status area redrawn below them. */
export function createLiveReporter(sink: TerminalSink, options: LiveOptions): Reporter {
  const now = options.now ?? Date.now;
  const paint = painter(options.color);
  // log-update reads the stream's size on every frame, so a resized terminal is followed; a
  // terminal that says it has no size gets the default one, not an empty area.
  const stream = {
    write: (text: string) => sink.write(text),
    get isTTY() {
      return sink.isTTY;
    },
    get columns() {
      return terminalSize(sink).columns;
    },
    get rows() {
      return terminalSize(sink).rows;
    },
  };
  // showCursor: hiding it would install exit handlers that outlive the display.
  const area = createLogUpdate(stream as unknown as NodeJS.WritableStream, {
    showCursor: true,
  });
  let progress: Progress | null = null;
  let timer: NodeJS.Timeout | null = null;

  const draw = (): void => {
    if (progress === null) return;
    area(renderStatus(progress, now(), terminalSize(sink), paint));
  };
  const start = (next: Progress): void => {
    progress = next;
    shown.add(area);
    timer ??= setInterval(draw, options.refreshMs ?? 1000);
    // A display never keeps lab running.
    timer.unref();
  };
  const stop = (): void => {
    shown.delete(area);
    if (timer !== null) clearInterval(timer);
    timer = null;
    if (progress !== null) area.clear();
    progress = null;
  };

  return {
    emit(event: RunEvent) {
      switch (event.type) {
        case "run:start":
          start({
            noun: "trials",
            goodWord: "resolved",
            total: event.pending,
            startedAt: now(),
            done: 0,
            good: 0,
            inFlight: new Map(),
          });
          break;
        case "proof:start":
          start({
            noun: "proofs",
            goodWord: "proven",
            total: event.total,
            startedAt: now(),
            done: 0,
            good: 0,
            inFlight: new Map(),
            expectedMs: event.expectedMs,
            concurrency: event.concurrency,
            finished: new Set(),
          });
          break;
        case "trial:start":
          progress?.inFlight.set(`${event.taskId}\u0000${String(event.trial)}`, {
            label: `${event.taskId} #${String(event.trial)}`,
            startedAt: now(),
            phase: "starting",
          });
          break;
        case "proof:task:start":
          progress?.inFlight.set(event.taskId, {
            label: event.taskId,
            startedAt: now(),
            phase: "starting",
          });
          break;
        case "trial:phase": {
          const flight = progress?.inFlight.get(`${event.taskId}\u0000${String(event.trial)}`);
          if (flight !== undefined) flight.phase = event.phase;
          break;
        }
        case "proof:task:phase": {
          const flight = progress?.inFlight.get(event.taskId);
          if (flight !== undefined) flight.phase = event.phase;
          break;
        }
        case "trial:end":
          if (progress !== null) {
            progress.inFlight.delete(`${event.result.taskId}\u0000${String(event.result.trial)}`);
            progress.done = event.done;
            if (event.result.resolved === true) progress.good++;
          }
          break;
        case "proof:task:end":
          if (progress !== null) {
            progress.inFlight.delete(event.taskId);
            progress.finished?.add(event.taskId);
            progress.done = event.done;
            if (event.kept) progress.good++;
          }
          break;
        case "run:end":
        case "proof:end":
          stop();
          break;
        case "log":
          break;
      }
      const line = describeEventLine(event, paint, terminalSize(sink).columns - 1);
      if (line !== null) {
        // The line goes above the area, which is drawn again beneath it. It is written as it
        // is, not through log-update, which would break a long line at the width: the
        // terminal wraps it, and a copied path stays whole.
        area.clear();
        sink.write(`${line}\n`);
      }
      draw();
    },
    close: stop,
  };
}
