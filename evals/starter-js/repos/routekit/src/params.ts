/** Turning the raw groups of a match into parameters: percent-decoding and splat segments. */

/** The parameters of a match: a string per parameter, an array of segments for a splat. */
export type Params = Record<string, string | string[] | undefined>;

/** Thrown for a path whose percent-encoding is malformed (`%E0%A4%A`). */
export class MalformedPathError extends Error {
  constructor(readonly value: string) {
    super(`Malformed percent-encoding in ${JSON.stringify(value)}`);
    this.name = "MalformedPathError";
  }
}

/**
 * Decodes one raw parameter value as it appeared in the path, so that `caf%C3%A9` becomes
 * `café` and `a%2Fb` becomes `a/b`.
 */
export function decodeParam(raw: string): string {
  try {
    return decodeURI(raw);
  } catch {
    throw new MalformedPathError(raw);
  }
}

/**
 * The parameters of a regex match: `keys[i]` gets group i+1, decoded; a splat (named in `splats`)
 * gets its segments, each decoded; an optional parameter that did not match is left out.
 */
export function paramsFromMatch(
  keys: readonly string[],
  splats: ReadonlySet<string>,
  match: RegExpExecArray,
): Params {
  const params: Params = {};
  keys.forEach((key, index) => {
    const raw = match[index + 1];
    if (raw === undefined) return;
    params[key] = splats.has(key) ? raw.split("/").map(decodeParam) : decodeParam(raw);
  });
  return params;
}
