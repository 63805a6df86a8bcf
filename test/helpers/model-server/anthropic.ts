/** The Anthropic Messages API (`POST /v1/messages`), as Claude Code uses it. */
import { anthropicUsage } from "./usage.js";
import type {
  ApiCodec,
  Conversation,
  OfferedTool,
  Reply,
  SseEvent,
  WriteContext,
} from "./types.js";
import { asString, isRecord, records, type JsonObject } from "./values.js";

/** Text of a string or of the `text` blocks of a content array. */
function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return records(content).flatMap((b) =>
    b.type === "text" && typeof b.text === "string" ? [b.text] : [],
  );
}

function read(body: JsonObject): Conversation {
  const userTexts: string[] = [];
  const contextTexts: string[] = texts(body.system);
  let toolResultCount = 0;
  let assistantCount = 0;
  for (const message of records(body.messages)) {
    if (message.role === "assistant") assistantCount += 1;
    else if (message.role === "user") {
      userTexts.push(...texts(message.content));
      toolResultCount += records(message.content).filter((b) => b.type === "tool_result").length;
    } else contextTexts.push(...texts(message.content)); // 2.1.332 puts system entries mid-messages
  }
  const tools: OfferedTool[] = records(body.tools).flatMap((t) => {
    const name = asString(t.name);
    const schema = isRecord(t.input_schema) ? t.input_schema : undefined;
    return name === undefined ? [] : [{ name, kind: "function" as const, schema }];
  });
  const format = isRecord(body.output_config) ? body.output_config.format : undefined;
  return {
    model: asString(body.model) ?? "claude-scripted",
    stream: body.stream === true,
    userTexts,
    contextTexts: [...contextTexts, ...userTexts],
    toolResultCount,
    assistantCount,
    tools,
    responseSchema: isRecord(format) && isRecord(format.schema) ? format.schema : undefined,
    includeUsage: false,
  };
}

function block(reply: Reply): Record<string, unknown> {
  switch (reply.kind) {
    case "text":
      return { type: "text", text: reply.text };
    case "function":
      return { type: "tool_use", id: reply.id, name: reply.name, input: reply.arguments };
    case "custom":
      return { type: "tool_use", id: reply.id, name: reply.name, input: { input: reply.input } };
  }
}

function write(reply: Reply, context: WriteContext): ReturnType<ApiCodec["write"]> {
  const usage = anthropicUsage(context.usage);
  const stopReason = reply.kind === "text" ? "end_turn" : "tool_use";
  const message = {
    id: `msg_${context.responseId}`,
    type: "message",
    role: "assistant",
    model: context.conversation.model,
    content: [block(reply)],
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (!context.conversation.stream) return { kind: "json", body: message };
  const start = {
    ...message,
    content: [],
    stop_reason: null,
    usage: { ...usage, output_tokens: 1 },
  };
  const events: SseEvent[] = [
    { event: "message_start", data: { type: "message_start", message: start } },
  ];
  const add = (type: string, data: Record<string, unknown>): void => {
    events.push({ event: type, data: { type, ...data } });
  };
  if (reply.kind === "text") {
    add("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    add("content_block_delta", { index: 0, delta: { type: "text_delta", text: reply.text } });
  } else {
    const { input, ...toolUse } = block(reply);
    add("content_block_start", { index: 0, content_block: { ...toolUse, input: {} } });
    const json = JSON.stringify(input);
    // Two deltas, as the real API splits arguments: clients must concatenate partial JSON.
    const half = Math.floor(json.length / 2);
    for (const part of [json.slice(0, half), json.slice(half)]) {
      add("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: part },
      });
    }
  }
  add("content_block_stop", { index: 0 });
  add("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
  add("message_stop", {});
  return { kind: "sse", events };
}

function error(status: number, message: string): unknown {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 529
        ? "overloaded_error"
        : status >= 500
          ? "api_error"
          : "invalid_request_error";
  return { type: "error", error: { type, message } };
}

/** Reads Messages requests and writes Messages answers (SSE when `stream: true`). */
export const anthropicCodec: ApiCodec = { read, write, error };
