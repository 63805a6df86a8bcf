/**
 * The Gemini API (`/v1beta/models/<model>:generateContent` and `:streamGenerateContent`), as
 * Gemini CLI uses it. The model and streaming come from the route, not the body.
 */
import { promptTokens } from "./usage.js";
import type { ApiCodec, Conversation, OfferedTool, Reply, WriteContext } from "./types.js";
import { isRecord, records, asString, type JsonObject } from "./values.js";

/** Text parts of a `Content`, or of a bare string (`systemInstruction` may be either). */
function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  const parts = isRecord(content) ? content.parts : content;
  return records(parts).flatMap((p) =>
    typeof p.text === "string" && p.thought !== true ? [p.text] : [],
  );
}

function responseSchema(config: unknown): Conversation["responseSchema"] {
  if (!isRecord(config)) return undefined;
  for (const key of ["responseJsonSchema", "responseSchema"]) {
    const schema = config[key];
    if (isRecord(schema)) return schema;
  }
  return config.responseMimeType === "application/json" ? { type: "object" } : undefined;
}

function read(body: JsonObject, route: { model?: string; stream?: boolean }): Conversation {
  const userTexts: string[] = [];
  let toolResultCount = 0;
  let assistantCount = 0;
  for (const content of records(body.contents)) {
    if (content.role === "model") {
      assistantCount += 1;
      continue;
    }
    userTexts.push(...texts(content));
    toolResultCount += records(content.parts).filter((p) => isRecord(p.functionResponse)).length;
  }
  const tools: OfferedTool[] = records(body.tools)
    .flatMap((t) => records(t.functionDeclarations))
    .flatMap((d) => {
      const name = asString(d.name);
      const schema = [d.parametersJsonSchema, d.parameters].find(isRecord);
      return name === undefined ? [] : [{ name, kind: "function" as const, schema }];
    });
  return {
    model: route.model ?? "gemini-scripted",
    stream: route.stream === true,
    userTexts,
    contextTexts: [...texts(body.systemInstruction), ...userTexts],
    toolResultCount,
    assistantCount,
    tools,
    responseSchema: responseSchema(body.generationConfig),
    includeUsage: false,
  };
}

function part(reply: Reply): Record<string, unknown> {
  switch (reply.kind) {
    case "text":
      return { text: reply.text };
    case "function":
      return { functionCall: { id: reply.id, name: reply.name, args: reply.arguments } };
    case "custom":
      return { functionCall: { id: reply.id, name: reply.name, args: { input: reply.input } } };
  }
}

function write(reply: Reply, context: WriteContext): ReturnType<ApiCodec["write"]> {
  const body = {
    candidates: [
      { content: { role: "model", parts: [part(reply)] }, finishReason: "STOP", index: 0 },
    ],
    usageMetadata: {
      promptTokenCount: promptTokens(context.usage),
      candidatesTokenCount: context.usage.outputTokens,
      cachedContentTokenCount: context.usage.cacheReadInputTokens,
      totalTokenCount: promptTokens(context.usage) + context.usage.outputTokens,
    },
    modelVersion: context.conversation.model,
    responseId: context.responseId,
  };
  // One `data:` event holding the whole response: Gemini's SDK reads each event as a response.
  return context.conversation.stream
    ? { kind: "sse", events: [{ data: body }] }
    : { kind: "json", body };
}

function error(status: number, message: string): unknown {
  const name =
    status === 429 ? "RESOURCE_EXHAUSTED" : status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
  return { error: { code: status, message, status: name } };
}

/** Reads Gemini requests and writes `GenerateContentResponse`s. */
export const geminiCodec: ApiCodec = { read, write, error };
