/**
 * A scripted model server on loopback for end-to-end tests of real coding-agent CLIs: it speaks
 * the Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and Gemini APIs, plays
 * scripts step by step without keeping state, and logs every request for assertions.
 */
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { anthropicCodec } from "./anthropic.js";
import { chatCodec } from "./chat.js";
import { geminiCodec } from "./gemini.js";
import { chooseScript, planTextTurn, planToolTurn, SIDE_TEXT, textReply } from "./plan.js";
import { responsesCodec } from "./responses.js";
import { matchRoute, type Route } from "./routes.js";
import type { Script } from "./script.js";
import { formatSse } from "./sse.js";
import { TEXT_DIALECTS, type TextDialect } from "./text-dialects.js";
import type { ApiCodec, ModelApi, Reply, WireReply } from "./types.js";
import { COUNTED_INPUT_TOKENS, MAIN_USAGE, SIDE_USAGE } from "./usage.js";
import { isRecord } from "./values.js";
import { findWorkTree } from "./work-tree.js";

/** How the server misbehaves, for tests of an adapter's error detection and timeouts. */
export type Failure =
  /** Answer with this HTTP status and an error body in the API's shape. */
  | { readonly kind: "status"; readonly status: number; readonly message?: string }
  /** Drop the connection without answering. */
  | { readonly kind: "close" }
  /** Start the answer (headers and the first event), then drop the connection. */
  | { readonly kind: "truncate" }
  /** Never answer; the connection stays open until `close()`. */
  | { readonly kind: "hang" };

/** One request as the server saw it, and what it answered. */
export interface LoggedRequest {
  /** Order of arrival, from 0. */
  readonly index: number;
  readonly method: string;
  /** The path with its query string. */
  readonly url: string;
  /** The path without its query string. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when there was none. */
  readonly body: unknown;
  /** The API the route belongs to; undefined for unknown routes. */
  readonly api: ModelApi | undefined;
  /** `model` for model calls, `count` for count-tokens routes, `none` for anything else (404). */
  readonly route: Route["kind"];
  /** A model call offering no tools outside the `/text/` prefix (titles, Gemini's router). */
  readonly isSideCall: boolean;
  /** The text dialect named by the path, if any. */
  readonly dialect: string | undefined;
  /** The `match` of the script played, if one matched. */
  readonly script: string | undefined;
  /** The step index played (tool-result or assistant-message count), for main calls. */
  readonly step: number | undefined;
  /** The working directory found in the request (or given as an option). */
  readonly workTree: string | undefined;
  /** What the model answered; undefined for failures, errors and other routes. */
  readonly reply: Reply | undefined;
  /** The HTTP status answered, or the failure played instead. */
  readonly outcome: number | Exclude<Failure["kind"], "status">;
}

/** Options of `startModelServer`. */
export interface ModelServerOptions {
  /** Scripts, tried in order against the prompt. */
  readonly scripts: readonly Script[];
  /** Played when no script matches; without it such requests get final text only. */
  readonly defaultScript?: Script;
  /** Text dialects merged over `TEXT_DIALECTS` (tests bring their own). */
  readonly dialects?: Readonly<Record<string, TextDialect>>;
  /** The working directory to use when a request states none. */
  readonly workTree?: string;
  /** A failure for every model and count request, or for those a function picks. */
  readonly failWith?: Failure | ((request: LoggedRequest) => Failure | undefined);
}

/** A running server. */
export interface ModelServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash; append any prefix. */
  readonly url: string;
  /** Every request so far, in order of arrival (a live array). */
  readonly requests: readonly LoggedRequest[];
  /** Stops the server and drops open connections (hung ones included). */
  close(): Promise<void>;
}

const CODECS: Readonly<Record<ModelApi, ApiCodec>> = {
  anthropic: anthropicCodec,
  responses: responsesCodec,
  chat: chatCodec,
  gemini: geminiCodec,
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function decoder(encoding: string | undefined): ((data: Buffer) => Buffer) | undefined {
  switch (encoding ?? "identity") {
    case "identity":
      return (data) => data;
    case "gzip":
      return (data) => zlib.gunzipSync(data);
    case "deflate":
      return (data) => zlib.inflateSync(data);
    case "br":
      return (data) => zlib.brotliDecompressSync(data);
    default:
      return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const decode = decoder(request.headers["content-encoding"]);
  if (!decode)
    throw new HttpError(
      415,
      `Unsupported content-encoding ${request.headers["content-encoding"] ?? ""}`,
    );
  const text = decode(Buffer.concat(chunks)).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "The request body is not JSON.");
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Writes a reply; `truncate` sends only its start, then drops the connection. */
function sendReply(
  response: ServerResponse,
  wire: WireReply,
  route: Route,
  truncate: boolean,
): void {
  if (
    wire.kind === "sse" &&
    route.kind === "model" &&
    route.api === "gemini" &&
    route.sseRequested !== true
  ) {
    // Gemini without `alt=sse` streams one JSON array of responses.
    sendReply(response, { kind: "json", body: wire.events.map((e) => e.data) }, route, truncate);
    return;
  }
  const text =
    wire.kind === "json" ? JSON.stringify(wire.body) : wire.events.map(formatSse).join("");
  const headers =
    wire.kind === "json"
      ? { "content-type": "application/json" }
      : { "content-type": "text/event-stream", "cache-control": "no-cache" };
  if (truncate) {
    const first =
      wire.kind === "sse" && wire.events[0]
        ? formatSse(wire.events[0])
        : text.slice(0, text.length / 2);
    response.writeHead(200, headers);
    response.write(first, () => response.destroy());
    return;
  }
  response.writeHead(200, headers).end(text);
}

/** Starts a scripted model server on 127.0.0.1 at a random port. */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const requests: LoggedRequest[] = [];
  const dialects: Readonly<Record<string, TextDialect>> = { ...TEXT_DIALECTS, ...options.dialects };

  function log(entry: Omit<LoggedRequest, "index">): void {
    requests.push({ index: requests.length, ...entry });
  }

  /** A log entry's fields known from the request line alone. */
  function received(request: IncomingMessage, route: Route) {
    const url = request.url ?? "/";
    return {
      method: request.method ?? "GET",
      url,
      path: url.split("?")[0] ?? url,
      headers: request.headers,
      api: route.kind === "none" ? undefined : route.api,
      route: route.kind,
      isSideCall: false,
      dialect: undefined,
      script: undefined,
      step: undefined,
      workTree: undefined,
      reply: undefined,
    };
  }

  function failureFor(entry: LoggedRequest): Failure | undefined {
    const { failWith } = options;
    return typeof failWith === "function" ? failWith(entry) : failWith;
  }

  /** Decides the answer of a model or count route (everything but the writing). */
  function answer(
    route: Exclude<Route, { kind: "none" }>,
    body: Record<string, unknown>,
    headers: IncomingHttpHeaders,
  ): Pick<LoggedRequest, "isSideCall" | "dialect" | "script" | "step" | "workTree" | "reply"> & {
    wire: WireReply;
  } {
    const base = {
      isSideCall: false,
      dialect: undefined,
      script: undefined,
      step: undefined,
      workTree: undefined,
    };
    if (route.kind === "count") {
      const count =
        route.api === "anthropic"
          ? { input_tokens: COUNTED_INPUT_TOKENS }
          : { totalTokens: COUNTED_INPUT_TOKENS };
      return { ...base, reply: undefined, wire: { kind: "json", body: count } };
    }
    const codec = CODECS[route.api];
    const routeInfo = {
      ...(route.model === undefined ? {} : { model: route.model }),
      ...(route.stream === undefined ? {} : { stream: route.stream }),
    };
    const conversation = codec.read(body, routeInfo);
    const workTree = findWorkTree(conversation.contextTexts, headers) ?? options.workTree;
    const script = chooseScript(conversation.userTexts, options.scripts, options.defaultScript);
    const scripted = { script: script?.match, workTree };
    const responseId = `scripted_${requests.length}`;
    if (route.dialect !== undefined) {
      if (route.api !== "chat")
        throw new HttpError(400, "Text dialects are served on /v1/chat/completions only.");
      const dialect = dialects[route.dialect];
      if (!dialect) {
        const known = Object.keys(dialects).join(", ") || "none";
        throw new HttpError(400, `Unknown text dialect "${route.dialect}" (known: ${known}).`);
      }
      const { reply, step } = planTextTurn(conversation, script, dialect, workTree);
      const wire = codec.write(reply, { conversation, usage: MAIN_USAGE, responseId });
      return { ...base, ...scripted, dialect: route.dialect, step, reply, wire };
    }
    if (conversation.tools.length === 0) {
      const reply = textReply(SIDE_TEXT, conversation.responseSchema);
      const wire = codec.write(reply, { conversation, usage: SIDE_USAGE, responseId });
      return { ...base, isSideCall: true, workTree, reply, wire };
    }
    const { reply, step } = planToolTurn(conversation, script, workTree);
    const wire = codec.write(reply, { conversation, usage: MAIN_USAGE, responseId });
    return { ...base, ...scripted, step, reply, wire };
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const route = matchRoute(request.method ?? "GET", request.url ?? "/");
    const entry = received(request, route);
    if (route.kind === "none") {
      const body = await readBody(request).catch(() => undefined);
      log({ ...entry, body, outcome: 404 });
      sendJson(response, 404, { error: { message: `No route for ${entry.method} ${entry.url}` } });
      return;
    }
    const codec = CODECS[route.api];
    let body: unknown;
    try {
      body = await readBody(request);
      if (!isRecord(body)) throw new HttpError(400, "The request body must be a JSON object.");
      const { wire, ...decided } = answer(route, body, request.headers);
      const planned = { ...entry, body, ...decided };
      const failure = failureFor({ index: requests.length, ...planned, outcome: 200 });
      if (failure === undefined) {
        log({ ...planned, outcome: 200 });
        sendReply(response, wire, route, false);
      } else if (failure.kind === "status") {
        log({ ...planned, reply: undefined, outcome: failure.status });
        const message = failure.message ?? "Scripted failure.";
        sendJson(response, failure.status, codec.error(failure.status, message));
      } else {
        log({ ...planned, reply: undefined, outcome: failure.kind });
        if (failure.kind === "close") response.destroy();
        else if (failure.kind === "truncate") sendReply(response, wire, route, true);
        // "hang": leave the response open; close() drops the connection.
      }
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      log({ ...entry, body, outcome: status });
      sendJson(response, status, codec.error(status, message));
    }
  }

  const server = http.createServer((request, response) => {
    void handle(request, response);
  });
  // WebSocket attempts (Codex tries one before falling back to HTTP) get a plain 404.
  server.on("upgrade", (request: IncomingMessage, socket) => {
    log({ ...received(request, { kind: "none" }), body: undefined, outcome: 404 });
    socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}
