/** Narrowing helpers for parsed JSON request bodies. */

/** A plain JSON object. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value if it is an array, else an empty one. */
export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The objects of an array, skipping anything else. */
export function records(value: unknown): readonly Record<string, unknown>[] {
  return asArray(value).filter(isRecord);
}

/** The value if it is a string, else undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
