/** Building paths back from a pattern and parameters: the inverse of matching. */
import { parsePattern } from "./pattern.ts";

/** Values `buildPath` takes: strings or numbers, an array of them for a splat. */
export type BuildParams = Record<string, string | number | readonly (string | number)[] | undefined>;

/** Thrown when a required parameter is missing or empty. */
export class MissingParamError extends Error {
  constructor(readonly pattern: string, readonly param: string) {
    super(`Cannot build ${JSON.stringify(pattern)}: parameter ${param} is missing or empty`);
    this.name = "MissingParamError";
  }
}

/**
 * Percent-encodes one parameter value for a path segment, so that matching the built path
 * gives the value back.
 */
export function encodeParam(value: string): string {
  return encodeURI(value);
}

/**
 * The path for `pattern` with `params` filled in, each value encoded: `buildPath("/users/:id",
 * { id: 42 })` is `/users/42`. An optional parameter left out drops its segment; a splat takes an
 * array of segments (or a string, split on `/`). Unknown parameters are ignored.
 */
export function buildPath(pattern: string, params: BuildParams = {}): string {
  const parts: string[] = [];
  for (const segment of parsePattern(pattern)) {
    if (segment.kind === "static") {
      parts.push(segment.text);
      continue;
    }
    const value = params[segment.name];
    if (segment.kind === "splat") {
      const items = typeof value === "string" ? value.split("/") : value;
      if (!Array.isArray(items) || items.length === 0) {
        throw new MissingParamError(pattern, segment.name);
      }
      parts.push(...items.map((item) => encodeParam(String(item))));
      continue;
    }
    if (value === undefined || (value as string).trim() === "") {
      if (segment.optional) continue;
      throw new MissingParamError(pattern, segment.name);
    }
    parts.push(encodeParam(String(value)));
  }
  return `/${parts.join("/")}`;
}
