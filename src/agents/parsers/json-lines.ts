/**
 * Shared reading of coding-agent CLI output: JSON values found in text that may also hold
 * warnings, stack traces or a line cut short by a kill, plus small typed accessors. Nothing here
 * throws on bad input.
 */
import type { Telemetry } from "../../core/index.js";
import type { AgentOutcome } from "../types.js";

/** A parsed JSON object. */
export type JsonRecord = Readonly<Record<string, unknown>>;

/** Whether a value is a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `key`, or undefined. */
export function recordAt(value: unknown, key: string): JsonRecord | undefined {
  if (!isRecord(value)) return undefined;
  const inner = value[key];
  return isRecord(inner) ? inner : undefined;
}

/** A finite, non-negative number at `key`; token counts and costs are never negative. */
export function numberAt(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const inner = value[key];
  return typeof inner === "number" && Number.isFinite(inner) && inner >= 0 ? inner : undefined;
}

/** A string at `key`, or undefined. */
export function stringAt(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const inner = value[key];
  return typeof inner === "string" ? inner : undefined;
}

/** A non-empty string at `key` (after trimming), or undefined. */
export function textAt(value: unknown, key: string): string | undefined {
  const text = stringAt(value, key)?.trim();
  return text === undefined || text === "" ? undefined : text;
}

/** Adds counts that may be missing: undefined only when every part is. */
export function sumDefined(...parts: readonly (number | undefined)[]): number | undefined {
  let total: number | undefined;
  for (const part of parts) if (part !== undefined) total = (total ?? 0) + part;
  return total;
}

/** `total - parts`, never below 0 (a CLI's cached count can exceed its input count in bad data). */
export function subtractClamped(
  total: number | undefined,
  ...parts: readonly (number | undefined)[]
): number | undefined {
  if (total === undefined) return undefined;
  return Math.max(0, total - (sumDefined(...parts) ?? 0));
}

/**
 * Where the JSON value opening at `start` (`{` or `[`) closes, one past its last character, or
 * undefined when `limit` (default: the text's end) comes first. Brackets inside strings are
 * skipped; JSON.parse checks the rest.
 */
function valueEnd(text: string, start: number, limit = text.length): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < limit; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The complete elements of an array whose closing bracket never came (a killed CLI). */
function completeElements(text: string, open: number): unknown[] {
  const items: unknown[] = [];
  let i = open + 1;
  for (;;) {
    while (i < text.length && /[\s,]/.test(text[i] ?? "")) i++;
    const c = text[i];
    if (c !== "{" && c !== "[") return items;
    const end = valueEnd(text, i);
    if (end === undefined) return items;
    const item = tryParse(text.slice(i, end));
    if (item === undefined) return items;
    items.push(item);
    i = end;
  }
}

/**
 * Every JSON object in `text`, in order: JSONL lines, one document (pretty-printed or not), or
 * documents among other lines (warnings, a stack trace). A value must open at the start of a
 * line (after indentation), so braces inside prose are not mistaken for JSON. Arrays are
 * flattened into their objects, and an array cut short still yields its complete elements; a
 * truncated last line is dropped.
 */
export function readJsonRecords(text: string): JsonRecord[] {
  const records: JsonRecord[] = [];
  const add = (value: unknown): void => {
    if (isRecord(value)) records.push(value);
    else if (Array.isArray(value)) for (const item of value) if (isRecord(item)) records.push(item);
  };
  // Scans that find no value may each run to the text's end; past this budget a value must
  // close on its own line, so many unclosed `{` lines cannot make reading quadratic.
  let failedBudget = 4 * text.length + 4096;
  let lineStart = 0;
  while (lineStart < text.length) {
    let i = lineStart;
    while (text[i] === " " || text[i] === "\t") i++;
    const newline = text.indexOf("\n", i);
    const c = text[i];
    if (c === "{" || c === "[") {
      const limit = failedBudget > 0 || newline < 0 ? text.length : newline;
      const end = valueEnd(text, i, limit);
      const value = end === undefined ? undefined : tryParse(text.slice(i, end));
      if (end !== undefined && value !== undefined) {
        add(value);
        lineStart = end;
        continue;
      }
      failedBudget -= (end ?? limit) - i;
      if (end === undefined && limit === text.length && c === "[") add(completeElements(text, i));
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return records;
}

/** The last non-empty line of `text`, shortened, to quote a CLI's complaint. */
export function lastLine(text: string, maxChars = 300): string | undefined {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const last = lines.filter((line) => line !== "").at(-1);
  if (last === undefined) return undefined;
  return last.length > maxChars ? `${last.slice(0, maxChars)}…` : last;
}

/**
 * The error for output with no final summary: empty, cut short by a kill, or a CLI that failed
 * before printing JSON. Quotes stderr's last line, which is usually the reason.
 */
export function missingSummaryError(cli: string, summary: string, stderr: string): string {
  const reason = lastLine(stderr);
  const base = `${cli} printed no ${summary} (output empty or cut short)`;
  return reason === undefined ? base : `${base}; stderr: ${reason}`;
}

/** Telemetry with every undefined field left out (exactOptionalPropertyTypes). */
export function compactTelemetry(fields: {
  [K in keyof Telemetry]?: Telemetry[K] | undefined;
}): Telemetry {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Builds an outcome, leaving out fields that are undefined. */
export function createOutcome(fields: {
  telemetry: Telemetry;
  error?: string | undefined;
  sessionId?: string | undefined;
  finalText?: string | undefined;
}): AgentOutcome {
  return {
    telemetry: fields.telemetry,
    ...(fields.error === undefined ? {} : { error: fields.error }),
    ...(fields.sessionId === undefined ? {} : { sessionId: fields.sessionId }),
    ...(fields.finalText === undefined ? {} : { finalText: fields.finalText }),
  };
}

/**
 * Wraps a parser so that a bug in it becomes an outcome with an error rather than an exception:
 * a trial's output must never crash the runner.
 */
export function neverThrow(
  cli: string,
  parse: (stdout: string, stderr: string) => AgentOutcome,
): (stdout: string, stderr: string) => AgentOutcome {
  return (stdout, stderr) => {
    try {
      return parse(stdout, stderr);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { telemetry: {}, error: `lab could not read ${cli}'s output: ${message}` };
    }
  };
}
