import path from "node:path";
import {
  compactTelemetry,
  createOutcome,
  isRecord,
  neverThrow,
  numberAt,
  readJsonRecords,
  recordAt,
  stringAt,
  sumDefined,
  type JsonRecord,
} from "../parsers/json-lines.js";
import type { AgentAdapter, OutputParser } from "../types.js";

/** Where aider keeps lab's files in its HOME: history, transcripts, caches. */
const AIDER_DIR = ".aider";

/** The transcripts aider writes there: the chat as Markdown, and every request to the model. */
const TRANSCRIPTS = ["chat.history.md", "llm.history"] as const;

/**
 * The model name litellm gets. With a base URL and no provider prefix, `openai/` is added: a
 * custom endpoint is spoken to as OpenAI-compatible Chat Completions (a bare "mock-model" would
 * make litellm fail with "LLM Provider NOT provided", and a bare "claude-…" would go to
 * Anthropic's own API, ignoring the base URL). A name with a prefix is left as given.
 */
export function litellmModel(
  model: string | undefined,
  baseUrl: string | undefined,
): string | undefined {
  if (model === undefined || baseUrl === undefined || model.includes("/")) return model;
  return `openai/${model}`;
}

/** Keys of the model providers litellm reads; either Python agent needs one of them. */
export const LITELLM_KEYS = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "DEEPSEEK_API_KEY",
  "OPENROUTER_API_KEY",
] as const;

/** The line after which lab's bootstrap prints aider's analytics events on stdout. */
export const AIDER_EVENTS_MARKER = "--- lab: aider analytics events ---";

/**
 * Python run in place of the `aider` script (0.86.2; on versions without these names the
 * assignments are harmless):
 * - `RETRY_TIMEOUT`: aider retries a failing model API with doubling waits until they pass 60 s,
 *   about 80 s on a dead endpoint (exit status 0); at 2 it gives up after ~11 s.
 * - `RepoMap.TAGS_CACHE_DIR`: the repo map's SQLite cache, `.aider.tags.cache.v4/` in the work
 *   tree, where lab would take it for part of the change; an absolute path moves it to HOME.
 * - On exit, the analytics log (exact tokens per answer) is printed after aider's own output.
 *   `--analytics-log /dev/stderr` cannot do it: Node gives a child sockets, not pipes, for
 *   stdio, and opening /dev/stderr on a socket fails (ENXIO), which aider ignores silently.
 */
function bootstrap(tagsCacheDir: string, eventsLog: string): string {
  return [
    "import sys",
    "import aider.coders.base_coder as base_coder",
    "import aider.repomap as repomap",
    "base_coder.RETRY_TIMEOUT = 2",
    `repomap.RepoMap.TAGS_CACHE_DIR = ${JSON.stringify(tagsCacheDir)}`,
    "from aider.main import main",
    "try:",
    "    code = main()",
    "finally:",
    "    try:",
    `        events = open(${JSON.stringify(eventsLog)}).read()`,
    "    except OSError:",
    '        events = ""',
    `    sys.stdout.write("\\n" + ${JSON.stringify(AIDER_EVENTS_MARKER)} + "\\n" + events)`,
    "    sys.stdout.flush()",
    "sys.exit(code)",
  ].join("\n");
}

/** aider's shorthand token counts ("950", "1.2k", "12k"), back to numbers (approximate). */
function shorthandTokens(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = text.endsWith("k") ? Number(text.slice(0, -1)) * 1000 : Number(text);
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

const TOKENS_LINE =
  /^Tokens: ([\d.]+k?) sent(?:, [\d.]+k? cache write)?(?:, [\d.]+k? cache hit)?, ([\d.]+k?) received\.(?: Cost: \$([\d.]+) message, \$([\d.]+) session\.)?/;
const MODEL_LINE = /^(?:Main model|Model): (\S+) with (\S+) edit format/;
const API_ERROR_LINE = /^litellm\.\w+: /;

/**
 * What aider printed to stdout: its model, the "Tokens: …" line after each model answer, and
 * whether the last model request failed for good (an error line not followed by "Retrying" or
 * by an answer).
 */
function readStdout(stdout: string) {
  const lines = stdout.split(/\r?\n/);
  let model: string | undefined;
  const tokenLines: RegExpExecArray[] = [];
  let error: string | undefined;
  for (const [i, line] of lines.entries()) {
    const modelMatch = MODEL_LINE.exec(line);
    if (modelMatch && model === undefined) model = modelMatch[1];
    const tokens = TOKENS_LINE.exec(line);
    if (tokens) {
      tokenLines.push(tokens);
      error = undefined;
    } else if (line.startsWith("Retrying in ")) {
      error = undefined;
    } else if (API_ERROR_LINE.test(line)) {
      // aider's hint for the error class follows on the next line ("Check your API key.").
      const hint = lines[i + 1]?.trim();
      const usable = hint !== undefined && hint !== "" && !hint.startsWith("Retrying in ");
      error = usable ? `${line.trim()} ${hint}` : line.trim();
    } else if (/has hit a token limit/.test(line)) {
      error = line.trim();
    }
  }
  return { model, tokenLines, error };
}

/** aider's analytics events (`--analytics-log`), which lab's bootstrap prints last. */
function readEvents(text: string): JsonRecord[] {
  return readJsonRecords(text).filter(
    (record) => typeof record.event === "string" && isRecord(record.properties),
  );
}

/**
 * Reads aider's stdout: its output as printed with `--no-pretty`, then (from lab's bootstrap)
 * a marker line and its analytics events as JSON lines.
 *
 * - Tokens are the `message_send` events' exact `prompt_tokens` and `completion_tokens`, one
 *   event per model answer (`turns`). Without events, the stdout "Tokens: 1.2k sent, 50
 *   received." lines give rounded counts.
 * - `prompt_tokens` is the Chat API's, cached tokens included: aider reports no cache reads for
 *   OpenAI-style usage, so `inputTokens` includes them and `cacheReadTokens` stays unset.
 * - `costUsd` is aider's own session total (litellm's prices), set only when aider knows the
 *   model's prices; for other models lab prices the tokens.
 * - aider exits 0 when the model API fails; the failure is its last `litellm.*Error` line that
 *   no retry or answer followed, an unexpected exception event, or an unusual exit reason.
 */
export const parseAiderOutput: OutputParser = neverThrow("aider", (stdout) => {
  const marker = stdout.lastIndexOf(`\n${AIDER_EVENTS_MARKER}\n`);
  const printed = readStdout(marker < 0 ? stdout : stdout.slice(0, marker));
  const events = marker < 0 ? [] : readEvents(stdout.slice(marker));
  const sends = events
    .filter((event) => event.event === "message_send")
    .map((event) => recordAt(event, "properties"));
  const fromEvents = sends.length > 0;
  const inputTokens = fromEvents
    ? sumDefined(...sends.map((p) => numberAt(p, "prompt_tokens")))
    : sumDefined(...printed.tokenLines.map((m) => shorthandTokens(m[1])));
  const outputTokens = fromEvents
    ? sumDefined(...sends.map((p) => numberAt(p, "completion_tokens")))
    : sumDefined(...printed.tokenLines.map((m) => shorthandTokens(m[2])));
  const sessionCost = fromEvents
    ? numberAt(sends.at(-1), "total_cost")
    : printed.tokenLines.map((m) => (m[4] === undefined ? undefined : Number(m[4]))).at(-1);
  const turns = fromEvents ? sends.length : printed.tokenLines.length;

  const exception = events.findLast((event) => event.event === "message_send_exception");
  const exit = events.findLast((event) => event.event === "exit");
  const exitReason = stringAt(recordAt(exit, "properties"), "reason");
  const error =
    printed.error ??
    stringAt(recordAt(exception, "properties"), "exception") ??
    (exitReason === undefined || exitReason.startsWith("Completed")
      ? undefined
      : `aider exited early: ${exitReason}`);
  return createOutcome({
    telemetry: compactTelemetry({
      inputTokens,
      outputTokens,
      turns: turns > 0 ? turns : undefined,
      costUsd: sessionCost !== undefined && sessionCost > 0 ? sessionCost : undefined,
      model: printed.model,
    }),
    error,
  });
});

/**
 * aider (`aider --message-file`), the Python pair programmer: one message, the edits its answer
 * holds applied with every confirmation answered yes, no commits, no analytics sent. Its local
 * analytics log gives exact token counts. See docs/design/agents-python.md.
 */
export const aider: AgentAdapter = {
  name: "aider",
  description: "aider, headless (one --message-file, --yes-always, no commits)",
  package: { manager: "pypi", name: "aider-chat", version: "0.86.2", bin: "aider" },
  credentials: [LITELLM_KEYS],
  optionalEnv: ["OPENAI_API_BASE", "ANTHROPIC_API_BASE", "AIDER_MODEL"],
  invocation(input) {
    const { settings } = input;
    const dir = path.join(input.home, AIDER_DIR);
    const model = litellmModel(settings.model, settings.baseUrl);
    const python = path.join(path.dirname(input.executable), "python");
    return {
      argv: [
        python,
        "-c",
        bootstrap(path.join(dir, "tags.cache"), path.join(dir, "analytics.jsonl")),
        ...(model === undefined ? [] : ["--model", model]),
        "--message-file",
        input.promptFile,
        "--yes-always",
        // lab takes the change from the work tree; commits would add side calls for messages.
        "--no-auto-commits",
        "--no-dirty-commits",
        // Else aider appends `.aider*` to .gitignore, which would be part of the change.
        "--no-gitignore",
        "--no-check-update",
        "--no-show-release-notes",
        "--analytics-disable",
        "--analytics-log",
        path.join(dir, "analytics.jsonl"),
        "--no-show-model-warnings",
        // Answers in one piece carry the API's usage; streamed ones are counted by aider itself.
        "--no-stream",
        "--no-pretty",
        "--no-fancy-input",
        "--no-detect-urls",
        "--disable-playwright",
        "--chat-history-file",
        path.join(dir, TRANSCRIPTS[0]),
        "--llm-history-file",
        path.join(dir, TRANSCRIPTS[1]),
        "--input-history-file",
        path.join(dir, "input.history"),
      ],
      env: {
        ...input.credentials,
        ...(settings.baseUrl === undefined ? {} : { OPENAI_API_BASE: settings.baseUrl }),
        // litellm's price list from the package, not fetched from GitHub at import.
        LITELLM_LOCAL_MODEL_COST_MAP: "True",
        // Rich wraps at 80 columns when stdout is no terminal, splitting error lines.
        COLUMNS: "1000",
      },
      files: [
        {
          // A fresh, non-empty price cache: aider fetches litellm's list from GitHub (and prints
          // the failure) when its cache is missing, empty or older than a day.
          path: path.join(dir, "caches", "model_prices_and_context_window.json"),
          content: '{"lab": {"note": "placeholder; aider falls back to litellm\'s own list"}}\n',
        },
      ],
    };
  },
  parse: parseAiderOutput,
  transcripts() {
    return Promise.resolve(TRANSCRIPTS.map((name) => path.join(AIDER_DIR, name)));
  },
};
