/** The OpenAI Responses API (`POST /v1/responses`), as Codex CLI uses it. */
import { openAiError } from "./chat.js";
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

/** Text of a string or of the text parts (`input_text`, `output_text`, `text`) of a content array. */
function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return records(content).flatMap((p) => (typeof p.text === "string" ? [p.text] : []));
}

function responseSchema(text: unknown): Conversation["responseSchema"] {
  const format = isRecord(text) ? text.format : undefined;
  if (!isRecord(format)) return undefined;
  if (format.type === "json_schema")
    return isRecord(format.schema) ? format.schema : { type: "object" };
  return format.type === "json_object" ? { type: "object" } : undefined;
}

function read(body: JsonObject): Conversation {
  const userTexts: string[] = [];
  const contextTexts: string[] = texts(body.instructions);
  let toolResultCount = 0;
  let assistantCount = 0;
  if (typeof body.input === "string") userTexts.push(body.input);
  for (const item of records(body.input)) {
    const type = asString(item.type) ?? "message";
    if (type.endsWith("_call_output")) toolResultCount += 1;
    else if (type !== "message") continue;
    else if (item.role === "user") userTexts.push(...texts(item.content));
    else if (item.role === "assistant") assistantCount += 1;
    else contextTexts.push(...texts(item.content));
  }
  const tools: OfferedTool[] = records(body.tools).flatMap((t): OfferedTool[] => {
    const name = asString(t.name);
    if (name === undefined) return [];
    if (t.type === "custom") return [{ name, kind: "custom", schema: undefined }];
    if (t.type !== "function") return [];
    return [
      {
        name,
        kind: "function" as const,
        schema: isRecord(t.parameters) ? t.parameters : undefined,
      },
    ];
  });
  return {
    model: asString(body.model) ?? "scripted-model",
    stream: body.stream === true,
    userTexts,
    contextTexts: [...contextTexts, ...userTexts],
    toolResultCount,
    assistantCount,
    tools,
    responseSchema: responseSchema(body.text),
    includeUsage: false,
  };
}

/** The output item of a reply, complete (as in `output_item.done` and `response.completed`). */
function outputItem(reply: Reply, responseId: string): Record<string, unknown> {
  switch (reply.kind) {
    case "text":
      return {
        type: "message",
        id: `msg_${responseId}`,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: reply.text, annotations: [] }],
      };
    case "function":
      return {
        type: "function_call",
        id: `fc_${responseId}`,
        call_id: reply.id,
        name: reply.name,
        arguments: JSON.stringify(reply.arguments),
        status: "completed",
      };
    case "custom":
      return {
        type: "custom_tool_call",
        id: `ctc_${responseId}`,
        call_id: reply.id,
        name: reply.name,
        input: reply.input,
        status: "completed",
      };
  }
}

/** The item as `output_item.added` announces it: nothing streamed yet. */
function startedItem(reply: Reply, item: Record<string, unknown>): Record<string, unknown> {
  const empty =
    reply.kind === "text"
      ? { content: [] }
      : reply.kind === "function"
        ? { arguments: "" }
        : { input: "" };
  return { ...item, ...empty, status: "in_progress" };
}

/** The events that stream an item's body between `output_item.added` and `.done`. */
function bodyEvents(
  reply: Reply,
  item: Record<string, unknown>,
): [string, Record<string, unknown>][] {
  const at = { item_id: item.id, output_index: 0 };
  switch (reply.kind) {
    case "text": {
      const part = { type: "output_text", text: reply.text, annotations: [] };
      return [
        ["response.content_part.added", { ...at, content_index: 0, part: { ...part, text: "" } }],
        ["response.output_text.delta", { ...at, content_index: 0, delta: reply.text }],
        ["response.output_text.done", { ...at, content_index: 0, text: reply.text }],
        ["response.content_part.done", { ...at, content_index: 0, part }],
      ];
    }
    case "function": {
      const args = JSON.stringify(reply.arguments);
      return [
        ["response.function_call_arguments.delta", { ...at, delta: args }],
        ["response.function_call_arguments.done", { ...at, arguments: args }],
      ];
    }
    case "custom":
      return [
        ["response.custom_tool_call_input.delta", { ...at, delta: reply.input }],
        ["response.custom_tool_call_input.done", { ...at, input: reply.input }],
      ];
  }
}

function write(reply: Reply, context: WriteContext): ReturnType<ApiCodec["write"]> {
  const { conversation } = context;
  const item = outputItem(reply, context.responseId);
  const usage = {
    input_tokens: promptTokens(context.usage),
    input_tokens_details: { cached_tokens: context.usage.cacheReadInputTokens },
    output_tokens: context.usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: promptTokens(context.usage) + context.usage.outputTokens,
  };
  const response = {
    id: `resp_${context.responseId}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    error: null,
    incomplete_details: null,
    model: conversation.model,
    output: [item],
    usage,
  };
  if (!conversation.stream) return { kind: "json", body: response };
  const pending = { ...response, status: "in_progress", output: [], usage: null };
  const steps: [string, Record<string, unknown>][] = [
    ["response.created", { response: pending }],
    ["response.in_progress", { response: pending }],
    ["response.output_item.added", { output_index: 0, item: startedItem(reply, item) }],
    ...bodyEvents(reply, item),
    ["response.output_item.done", { output_index: 0, item }],
    ["response.completed", { response }],
  ];
  const events: SseEvent[] = steps.map(([type, data], sequence) => ({
    event: type,
    data: { type, sequence_number: sequence, ...data },
  }));
  return { kind: "sse", events };
}

/** Reads Responses requests and writes their answers (SSE when `stream: true`). */
export const responsesCodec: ApiCodec = { read, write, error: openAiError };
