/**
 * Qwen Code's `-o json` output, a JSON array of Claude-Code-style messages ending in a `result`,
 * as telemetry.
 *
 * - Tokens come from the result's `usage`. `input_tokens` includes cached tokens (it is the
 *   Chat API's `prompt_tokens`), so `cache_read_input_tokens` is subtracted. Without `usage`,
 *   `stats.models` is used the same way (`prompt - cached`).
 * - `outputTokens` is `output_tokens` as reported. Qwen fills it from the Chat API's
 *   `completion_tokens`, which already includes reasoning tokens; `stats` `thoughts` is a part of
 *   it, not an addition (unlike Gemini CLI, which Qwen Code forked).
 * - `turns` is `num_turns`; `toolCalls` is `stats.tools.totalCalls`, else the `tool_use` blocks.
 * - No cost is reported. Qwen Code makes no side calls.
 * - Failures: `is_error`, or (0.15.10 exits 0 on a dead endpoint) a result starting with
 *   `[API Error`, or every model request failing (`api.totalErrors >= totalRequests`). Some
 *   failed requests followed by a good answer are retries, not a failure.
 * - A killed run prints an unfinished array; its complete messages still give partial usage.
 */
import type { OutputParser } from "../types.js";
import { readMessageStream } from "./claude.js";
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
  subtractClamped,
  sumDefined,
  textAt,
  type JsonRecord,
} from "./json-lines.js";

const API_ERROR_PREFIX = "[API Error";

interface TokenCounts {
  readonly input: number | undefined;
  readonly output: number | undefined;
  readonly cacheRead: number | undefined;
}

/** A message's or result's `usage`: input with cached tokens folded in. */
function usageTokens(usage: JsonRecord | undefined): TokenCounts {
  const cacheRead = numberAt(usage, "cache_read_input_tokens");
  return {
    input: subtractClamped(numberAt(usage, "input_tokens"), cacheRead),
    output: numberAt(usage, "output_tokens"),
    cacheRead,
  };
}

/** `stats.models` summed: `prompt` with cached folded in, `candidates` with thoughts inside. */
function statsTokens(models: readonly JsonRecord[]): TokenCounts {
  const sum = (key: string): number | undefined =>
    sumDefined(...models.map((model) => numberAt(recordAt(model, "tokens"), key)));
  const cacheRead = sum("cached");
  return { input: subtractClamped(sum("prompt"), cacheRead), output: sum("candidates"), cacheRead };
}

/** Qwen Code's failure message for a result, if it reports one. */
function resultError(result: JsonRecord, models: readonly JsonRecord[]): string | undefined {
  const text = textAt(result, "result");
  if (result.is_error === true || stringAt(result, "subtype")?.startsWith("error") === true) {
    return text ?? textAt(recordAt(result, "error"), "message") ?? "Qwen Code reported an error";
  }
  if (text?.startsWith(API_ERROR_PREFIX) === true) return text;
  const api = models.map((model) => recordAt(model, "api"));
  const requests = sumDefined(...api.map((counts) => numberAt(counts, "totalRequests"))) ?? 0;
  const errors = sumDefined(...api.map((counts) => numberAt(counts, "totalErrors"))) ?? 0;
  if (errors > 0 && errors >= requests) {
    return `Qwen Code's model requests all failed (${String(errors)} of ${String(requests)})`;
  }
  return undefined;
}

/** Reads Qwen Code's `-o json` output. */
export const parseQwenOutput: OutputParser = neverThrow("Qwen Code", (stdout, stderr) => {
  const records = readJsonRecords(stdout);
  const stream = readMessageStream(records);
  const result = records.findLast((record) => record.type === "result");
  const sessionId =
    stringAt(result, "session_id") ??
    stringAt(stream.init, "session_id") ??
    records.map((record) => stringAt(record, "session_id")).find((id) => id !== undefined);
  const countedToolCalls = stream.isStream ? stream.toolUseIds.size : undefined;

  if (result === undefined) {
    const perMessage = [...stream.usageById.values()].map(usageTokens);
    const sum = (key: keyof TokenCounts): number | undefined =>
      sumDefined(...perMessage.map((counts) => counts[key]));
    return createOutcome({
      telemetry: compactTelemetry({
        inputTokens: sum("input"),
        outputTokens: sum("output"),
        cacheReadTokens: sum("cacheRead"),
        turns: stream.isStream ? stream.mainResponseIds.size : undefined,
        toolCalls: countedToolCalls,
        model: stringAt(stream.init, "model") ?? stream.lastModel,
      }),
      error: missingSummaryError("Qwen Code", "result", stderr),
      sessionId,
    });
  }

  const stats = recordAt(result, "stats");
  const modelEntries = Object.entries(recordAt(stats, "models") ?? {}).filter(
    (entry): entry is [string, JsonRecord] => isRecord(entry[1]),
  );
  const models = modelEntries.map(([, model]) => model);
  const usage = recordAt(result, "usage");
  const tokens = usage === undefined ? statsTokens(models) : usageTokens(usage);
  const busiest = modelEntries.reduce<[string, number] | undefined>((best, [name, model]) => {
    const requests = numberAt(recordAt(model, "api"), "totalRequests") ?? 0;
    return best === undefined || requests > best[1] ? [name, requests] : best;
  }, undefined);
  const error = resultError(result, models);
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      cacheReadTokens: tokens.cacheRead,
      turns: numberAt(result, "num_turns"),
      toolCalls: numberAt(recordAt(stats, "tools"), "totalCalls") ?? countedToolCalls,
      model: stringAt(stream.init, "model") ?? busiest?.[0] ?? stream.lastModel,
    }),
    error,
    sessionId,
    finalText: error === undefined ? textAt(result, "result") : undefined,
  });
});
