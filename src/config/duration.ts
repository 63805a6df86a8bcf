import { UsageError } from "../core/index.js";

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses "90s", "30m", "1h", "500ms" or bare seconds ("120") into milliseconds. */
export function parseDuration(value: string, option: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  const amount = match?.[1];
  if (match === null || amount === undefined || Number(amount) <= 0) {
    throw new UsageError(`${option} expects a duration such as 90s, 30m or 1h; got "${value}".`);
  }
  return Math.round(Number(amount) * (UNITS[match[2] ?? "s"] ?? 1000));
}

/** Parses a positive whole number option. */
export function parsePositiveInt(value: string, option: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new UsageError(`${option} expects a whole number of 1 or more; got "${value}".`);
  }
  return Number(value);
}
