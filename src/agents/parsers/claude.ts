/**
 * Claude Code's `--output-format json` (one result object) and `stream-json --verbose` (init,
 * each message, then the same result) as telemetry.
 *
 * - Tokens come from `modelUsage`, summed over its models, because it counts side calls (title,
 *   summaries, other models) and `usage` covers the main loop only; `usage` is the fallback when
 *   `modelUsage` is missing or empty. Both report input without cache reads and writes.
 * - `outputTokens` is `outputTokens` as reported: Anthropic's output count already includes
 *   thinking tokens (2.1.332's `thinking_tokens` is a part of it, not an addition).
 * - `costUsd` is `total_cost_usd`, which Claude Code computes from its own price table and which
 *   includes side calls.
 * - `model` is the main model: the init message's, else the `modelUsage` entry that cost the
 *   most. Claude Code's context tag (`claude-opus-4-8[1m]`) is dropped: the API model is
 *   `claude-opus-4-8`.
 * - `toolCalls` is set only for stream-json, which shows each `tool_use` block; the JSON result
 *   has no count.
 * - A failure is `is_error: true`, whatever `subtype` says: a dead endpoint gives
 *   `subtype: "success"`, `is_error: true`.
 */
import type { OutputParser } from "../types.js";
import {
  compactTelemetry,
  createOutcome,
  isRecord,
  missingSummaryError,
  neverThrow,
  numberAt,
  readJsonRecords,
  recordAt,
  stringAt,
  sumDefined,
  textAt,
  type JsonRecord,
} from "./json-lines.js";

/** What the messages of a Claude-Code-style stream say, before any result. */
export interface MessageStream {
  /** The `system/init` record, when present. */
  readonly init: JsonRecord | undefined;
  /** Each assistant message's last `usage` by message id; stream-json repeats a message per block. */
  readonly usageById: ReadonlyMap<string, JsonRecord>;
  /**
   * The main thread's model responses (no `parent_tool_use_id`): assistant message ids whose
   * usage counts tokens. Qwen Code splits a response into a text message with zero usage and a
   * tool-use message with the real one; Claude Code repeats one id per content block.
   */
  readonly mainResponseIds: ReadonlySet<string>;
  /** Distinct `tool_use` block ids. */
  readonly toolUseIds: ReadonlySet<string>;
  /** The model the assistant messages name last. */
  readonly lastModel: string | undefined;
  /** The last text block of a main-thread assistant message. */
  readonly lastText: string | undefined;
  /** Whether any message (not only a result) was seen: the output is a stream. */
  readonly isStream: boolean;
}

/** Collects the messages of Claude Code's stream-json, or of Qwen Code's JSON array. */
export function readMessageStream(records: readonly JsonRecord[]): MessageStream {
  let init: JsonRecord | undefined;
  const usageById = new Map<string, JsonRecord>();
  const mainResponseIds = new Set<string>();
  const toolUseIds = new Set<string>();
  let lastModel: string | undefined;
  let lastText: string | undefined;
  let isStream = false;
  for (const record of records) {
    const type = record.type;
    if (type === "system" && record.subtype === "init") init = record;
    if (type === "system" || type === "assistant" || type === "user") isStream = true;
    if (type !== "assistant") continue;
    const message = recordAt(record, "message");
    if (message === undefined) continue;
    const id = stringAt(message, "id") ?? stringAt(record, "uuid") ?? `#${String(usageById.size)}`;
    const usage = recordAt(message, "usage");
    if (usage !== undefined) usageById.set(id, usage);
    const isMain = record.parent_tool_use_id === null || record.parent_tool_use_id === undefined;
    const countsTokens = Object.values(usage ?? {}).some(
      (count) => typeof count === "number" && count > 0,
    );
    if (isMain && countsTokens) mainResponseIds.add(id);
    lastModel = stringAt(message, "model") ?? lastModel;
    const content = message.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === "tool_use") {
        toolUseIds.add(stringAt(block, "id") ?? `${id}#${String(toolUseIds.size)}`);
      } else if (block.type === "text" && isMain) {
        lastText = textAt(block, "text") ?? lastText;
      }
    }
  }
  return { init, usageById, mainResponseIds, toolUseIds, lastModel, lastText, isStream };
}

/** Drops Claude Code's bracketed model tags (`[1m]` for the 1M-token context). */
function apiModelName(name: string | undefined): string | undefined {
  const trimmed = name?.replace(/\[[^\]]*\]$/, "").trim();
  return trimmed === "" ? undefined : trimmed;
}

interface TokenCounts {
  readonly input?: number | undefined;
  readonly output?: number | undefined;
  readonly cacheRead?: number | undefined;
  readonly cacheWrite?: number | undefined;
}

/** Sums `modelUsage` over its models; undefined when it holds no counts. */
function modelUsageTokens(modelUsage: JsonRecord | undefined): TokenCounts | undefined {
  const entries = Object.values(modelUsage ?? {}).filter(isRecord);
  const sum = (key: string): number | undefined =>
    sumDefined(...entries.map((entry) => numberAt(entry, key)));
  const counts = {
    input: sum("inputTokens"),
    output: sum("outputTokens"),
    cacheRead: sum("cacheReadInputTokens"),
    cacheWrite: sum("cacheCreationInputTokens"),
  };
  return Object.values(counts).some((value) => value !== undefined) ? counts : undefined;
}

/** Anthropic `usage`: input already excludes cache reads and writes. */
function usageTokens(usage: JsonRecord | undefined): TokenCounts {
  return {
    input: numberAt(usage, "input_tokens"),
    output: numberAt(usage, "output_tokens"),
    cacheRead: numberAt(usage, "cache_read_input_tokens"),
    cacheWrite: numberAt(usage, "cache_creation_input_tokens"),
  };
}

/** The `modelUsage` model that cost the most (then used the most tokens): the main loop's. */
function costliestModel(modelUsage: JsonRecord | undefined): string | undefined {
  let best: { name: string; cost: number; tokens: number } | undefined;
  for (const [name, entry] of Object.entries(modelUsage ?? {})) {
    const cost = numberAt(entry, "costUSD") ?? 0;
    const tokens =
      sumDefined(
        numberAt(entry, "inputTokens"),
        numberAt(entry, "outputTokens"),
        numberAt(entry, "cacheReadInputTokens"),
        numberAt(entry, "cacheCreationInputTokens"),
      ) ?? 0;
    if (best === undefined || cost > best.cost || (cost === best.cost && tokens > best.tokens)) {
      best = { name, cost, tokens };
    }
  }
  return best?.name;
}

/** Claude Code's failure message: the result text, else its errors, else the reason codes. */
function resultError(result: JsonRecord): string | undefined {
  const subtype = stringAt(result, "subtype");
  const failed = result.is_error === true || subtype?.startsWith("error") === true;
  if (!failed) return undefined;
  const errors = Array.isArray(result.errors)
    ? result.errors.filter((item): item is string => typeof item === "string").join("; ")
    : "";
  return (
    textAt(result, "result") ??
    (errors === "" ? undefined : errors) ??
    textAt(result, "api_error") ??
    textAt(result, "terminal_reason") ??
    subtype ??
    "Claude Code reported an error"
  );
}

/** Reads Claude Code's `json` or `stream-json` output. */
export const parseClaudeOutput: OutputParser = neverThrow("Claude Code", (stdout, stderr) => {
  const records = readJsonRecords(stdout);
  const stream = readMessageStream(records);
  const result = records.findLast((record) => record.type === "result");
  const initModel = stringAt(stream.init, "model");
  const toolCalls = stream.isStream ? stream.toolUseIds.size : undefined;
  const sessionId =
    stringAt(result, "session_id") ??
    stringAt(stream.init, "session_id") ??
    records.map((record) => stringAt(record, "session_id")).find((id) => id !== undefined);

  if (result === undefined) {
    // Killed or failed before the result: the streamed messages are all there is. Their usage
    // snapshots are taken as each message starts, so output counts here are a lower bound.
    const perMessage = [...stream.usageById.values()].map(usageTokens);
    const sum = (key: keyof TokenCounts): number | undefined =>
      sumDefined(...perMessage.map((counts) => counts[key]));
    return createOutcome({
      telemetry: compactTelemetry({
        inputTokens: sum("input"),
        outputTokens: sum("output"),
        cacheReadTokens: sum("cacheRead"),
        cacheWriteTokens: sum("cacheWrite"),
        turns: stream.isStream ? stream.mainResponseIds.size : undefined,
        toolCalls,
        model: apiModelName(initModel ?? stream.lastModel),
      }),
      error: missingSummaryError("Claude Code", "result", stderr),
      sessionId,
    });
  }

  const modelUsage = recordAt(result, "modelUsage");
  const tokens = modelUsageTokens(modelUsage) ?? usageTokens(recordAt(result, "usage"));
  const error = resultError(result);
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      cacheReadTokens: tokens.cacheRead,
      cacheWriteTokens: tokens.cacheWrite,
      turns: numberAt(result, "num_turns"),
      toolCalls,
      model: apiModelName(initModel ?? costliestModel(modelUsage) ?? stream.lastModel),
      costUsd: numberAt(result, "total_cost_usd"),
    }),
    error,
    sessionId,
    finalText: error === undefined ? textAt(result, "result") : undefined,
  });
});
