/** A router: routes by method and pattern, looked up by the most specific match. */
import { paramsFromMatch, type Params } from "./params.ts";
import { compilePattern, specificity, type CompiledPattern } from "./pattern.ts";

/** An HTTP method, upper case. */
export type Method = string;

/** A route added to a router. */
export interface Route<T> {
  readonly method: Method;
  readonly pattern: CompiledPattern;
  readonly value: T;
}

/** What `lookup` found. */
export type LookupResult<T> =
  | { readonly status: "found"; readonly value: T; readonly params: Params; readonly pattern: string }
  | { readonly status: "method-not-allowed"; readonly allowed: readonly Method[] }
  | { readonly status: "not-found" };

/** Thrown when a route with the same method and pattern is added twice. */
export class DuplicateRouteError extends Error {
  constructor(method: Method, pattern: string) {
    super(`Route ${method} ${pattern} is already defined`);
    this.name = "DuplicateRouteError";
  }
}

/** Routes values of type T (handlers, page names...) by method and path. */
export class Router<T> {
  readonly #routes: Route<T>[] = [];

  /** Adds a route; `method` is case-insensitive, `*` matches every method. */
  add(method: Method, pattern: string, value: T): this {
    const upper = method.toUpperCase();
    const compiled = compilePattern(pattern);
    if (this.#routes.some((r) => r.method === upper && r.pattern.source === pattern)) {
      throw new DuplicateRouteError(upper, pattern);
    }
    this.#routes.push({ method: upper, pattern: compiled, value });
    this.#routes.sort((a, b) => compareSpecificity(specificity(b.pattern), specificity(a.pattern)));
    return this;
  }

  /** The routes, most specific first (ties in the order they were added). */
  routes(): readonly Route<T>[] {
    return [...this.#routes];
  }

  /**
   * The most specific route matching `path` for `method`. A query string or fragment is ignored.
   * A path that matches only routes of other methods gives `method-not-allowed` with them sorted.
   */
  lookup(method: Method, path: string): LookupResult<T> {
    const upper = method.toUpperCase();
    const pathname = path.replace(/[?#].*$/, "") || "/";
    const allowed = new Set<Method>();
    for (const route of this.#routes) {
      const match = route.pattern.regex.exec(pathname);
      if (match === null) continue;
      if (route.method !== upper && route.method !== "*") {
        allowed.add(route.method);
        continue;
      }
      const splats = new Set(
        route.pattern.segments.flatMap((s) => (s.kind === "splat" ? [s.name] : [])),
      );
      return {
        status: "found",
        value: route.value,
        params: paramsFromMatch(route.pattern.keys, splats, match),
        pattern: route.pattern.source,
      };
    }
    if (allowed.size > 0) return { status: "method-not-allowed", allowed: [...allowed].sort() };
    return { status: "not-found" };
  }
}

/** Segment-by-segment comparison; a longer pattern wins a tie on the shared segments. */
function compareSpecificity(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}
