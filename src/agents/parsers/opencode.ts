/**
 * opencode's `run --format json` events (JSONL) as telemetry. There is no summary event, so every
 * figure is a sum over `step_finish` events (one per model response): a killed run keeps the
 * steps it finished.
 *
 * - `tokens.input` already excludes cache reads and writes (`tokens.cache.read`, `.write`).
 * - `outputTokens` is `tokens.output + tokens.reasoning`: opencode reports reasoning apart from
 *   output and bills it at the output rate, so the sum is the billed output.
 * - `costUsd` is the sum of `part.cost`, opencode's own figure from the configured $/MTok; it is
 *   set only when some step carries a cost.
 * - Side calls (the session title) appear nowhere in this output and are not counted.
 * - `turns` is the number of steps, `toolCalls` the number of distinct `tool_use` parts.
 * - No event names the model, so `model` stays unset.
 * - A failure is an `error` event (`error.data.message`); output that stops after a step that
 *   asked for tools, or before any step, was cut short.
 */
import type { OutputParser } from "../types.js";
import {
  compactTelemetry,
  createOutcome,
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

/** opencode's message for an `error` event: `{name, data{message}}`. */
function eventError(record: JsonRecord): string {
  const error = recordAt(record, "error");
  return (
    textAt(recordAt(error, "data"), "message") ??
    textAt(error, "message") ??
    textAt(error, "name") ??
    "opencode reported an error"
  );
}

/** Reads opencode's `run --format json` output. */
export const parseOpencodeOutput: OutputParser = neverThrow("opencode", (stdout, stderr) => {
  const records = readJsonRecords(stdout);
  let sessionId: string | undefined;
  let input: number | undefined;
  let output: number | undefined;
  let cacheRead: number | undefined;
  let cacheWrite: number | undefined;
  let cost: number | undefined;
  let steps = 0;
  let lastReason: string | undefined;
  let lastText: string | undefined;
  let error: string | undefined;
  const toolCalls = new Set<string>();

  for (const record of records) {
    sessionId ??= stringAt(record, "sessionID");
    const part = recordAt(record, "part");
    switch (record.type) {
      case "step_finish": {
        const tokens = recordAt(part, "tokens");
        const cache = recordAt(tokens, "cache");
        input = sumDefined(input, numberAt(tokens, "input"));
        output = sumDefined(output, numberAt(tokens, "output"), numberAt(tokens, "reasoning"));
        cacheRead = sumDefined(cacheRead, numberAt(cache, "read"));
        cacheWrite = sumDefined(cacheWrite, numberAt(cache, "write"));
        cost = sumDefined(cost, numberAt(part, "cost"));
        steps++;
        lastReason = stringAt(part, "reason");
        break;
      }
      case "tool_use":
        toolCalls.add(
          stringAt(part, "callID") ?? stringAt(part, "id") ?? `#${String(toolCalls.size)}`,
        );
        break;
      case "text":
        lastText = textAt(part, "text") ?? lastText;
        break;
      case "error":
        error = eventError(record);
        break;
    }
  }

  if (error === undefined && (steps === 0 || lastReason === "tool-calls")) {
    error = missingSummaryError("opencode", "final step", stderr);
  }
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      turns: records.length > 0 ? steps : undefined,
      toolCalls: records.length > 0 ? toolCalls.size : undefined,
      costUsd: cost,
    }),
    error,
    sessionId,
    finalText: error === undefined ? lastText : undefined,
  });
});
