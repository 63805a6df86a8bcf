/** Number formats shared by the Markdown, CSV-free text and HTML renderings. */

/** 0.1234 -> "12.3%"; "–" for null. */
export function percent(rate: number | null): string {
  return rate === null || Number.isNaN(rate) ? "–" : `${(rate * 100).toFixed(1)}%`;
}

/** A difference of rates in percentage points, signed: 0.05 -> "+5.0". */
export function points(difference: number): string {
  if (Number.isNaN(difference)) return "–";
  const value = Math.abs(difference * 100).toFixed(1);
  return `${difference < 0 && value !== "0.0" ? "-" : "+"}${value}`;
}

/** An interval of rates in percent, "[56.6, 100.0]". */
export function percentInterval(low: number | null, high: number | null): string {
  if (low === null || high === null || Number.isNaN(low) || Number.isNaN(high)) return "–";
  return `[${(low * 100).toFixed(1)}, ${(high * 100).toFixed(1)}]`;
}

/** A p-value as read in a sentence: "p = 0.002", "p < 0.001". */
export function pValue(p: number): string {
  if (Number.isNaN(p)) return "p = –";
  if (p < 0.001) return "p < 0.001";
  return `p = ${p < 0.1 ? p.toFixed(3) : p.toFixed(2)}`;
}

/** Seconds with one decimal; "–" for null. */
export function seconds(value: number | null): string {
  return value === null ? "–" : `${value.toFixed(1)} s`;
}

/** US dollars, four decimals below a dollar; "–" for null. */
export function dollars(value: number | null): string {
  return value === null ? "–" : `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** A token count: 1234 -> "1.2k", 2_500_000 -> "2.5M"; "–" for null. */
export function tokens(value: number | null): string {
  if (value === null) return "–";
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(0);
}

/** A number with a few decimals, "–" for null. */
export function decimal(value: number | null, digits = 3): string {
  return value === null || Number.isNaN(value) ? "–" : value.toFixed(digits);
}

/**
 * A figure without floating-point noise, for JSON and CSV: 2.8e-17 is 0 and
 * 0.30000000000000004 is 0.3. Values below 1e-12 are noise in every figure a report computes
 * (rates, costs, seconds, tokens) except p-values, which keep 12 significant digits.
 */
export function cleanNumber(value: number, isPValue = false): number {
  if (!Number.isFinite(value)) return value;
  if (!isPValue && Math.abs(value) < 1e-12) return 0;
  return Number(value.toPrecision(12));
}

/** JSON of a report's data with cleanNumber applied (p-values by their key: p, pValue, pMcnemar, ...). */
export function reportJson(value: unknown): string {
  return JSON.stringify(
    value,
    (key, item: unknown) =>
      typeof item === "number" ? cleanNumber(item, /^p[A-Z]|^p$|^pValue$/.test(key)) : item,
    2,
  );
}
