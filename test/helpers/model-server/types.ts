/**
 * The neutral shapes the scripted model server works with: what a request says (a
 * `Conversation`, read from any of the four APIs) and what the model answers (a `Reply`, written
 * back in the request's API).
 */
import type { Usage } from "./usage.js";

/** The wire APIs the server speaks. */
export type ModelApi = "anthropic" | "responses" | "chat" | "gemini";

/** A JSON schema, loosely typed: the server only reads a few keywords of it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A tool the request offers the model. */
export interface OfferedTool {
  /** The tool's name, as the model must call it. */
  readonly name: string;
  /** `function` takes JSON arguments; `custom` (Codex's `apply_patch`) takes free text. */
  readonly kind: "function" | "custom";
  /** The arguments' JSON schema (function tools only). */
  readonly schema: JsonSchema | undefined;
}

/** What the server needs to know of one request, whatever its API. */
export interface Conversation {
  /** The model the request names. */
  readonly model: string;
  /** Whether the answer is streamed (SSE). */
  readonly stream: boolean;
  /** The text of every user message, in order (tool results excluded). */
  readonly userTexts: readonly string[];
  /** System prompts, developer messages and user texts: where a CLI states its working directory. */
  readonly contextTexts: readonly string[];
  /** Tool results already in the request: the index of the step to play next. */
  readonly toolResultCount: number;
  /** Assistant messages already in the request: the step index of text dialects. */
  readonly assistantCount: number;
  /** For each of `userTexts`, the assistant messages after it (Chat Completions only). */
  readonly assistantsAfterUser?: readonly number[];
  /** The tools offered; none means a side call. */
  readonly tools: readonly OfferedTool[];
  /** The JSON schema the answer must follow, when the request asks for JSON output. */
  readonly responseSchema: JsonSchema | undefined;
  /** Whether a streamed Chat Completions answer should end with a usage chunk. */
  readonly includeUsage: boolean;
}

/** A call of a function tool. */
export interface FunctionCallReply {
  readonly kind: "function";
  /** The call's id, unique within a conversation. */
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A call of a custom (free-text) tool: Codex's `apply_patch`. */
export interface CustomCallReply {
  readonly kind: "custom";
  /** The call's id, unique within a conversation. */
  readonly id: string;
  readonly name: string;
  readonly input: string;
}

/** The model's answer: text that ends the turn, or one tool call. */
export type Reply =
  { readonly kind: "text"; readonly text: string } | FunctionCallReply | CustomCallReply;

/** What a writer needs besides the reply. */
export interface WriteContext {
  readonly conversation: Conversation;
  readonly usage: Usage;
  /** An id for the response (message id, response id), unique per server. */
  readonly responseId: string;
}

/** An answer ready for the wire: one JSON body, or the SSE events in order. */
export type WireReply =
  | { readonly kind: "json"; readonly body: unknown }
  | { readonly kind: "sse"; readonly events: readonly SseEvent[] };

/** One server-sent event; `data` is JSON-encoded unless it is a string. */
export interface SseEvent {
  readonly event?: string;
  readonly data: unknown;
}

/** One API: how to read its requests and write its answers. */
export interface ApiCodec {
  /** Reads a parsed request body (Gemini's model and streaming come from the route). */
  read(
    body: Readonly<Record<string, unknown>>,
    route: { model?: string; stream?: boolean },
  ): Conversation;
  /** Writes a reply as JSON or SSE, as the conversation asked. */
  write(reply: Reply, context: WriteContext): WireReply;
  /** An error body in the API's own shape. */
  error(status: number, message: string): unknown;
}
