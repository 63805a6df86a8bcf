import path from "node:path";
import {
  compactTelemetry,
  createOutcome,
  isRecord,
  lastLine,
  neverThrow,
  numberAt,
  readJsonRecords,
  recordAt,
  stringAt,
  subtractClamped,
  sumDefined,
  textAt,
  type JsonRecord,
} from "../parsers/json-lines.js";
import type { AgentAdapter, OutputParser } from "../types.js";
import { LITELLM_KEYS, litellmModel } from "./aider.js";

/** The trajectory's name in the trial's artifacts folder. */
const TRAJECTORY = "mini-trajectory.json";

/** Why a run ended, as mini-swe-agent words it (`info.exit_status`), when it is not a success. */
const STOPS: Readonly<Record<string, string>> = {
  LimitsExceeded: "mini-swe-agent reached its step or cost limit",
  TimeExceeded: "mini-swe-agent reached its wall-time limit",
  RepeatedFormatError: "mini-swe-agent stopped: the model's replies held no valid action, 3 times",
};

/** One litellm `usage` as telemetry: `prompt_tokens` holds cache reads and cache writes. */
function usageTokens(usage: JsonRecord | undefined) {
  const details = recordAt(usage, "prompt_tokens_details");
  const cacheRead =
    numberAt(details, "cached_tokens") ?? numberAt(usage, "cache_read_input_tokens");
  const cacheWrite =
    numberAt(usage, "cache_creation_input_tokens") ?? numberAt(details, "cache_creation_tokens");
  return {
    input: subtractClamped(numberAt(usage, "prompt_tokens"), cacheRead, cacheWrite),
    output: numberAt(usage, "completion_tokens"),
    cacheRead,
    cacheWrite,
  };
}

function messagesOf(trajectory: JsonRecord): JsonRecord[] {
  const messages = trajectory.messages;
  return Array.isArray(messages) ? messages.filter(isRecord) : [];
}

/** The exception's message after a Rich traceback box on stderr (a crash before the run). */
function crashMessage(stderr: string): string | undefined {
  const boxEnd = stderr.lastIndexOf("╰");
  const tail = boxEnd < 0 ? "" : stderr.slice(stderr.indexOf("\n", boxEnd) + 1);
  const joined = tail
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
  return joined !== "" ? joined : lastLine(stderr);
}

/**
 * Reads mini-swe-agent's trajectory (`-o`, which lab reads in place of stdout), or, when it
 * crashed before writing one, its stdout and stderr.
 *
 * - Tokens are summed over every saved model response (`messages[].extra.response.usage`),
 *   format-error replies included, as they were billed. litellm's `prompt_tokens` includes
 *   cache reads (`prompt_tokens_details.cached_tokens`) and cache writes
 *   (`cache_creation_input_tokens`), which are subtracted.
 * - `turns` is `info.model_stats.api_calls`; `toolCalls` the actions the model asked for.
 * - `costUsd` is `instance_cost` when positive: litellm's price for models it knows. With
 *   MSWEA_COST_TRACKING=ignore_errors other models cost 0, and lab prices their tokens.
 * - `info.exit_status` is "Submitted" on success; limits, repeated format errors and exceptions
 *   (an API error's class name, message in `exception_str`) are failures, with exit status 1
 *   for exceptions and 0 otherwise.
 */
export const parseMiniSweAgentOutput: OutputParser = neverThrow(
  "mini-swe-agent",
  (stdout, stderr) => {
    const trajectory = readJsonRecords(stdout).find(
      (record) => recordAt(record, "info") !== undefined && Array.isArray(record.messages),
    );
    if (trajectory === undefined) {
      const reason = crashMessage(stderr);
      const error = `mini-swe-agent wrote no trajectory${reason === undefined ? "" : `: ${reason}`}`;
      return createOutcome({ telemetry: {}, error });
    }
    const info = recordAt(trajectory, "info");
    const messages = messagesOf(trajectory);
    const usages = messages.map((message) =>
      usageTokens(recordAt(recordAt(recordAt(message, "extra"), "response"), "usage")),
    );
    const sum = (key: keyof ReturnType<typeof usageTokens>): number | undefined =>
      sumDefined(...usages.map((usage) => usage[key]));
    const actions = messages.map((message) => recordAt(message, "extra")?.actions);
    const toolCalls = actions.reduce<number>(
      (count, list) => count + (Array.isArray(list) ? list.length : 0),
      0,
    );
    const stats = recordAt(info, "model_stats");
    const cost = numberAt(stats, "instance_cost");
    const status = stringAt(info, "exit_status") ?? "";
    const exitExtra = recordAt(
      messages.findLast((m) => m.role === "exit"),
      "extra",
    );
    const error =
      status === "" || status === "Submitted"
        ? undefined
        : (STOPS[status] ??
          `mini-swe-agent stopped with ${status}: ${textAt(exitExtra, "exception_str") ?? "no message"}`);
    // In text mode the reply holds the action block after a THOUGHT; the prose is the message.
    const lastReply = textAt(
      messages.findLast((m) => m.role === "assistant"),
      "content",
    )
      ?.replace(/```[\s\S]*?```/g, "")
      .replace(/^THOUGHT:\s*/, "")
      .trim();
    return createOutcome({
      telemetry: compactTelemetry({
        inputTokens: sum("input"),
        outputTokens: sum("output"),
        cacheReadTokens: sum("cacheRead"),
        cacheWriteTokens: sum("cacheWrite"),
        turns: numberAt(stats, "api_calls"),
        toolCalls,
        costUsd: cost !== undefined && cost > 0 ? cost : undefined,
        model: stringAt(recordAt(recordAt(info, "config"), "model"), "model_name"),
      }),
      error,
      finalText: status === "Submitted" && lastReply !== "" ? lastReply : undefined,
    });
  },
);

/**
 * mini-swe-agent (`mini -y --exit-immediately`), the 100-line agent whose only tool is bash: in
 * version 2 a `bash` tool call per step (text mode, ```mswea_bash_command blocks, is a config
 * away: see docs/design/agents-python.md). Its trajectory goes to the artifacts folder and is
 * what lab parses.
 */
export const miniSweAgent: AgentAdapter = {
  name: "mini-swe-agent",
  description: "mini-swe-agent, headless (mini -y --exit-immediately, trajectory parsed)",
  package: { manager: "pypi", name: "mini-swe-agent", version: "2.4.6", bin: "mini" },
  credentials: [LITELLM_KEYS],
  optionalEnv: ["OPENAI_API_BASE", "ANTHROPIC_API_BASE", "MSWEA_MODEL_NAME"],
  invocation(input) {
    const { settings } = input;
    const model = litellmModel(settings.model, settings.baseUrl);
    const trajectory = path.join(input.artifactsDir, TRAJECTORY);
    return {
      argv: [
        input.executable,
        "--yolo",
        "--exit-immediately",
        "--task",
        input.prompt,
        "--output",
        trajectory,
        ...(model === undefined ? [] : ["--model", model]),
        ...(settings.maxCostUsd === undefined ? [] : ["--cost-limit", String(settings.maxCostUsd)]),
      ],
      env: {
        ...input.credentials,
        ...(settings.baseUrl === undefined ? {} : { OPENAI_API_BASE: settings.baseUrl }),
        // Skips the first-run setup prompt and the start-up banner.
        MSWEA_CONFIGURED: "true",
        MSWEA_SILENT_STARTUP: "1",
        MSWEA_GLOBAL_CONFIG_DIR: path.join(input.home, ".config", "mini-swe-agent"),
        // A model litellm has no price for would otherwise stop the run after its first answer.
        MSWEA_COST_TRACKING: "ignore_errors",
        // Two tries (each with the OpenAI client's own two retries): a dead endpoint fails in
        // ~7 s, not after ten tries with waits of up to a minute.
        MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "2",
        LITELLM_LOCAL_MODEL_COST_MAP: "True",
      },
      files: [],
      outputFile: trajectory,
    };
  },
  parse: parseMiniSweAgentOutput,
  transcripts() {
    // The trajectory is the transcript, and it is written into the artifacts folder already.
    return Promise.resolve([]);
  },
};
