/**
 * Gemini CLI's `-o json` (one document) and `-o stream-json` (events ending in `result`) as
 * telemetry, and its error document, which it prints on stderr with nothing on stdout.
 *
 * - `-o json` tokens are summed over `stats.models`, which includes side calls (the router).
 *   `prompt` includes cached tokens, so `inputTokens` is `prompt - cached`, plus `tool` (tool-use
 *   prompt tokens, billed as input and counted apart from `prompt`).
 * - `outputTokens` is `candidates + thoughts`: in Gemini's accounting thinking tokens are not part
 *   of `candidates`, and they are billed as output.
 * - `turns` is the main role's request count (`roles.main.totalRequests`), else the main model's
 *   `api.totalRequests`; `model` is that main model, named as the server answered
 *   (`modelVersion`). `toolCalls` is `stats.tools.totalCalls`.
 * - stream-json's result has `input_tokens` (with cached), `cached`, `output_tokens` (no thinking
 *   count is given) and `tool_calls`, and no request count: `turns` stays unset.
 * - No cost is reported.
 */
import type { AgentOutcome, OutputParser } from "../types.js";
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

/** The message of Gemini's `{session_id, error{type, message, code}}` document. */
function errorMessage(document: JsonRecord | undefined): string | undefined {
  const error = document?.error;
  if (typeof error === "string") return error.trim() === "" ? undefined : error.trim();
  if (!isRecord(error)) return undefined;
  return textAt(error, "message") ?? textAt(error, "type") ?? "Gemini CLI reported an error";
}

/** The last error document in some output. */
function findErrorDocument(records: readonly JsonRecord[]): JsonRecord | undefined {
  return records.findLast((record) => errorMessage(record) !== undefined);
}

/** The message of an error document on stderr, where Gemini puts it after a stack trace. */
function stderrError(stderr: string): string | undefined {
  return errorMessage(findErrorDocument(readJsonRecords(stderr)));
}

/** The `-o json` document: `stats` and a `response`, no event `type`. */
function parseDocument(document: JsonRecord): AgentOutcome {
  const stats = recordAt(document, "stats");
  const models = Object.entries(recordAt(stats, "models") ?? {}).filter(
    (entry): entry is [string, JsonRecord] => isRecord(entry[1]),
  );
  const tokens = models.map(([, model]) => recordAt(model, "tokens"));
  const sum = (key: string): number | undefined =>
    sumDefined(...tokens.map((counts) => numberAt(counts, key)));
  const cached = sum("cached");
  const prompt = sum("prompt");
  const input =
    prompt === undefined ? sum("input") : sumDefined(subtractClamped(prompt, cached), sum("tool"));

  const mainRequests = (model: JsonRecord): number | undefined =>
    numberAt(recordAt(recordAt(model, "roles"), "main"), "totalRequests");
  const hasRoles = models.some(([, model]) => mainRequests(model) !== undefined);
  const requests = (model: JsonRecord): number =>
    (hasRoles ? mainRequests(model) : numberAt(recordAt(model, "api"), "totalRequests")) ?? 0;
  const main = models.reduce<[string, JsonRecord] | undefined>(
    (best, entry) => (best === undefined || requests(entry[1]) > requests(best[1]) ? entry : best),
    undefined,
  );
  const turns = hasRoles
    ? sumDefined(...models.map(([, model]) => mainRequests(model)))
    : main === undefined
      ? undefined
      : numberAt(recordAt(main[1], "api"), "totalRequests");

  const error = errorMessage(document);
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens: input,
      outputTokens: sumDefined(sum("candidates"), sum("thoughts")),
      cacheReadTokens: cached,
      turns,
      toolCalls: numberAt(recordAt(stats, "tools"), "totalCalls"),
      model: main?.[0],
    }),
    error,
    sessionId: stringAt(document, "session_id"),
    finalText: error === undefined ? textAt(document, "response") : undefined,
  });
}

/** The stream-json events; `result` closes a complete run. */
function parseStream(records: readonly JsonRecord[], stderr: string): AgentOutcome {
  let sessionId: string | undefined;
  let initModel: string | undefined;
  let result: JsonRecord | undefined;
  let lastErrorEvent: string | undefined;
  let text = "";
  const toolIds = new Set<string>();
  for (const record of records) {
    switch (record.type) {
      case "init":
        sessionId = stringAt(record, "session_id") ?? sessionId;
        initModel = stringAt(record, "model") ?? initModel;
        break;
      case "message":
        if (record.role === "assistant") {
          const content = stringAt(record, "content") ?? "";
          text = record.delta === true ? text + content : content;
        }
        break;
      case "tool_use":
        toolIds.add(stringAt(record, "tool_id") ?? `#${String(toolIds.size)}`);
        text = "";
        break;
      case "tool_result":
        text = "";
        break;
      case "error":
        if (record.severity !== "warning") lastErrorEvent = textAt(record, "message");
        break;
      case "result":
        result = record;
        break;
    }
  }

  const stats = recordAt(result, "stats");
  const cached = numberAt(stats, "cached");
  const withCached = numberAt(stats, "input_tokens");
  const models = Object.entries(recordAt(stats, "models") ?? {});
  const biggest = models.reduce<[string, number] | undefined>((best, [name, counts]) => {
    const total = numberAt(counts, "total_tokens") ?? 0;
    return best === undefined || total > best[1] ? [name, total] : best;
  }, undefined);

  let error: string | undefined;
  if (result === undefined) {
    error =
      lastErrorEvent ??
      stderrError(stderr) ??
      missingSummaryError("Gemini CLI", "result event", stderr);
  } else if (result.status !== "success") {
    error = errorMessage(result) ?? `Gemini CLI ended with status ${String(result.status)}`;
  }
  const finalText = text.trim();
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens:
        withCached === undefined ? numberAt(stats, "input") : subtractClamped(withCached, cached),
      outputTokens: numberAt(stats, "output_tokens"),
      cacheReadTokens: cached,
      toolCalls: numberAt(stats, "tool_calls") ?? (records.length > 0 ? toolIds.size : undefined),
      model: biggest?.[0] ?? initModel,
    }),
    error,
    sessionId: sessionId ?? stringAt(result, "session_id"),
    finalText: error === undefined && finalText !== "" ? finalText : undefined,
  });
}

/** Reads Gemini CLI's `json` or `stream-json` output, or its error document on stderr. */
export const parseGeminiOutput: OutputParser = neverThrow("Gemini CLI", (stdout, stderr) => {
  const records = readJsonRecords(stdout);
  const document = records.findLast(
    (record) => record.type === undefined && (isRecord(record.stats) || "response" in record),
  );
  if (document !== undefined) return parseDocument(document);
  if (records.some((record) => typeof record.type === "string")) {
    return parseStream(records, stderr);
  }
  const failure = findErrorDocument(records) ?? findErrorDocument(readJsonRecords(stderr));
  if (failure !== undefined) {
    return createOutcome({
      telemetry: {},
      error: errorMessage(failure),
      sessionId: stringAt(failure, "session_id"),
    });
  }
  return createOutcome({
    telemetry: {},
    error: missingSummaryError("Gemini CLI", "JSON result", stderr),
  });
});
