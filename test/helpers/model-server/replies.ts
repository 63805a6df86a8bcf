/**
 * Reads a model server's answer the way a client would (SSE or JSON) and checks the stream's own
 * rules on the way (event names match their `type`, sequence numbers increase, `[DONE]` ends a
 * chat stream). Returns one neutral summary for assertions.
 */
/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- reads untyped wire JSON on purpose: a wrong shape throws, which fails the test */
import { parseSse } from "./sse.js";

/** A tool call as a client reassembles it. */
export interface CollectedCall {
  readonly id: string;
  readonly name: string;
  /** Parsed JSON arguments (function tools). */
  readonly args?: Record<string, unknown>;
  /** Free-text input (Codex custom tools). */
  readonly input?: string;
}

/** An answer, whatever its API. */
export interface CollectedReply {
  readonly text: string;
  readonly calls: readonly CollectedCall[];
  /** `end_turn`/`tool_use`, `stop`/`tool_calls`, `completed`, or `STOP`. */
  readonly stop: string | undefined;
  readonly usage: Record<string, unknown> | undefined;
  /** Event names (or `data` for nameless events), in order; empty for JSON answers. */
  readonly events: readonly string[];
  /** The whole final object: message, completion, response or Gemini response. */
  readonly final: Record<string, unknown>;
}

type Json = Record<string, any>;

async function events(
  response: Response,
): Promise<{ event: string | undefined; data: string }[] | undefined> {
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const type = response.headers.get("content-type") ?? "";
  return type.startsWith("text/event-stream") ? parseSse(await response.text()) : undefined;
}

function checkNames(list: { event: string | undefined; data: string }[]): Json[] {
  return list.map(({ event, data }) => {
    const parsed = JSON.parse(data) as Json;
    if (event !== parsed.type)
      throw new Error(`event ${event ?? "?"} carries type ${String(parsed.type)}`);
    return parsed;
  });
}

/** An Anthropic Messages answer. */
export async function readAnthropic(response: Response): Promise<CollectedReply> {
  const list = await events(response);
  const message: Json = list ? {} : ((await response.json()) as Json);
  if (list) {
    const blocks: Json[] = [];
    const partial: string[] = [];
    for (const data of checkNames(list)) {
      if (data.type === "message_start") Object.assign(message, data.message, { content: blocks });
      if (data.type === "content_block_start") blocks[data.index] = { ...data.content_block };
      if (data.type === "content_block_delta" && data.delta.type === "text_delta")
        blocks[data.index]!.text = `${blocks[data.index]!.text}${data.delta.text}`;
      if (data.type === "content_block_delta" && data.delta.type === "input_json_delta")
        partial[data.index] = `${partial[data.index] ?? ""}${data.delta.partial_json}`;
      if (data.type === "content_block_stop" && partial[data.index] !== undefined)
        blocks[data.index]!.input = JSON.parse(partial[data.index]!);
      if (data.type === "message_delta")
        Object.assign(message, data.delta, { usage: { ...message.usage, ...data.usage } });
    }
  }
  const content = message.content as Json[];
  return {
    text: content
      .filter((b) => b.type === "text")
      .map((b) => b.text as string)
      .join(""),
    calls: content
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: b.id, name: b.name, args: b.input })),
    stop: message.stop_reason,
    usage: message.usage,
    events: list?.map((e) => e.event ?? "data") ?? [],
    final: message,
  };
}

/** A Chat Completions answer. */
export async function readChat(response: Response): Promise<CollectedReply> {
  const list = await events(response);
  if (!list) {
    const body = (await response.json()) as Json;
    const message = body.choices[0].message as Json;
    const calls = ((message.tool_calls ?? []) as Json[]).map((c) => ({
      id: c.id,
      name: c.function.name,
      args: JSON.parse(c.function.arguments),
    }));
    return {
      text: message.content ?? "",
      calls,
      stop: body.choices[0].finish_reason,
      usage: body.usage,
      events: [],
      final: body,
    };
  }
  if (list.at(-1)?.data !== "[DONE]") throw new Error("chat stream did not end with [DONE]");
  const chunks = list.slice(0, -1).map((e) => JSON.parse(e.data) as Json);
  let text = "";
  let stop: string | undefined;
  let usage: Json | undefined;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices as Json[]) {
      text += String(choice.delta.content ?? "");
      stop = choice.finish_reason ?? stop;
      for (const call of (choice.delta.tool_calls ?? []) as Json[]) {
        const slot = (calls[call.index as number] ??= { id: "", name: "", arguments: "" });
        slot.id = call.id ?? slot.id;
        slot.name += String(call.function?.name ?? "");
        slot.arguments += String(call.function?.arguments ?? "");
      }
    }
  }
  return {
    text,
    calls: calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) })),
    stop,
    usage,
    events: list.map((e) => e.event ?? "data"),
    final: { chunks },
  };
}

function responseOutput(body: Json): Omit<CollectedReply, "events" | "final"> {
  const output = body.output as Json[];
  const text = output
    .filter((i) => i.type === "message")
    .flatMap((i) => (i.content as Json[]).map((p) => p.text as string))
    .join("");
  const calls = output.flatMap((i): CollectedCall[] => {
    if (i.type === "function_call")
      return [{ id: i.call_id, name: i.name, args: JSON.parse(i.arguments) }];
    if (i.type === "custom_tool_call") return [{ id: i.call_id, name: i.name, input: i.input }];
    return [];
  });
  return { text, calls, stop: body.status, usage: body.usage };
}

/** A Responses answer; the stream's `response.completed` must repeat every item done before it. */
export async function readResponses(response: Response): Promise<CollectedReply> {
  const list = await events(response);
  if (!list) {
    const body = (await response.json()) as Json;
    return { ...responseOutput(body), events: [], final: body };
  }
  const data = checkNames(list);
  data.forEach((d, i) => {
    if (d.sequence_number !== i)
      throw new Error(`sequence_number ${String(d.sequence_number)} at event ${i}`);
  });
  const completed = data.find((d) => d.type === "response.completed")?.response as Json | undefined;
  if (!completed) throw new Error("no response.completed");
  const done = data
    .filter((d) => d.type === "response.output_item.done")
    .map((d) => d.item as unknown);
  if (JSON.stringify(done) !== JSON.stringify(completed.output))
    throw new Error("response.completed output differs");
  return {
    ...responseOutput(completed),
    events: list.map((e) => e.event ?? "data"),
    final: completed,
  };
}

/** A Gemini answer: each SSE `data` is a whole `GenerateContentResponse`. */
export async function readGemini(response: Response): Promise<CollectedReply> {
  const list = await events(response);
  const bodies = list
    ? list.map((e) => JSON.parse(e.data) as Json)
    : [(await response.json()) as Json];
  const parts = bodies.flatMap((b) => b.candidates[0].content.parts as Json[]);
  const last = bodies.at(-1)!;
  return {
    text: parts
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text as string)
      .join(""),
    calls: parts
      .filter((p) => p.functionCall)
      .map((p) => ({
        id: p.functionCall.id,
        name: p.functionCall.name,
        args: p.functionCall.args,
      })),
    stop: last.candidates[0].finishReason,
    usage: last.usageMetadata,
    events: list?.map((e) => e.event ?? "data") ?? [],
    final: last,
  };
}
