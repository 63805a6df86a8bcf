/** Server-sent events: written by the model server, parsed by tests. */
import type { SseEvent } from "./types.js";

/** One event on the wire: an optional `event:` line, one `data:` line, a blank line. */
export function formatSse(event: SseEvent): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${data}\n\n`;
}

/** A parsed event: its name (if any) and its raw `data` text. */
export interface ParsedSseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** Splits an SSE body into events (multi-line `data` joined with newlines, comments dropped). */
export function parseSse(body: string): ParsedSseEvent[] {
  const events: ParsedSseEvent[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}
