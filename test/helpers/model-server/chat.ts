/** The OpenAI Chat Completions API (`POST /v1/chat/completions`): opencode, Qwen Code, text dialects. */
import { promptTokens } from "./usage.js";
import type {
  ApiCodec,
  Conversation,
  OfferedTool,
  Reply,
  SseEvent,
  WriteContext,
} from "./types.js";
import { asString, isRecord, records, type JsonObject } from "./values.js";

/** Text of a string or of the `text` parts of a content array. */
function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return records(content).flatMap((p) =>
    typeof p.text === "string" && p.type !== "image_url" ? [p.text] : [],
  );
}

/** The requested JSON schema: `json_schema.schema`, or any object for `json_object`. */
function responseSchema(format: unknown): Conversation["responseSchema"] {
  if (!isRecord(format)) return undefined;
  if (format.type === "json_object") return { type: "object" };
  if (format.type === "json_schema" && isRecord(format.json_schema)) {
    return isRecord(format.json_schema.schema) ? format.json_schema.schema : { type: "object" };
  }
  return undefined;
}

function read(body: JsonObject): Conversation {
  const userTexts: string[] = [];
  const contextTexts: string[] = [];
  let toolResultCount = 0;
  let assistantCount = 0;
  const assistantsBefore: number[] = [];
  for (const message of records(body.messages)) {
    if (message.role === "user") {
      const parts = texts(message.content);
      userTexts.push(...parts);
      assistantsBefore.push(...parts.map(() => assistantCount));
    } else if (message.role === "tool" || message.role === "function") toolResultCount += 1;
    else if (message.role === "assistant") assistantCount += 1;
    else contextTexts.push(...texts(message.content));
  }
  const tools: OfferedTool[] = records(body.tools).flatMap((t) => {
    const fn = isRecord(t.function) ? t.function : undefined;
    const name = asString(fn?.name);
    const schema = isRecord(fn?.parameters) ? fn.parameters : undefined;
    return name === undefined ? [] : [{ name, kind: "function" as const, schema }];
  });
  return {
    model: asString(body.model) ?? "scripted-model",
    stream: body.stream === true,
    userTexts,
    contextTexts: [...contextTexts, ...userTexts],
    toolResultCount,
    assistantCount,
    assistantsAfterUser: assistantsBefore.map((before) => assistantCount - before),
    tools,
    responseSchema: responseSchema(body.response_format),
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
  };
}

function toolCall(reply: Exclude<Reply, { kind: "text" }>): Record<string, unknown> {
  const args = reply.kind === "function" ? reply.arguments : { input: reply.input };
  return {
    id: reply.id,
    type: "function",
    function: { name: reply.name, arguments: JSON.stringify(args) },
  };
}

function write(reply: Reply, context: WriteContext): ReturnType<ApiCodec["write"]> {
  const { conversation } = context;
  const cached = context.usage.cacheReadInputTokens;
  const usage = {
    prompt_tokens: promptTokens(context.usage),
    completion_tokens: context.usage.outputTokens,
    total_tokens: promptTokens(context.usage) + context.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: cached },
  };
  const finishReason = reply.kind === "text" ? "stop" : "tool_calls";
  const head = {
    id: `chatcmpl-${context.responseId}`,
    created: Math.floor(Date.now() / 1000),
    model: conversation.model,
  };
  if (!conversation.stream) {
    const message =
      reply.kind === "text"
        ? { role: "assistant", content: reply.text }
        : { role: "assistant", content: null, tool_calls: [toolCall(reply)] };
    const choice = { index: 0, message, finish_reason: finishReason };
    return { kind: "json", body: { ...head, object: "chat.completion", choices: [choice], usage } };
  }
  const chunk = (delta: unknown, finish: string | null = null): SseEvent => ({
    data: {
      ...head,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "" })];
  if (reply.kind === "text") events.push(chunk({ content: reply.text }));
  else events.push(chunk({ tool_calls: [{ index: 0, ...toolCall(reply) }] }));
  events.push(chunk({}, finishReason));
  if (conversation.includeUsage) {
    events.push({ data: { ...head, object: "chat.completion.chunk", choices: [], usage } });
  }
  events.push({ data: "[DONE]" });
  return { kind: "sse", events };
}

/** An error body in OpenAI's shape (Chat Completions and Responses). */
export function openAiError(status: number, message: string): unknown {
  const type =
    status === 429
      ? "rate_limit_exceeded"
      : status >= 500
        ? "server_error"
        : "invalid_request_error";
  return { error: { message, type, param: null, code: null } };
}

/** Reads Chat Completions requests and writes their answers (chunks when `stream: true`). */
export const chatCodec: ApiCodec = { read, write, error: openAiError };
