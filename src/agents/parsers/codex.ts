/**
 * Codex CLI's `exec --json` events (JSONL) as telemetry.
 *
 * - Tokens come from the last `turn.completed`, whose `usage` is the thread's running total
 *   (not the turn's), so several turns are not summed. `input_tokens` counts every prompt token,
 *   cached ones included (OpenAI's convention), so cache reads and cache writes are subtracted.
 * - `outputTokens` is `output_tokens`, which already includes `reasoning_output_tokens`
 *   (Responses API `output_tokens_details.reasoning_tokens` is a part of `output_tokens`).
 * - Tool calls are the distinct tool items (`command_execution`, `file_change`, `mcp_tool_call`,
 *   `web_search`), started or completed, so a command cut short by a kill still counts.
 * - No cost, model, or count of model responses is printed, so `costUsd`, `model` and `turns`
 *   stay unset. Usage arrives only with `turn.completed`: a killed run has tool calls, no tokens.
 * - A failure is `turn.failed`; `error` events are retries or the failure's prelude and count
 *   only when no turn completed. `error` items (`item.type: "error"`) are warnings, not failures.
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
  subtractClamped,
  textAt,
  type JsonRecord,
} from "./json-lines.js";

/** Item types that are a tool the model called. */
const TOOL_ITEM_TYPES: ReadonlySet<string> = new Set([
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "web_search",
]);

/** Reads Codex's `exec --json` output. */
export const parseCodexOutput: OutputParser = neverThrow("Codex", (stdout, stderr) => {
  const records = readJsonRecords(stdout);
  let sessionId: string | undefined;
  let usage: JsonRecord | undefined;
  let finished: { ok: true } | { ok: false; message: string } | undefined;
  let lastErrorEvent: string | undefined;
  let lastMessage: string | undefined;
  const toolItems = new Set<string>();

  for (const record of records) {
    switch (record.type) {
      case "thread.started":
        sessionId = stringAt(record, "thread_id") ?? sessionId;
        break;
      case "item.started":
      case "item.updated":
      case "item.completed": {
        const item = recordAt(record, "item");
        const type = stringAt(item, "type");
        if (type !== undefined && TOOL_ITEM_TYPES.has(type)) {
          toolItems.add(stringAt(item, "id") ?? `#${String(toolItems.size)}`);
        }
        if (record.type === "item.completed" && type === "agent_message") {
          lastMessage = textAt(item, "text") ?? lastMessage;
        }
        break;
      }
      case "turn.completed":
        usage = recordAt(record, "usage") ?? usage;
        finished = { ok: true };
        break;
      case "turn.failed":
        usage = recordAt(record, "usage") ?? usage;
        finished = {
          ok: false,
          message: textAt(recordAt(record, "error"), "message") ?? "Codex reported turn.failed",
        };
        break;
      case "error":
        lastErrorEvent = textAt(record, "message") ?? lastErrorEvent;
        break;
    }
  }

  const cacheRead = numberAt(usage, "cached_input_tokens");
  const cacheWrite = numberAt(usage, "cache_write_input_tokens");
  let error: string | undefined;
  if (finished === undefined) {
    error = lastErrorEvent ?? missingSummaryError("Codex", "turn.completed event", stderr);
  } else if (!finished.ok) {
    error = finished.message;
  }
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens: subtractClamped(numberAt(usage, "input_tokens"), cacheRead, cacheWrite),
      outputTokens: numberAt(usage, "output_tokens"),
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      toolCalls: records.length > 0 ? toolItems.size : undefined,
    }),
    error,
    sessionId,
    finalText: error === undefined ? lastMessage : undefined,
  });
});
