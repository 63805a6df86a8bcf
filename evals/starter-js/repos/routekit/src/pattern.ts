/**
 * Route patterns such as `/users/:id`, `/posts/:page?` and `/files/*path`, compiled to regular
 * expressions. Segments are static text, a named parameter (`:name`), an optional parameter
 * (`:name?`, last segment only) or a splat (`*name`, last segment only, one or more segments).
 */

/** One segment of a pattern. */
export type Segment =
  | { readonly kind: "static"; readonly text: string }
  | { readonly kind: "param"; readonly name: string; readonly optional: boolean }
  | { readonly kind: "splat"; readonly name: string };

/** A compiled pattern. */
export interface CompiledPattern {
  /** The pattern as written. */
  readonly source: string;
  readonly segments: readonly Segment[];
  /** Parameter names in order, splat included. */
  readonly keys: readonly string[];
  /** Matches a whole path (no query string); group i is keys[i], raw (still percent-encoded). */
  readonly regex: RegExp;
}

/** Thrown for a pattern that cannot be compiled. */
export class PatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(`Invalid route pattern ${JSON.stringify(pattern)}: ${reason}`);
    this.name = "PatternError";
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses a pattern into segments, checking names and where optional and splat segments go. */
export function parsePattern(pattern: string): Segment[] {
  if (!pattern.startsWith("/")) throw new PatternError(pattern, "it must start with /");
  if (pattern === "/") return [];
  const parts = pattern.slice(1).split("/");
  const seen = new Set<string>();
  return parts.map((part, index): Segment => {
    const isLast = index === parts.length - 1;
    if (part === "") throw new PatternError(pattern, "it has an empty segment");
    if (part.startsWith(":") || part.startsWith("*")) {
      const optional = part.startsWith(":") && part.endsWith("?");
      const name = part.slice(1, optional ? -1 : undefined);
      if (!NAME.test(name)) throw new PatternError(pattern, `bad parameter name ${JSON.stringify(name)}`);
      if (seen.has(name)) throw new PatternError(pattern, `parameter ${name} appears twice`);
      seen.add(name);
      if ((optional || part.startsWith("*")) && !isLast) {
        throw new PatternError(pattern, `${part} must be the last segment`);
      }
      return part.startsWith("*") ? { kind: "splat", name } : { kind: "param", name, optional };
    }
    if (/[:*?]/.test(part)) throw new PatternError(pattern, `unexpected character in ${JSON.stringify(part)}`);
    return { kind: "static", text: part };
  });
}

/** Compiles a pattern; static text matches case-sensitively and as written (not decoded). */
export function compilePattern(pattern: string): CompiledPattern {
  const segments = parsePattern(pattern);
  const keys: string[] = [];
  let source = "";
  for (const segment of segments) {
    switch (segment.kind) {
      case "static":
        source += `/${escapeRegex(segment.text)}`;
        break;
      case "param":
        keys.push(segment.name);
        source += segment.optional ? "/([^/]+)?" : "/([^/]+)";
        break;
      case "splat":
        keys.push(segment.name);
        source += "/(.+)";
        break;
    }
  }
  return { source: pattern, segments, keys, regex: new RegExp(`^${source || "/"}$`) };
}

/**
 * How specific a pattern is, for ordering routes: per segment, static 3, parameter 2, optional
 * parameter 1, splat 0; compared segment by segment, so `/users/new` beats `/users/:id` and
 * `/users/:id` beats `/users/*rest`.
 */
export function specificity(pattern: CompiledPattern): number[] {
  return pattern.segments.map((segment) => {
    if (segment.kind === "static") return 3;
    if (segment.kind === "splat") return 0;
    return segment.optional ? 1 : 2;
  });
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
