/**
 * Routes of the scripted model server. Each API's path may sit under any prefix, since every tool
 * gets its own base URL; a prefix ending in `/text/<dialect>` selects a text dialect.
 */
import type { ModelApi } from "./types.js";

/** What a request path asks for. */
export type Route =
  | {
      readonly kind: "model";
      readonly api: ModelApi;
      /** The model named in the path (Gemini only). */
      readonly model?: string;
      /** Whether the path itself asks for a stream (Gemini only). */
      readonly stream?: boolean;
      /** Gemini streams as SSE only with `alt=sse`; otherwise as one JSON array. */
      readonly sseRequested?: boolean;
      /** The text dialect named by a `/text/<dialect>` prefix. */
      readonly dialect?: string;
    }
  | { readonly kind: "count"; readonly api: "anthropic" | "gemini" }
  | { readonly kind: "none" };

const SUFFIXES: readonly [RegExp, (m: RegExpExecArray, query: URLSearchParams) => Route][] = [
  [/\/v1\/messages\/count_tokens$/, () => ({ kind: "count", api: "anthropic" })],
  [/\/v1\/messages$/, () => ({ kind: "model", api: "anthropic" })],
  [/\/v1\/responses$/, () => ({ kind: "model", api: "responses" })],
  [/\/v1\/chat\/completions$/, () => ({ kind: "model", api: "chat" })],
  [
    /\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/,
    (m, query) => {
      const model = decodeURIComponent(m[1] ?? "");
      if (m[2] === "countTokens") return { kind: "count", api: "gemini" };
      const stream = m[2] === "streamGenerateContent";
      return {
        kind: "model",
        api: "gemini",
        model,
        stream,
        sseRequested: query.get("alt") === "sse",
      };
    },
  ],
];

/** The route of a method and URL; only POSTs reach a model. */
export function matchRoute(method: string, url: string): Route {
  if (method !== "POST") return { kind: "none" };
  const parsed = new URL(url, "http://127.0.0.1");
  const pathname = parsed.pathname.replace(/\/+$/, "");
  for (const [pattern, make] of SUFFIXES) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    const route = make(match, parsed.searchParams);
    const prefix = pathname.slice(0, match.index);
    const dialect = /(?:^|\/)text\/([^/]+)$/.exec(prefix)?.[1];
    return dialect === undefined || route.kind !== "model"
      ? route
      : { ...route, dialect: decodeURIComponent(dialect) };
  }
  return { kind: "none" };
}
