import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Telemetry } from "../../src/core/index.js";
import {
  parseClaudeOutput,
  parseCodexOutput,
  parseGeminiOutput,
  parseOpencodeOutput,
  parseQwenOutput,
} from "../../src/agents/parsers/index.js";
import type { AgentOutcome, OutputParser } from "../../src/agents/types.js";

/**
 * Expected figures are worked out by hand from the fixture files (see
 * test/fixtures/agents/outputs/README.md): the scripted server reported 1000 uncached + 200
 * cached input and 50 output tokens per main-loop response, 7 + 3 per side call.
 */
function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/agents/outputs/${name}`, import.meta.url), "utf8");
}

/** The text up to (not including) the first occurrence of `marker`, plus `extra`. */
function cutBefore(text: string, marker: string, extra = ""): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`marker not found: ${marker}`);
  return text.slice(0, at) + extra;
}

/** JSONL with non-JSON lines between the events, as CLIs print warnings. */
function withGarbage(jsonl: string): string {
  const lines = jsonl.trimEnd().split("\n");
  const noise = ["(node:123) Warning: something", "", "{not json", "Loaded cached credentials."];
  return lines.flatMap((line, i) => [noise[i % noise.length] ?? "", line]).join("\n") + "\n";
}

/** The tokens of `count` main-loop responses: 1000 uncached, 200 cached input, 50 output each. */
function responses(count: number): Telemetry {
  return { inputTokens: 1000 * count, outputTokens: 50 * count, cacheReadTokens: 200 * count };
}

const DONE = "Done: wrote hello.txt and appended via shell.";

/** Session ids that more than one case expects. */
const SESSION = {
  claudeStream: "3b24f65c-670b-4823-9c38-bf088a8ec96e",
  codex: "01a22844-8faa-7df3-8c5a-cd219806aae4",
  geminiStream: "25fc2230-455d-4289-a300-86cc57c17add",
  qwen: "6ae21c69-c2d7-4d3c-be7c-0d7fa42d3aaf",
};

/**
 * One output and what its parser must make of it: the whole outcome, or only its telemetry
 * where the rest is not the point.
 */
type Reading = {
  /** The test's title. */
  readonly title: string;
  readonly stdout: string;
  /** Empty when left out. */
  readonly stderr?: string;
} & ({ readonly outcome: AgentOutcome } | { readonly telemetry: Telemetry });

/** One test per reading: `parse` turns its output into exactly the outcome or telemetry given. */
function itReads(parse: OutputParser, readings: readonly Reading[]): void {
  // "%s" of the title rather than "$title", which would quote it and cut it at 40 characters.
  it.each(readings.map((reading) => [reading.title, reading] as const))("%s", (_, reading) => {
    const parsed = parse(reading.stdout, reading.stderr ?? "");
    if ("outcome" in reading) expect(parsed).toEqual(reading.outcome);
    else expect(parsed.telemetry).toEqual(reading.telemetry);
  });
}

describe("Claude Code", () => {
  const sideCall = () => {
    const result = JSON.parse(fixture("claude-2.1.197.json")) as Record<string, unknown>;
    const modelUsage = result.modelUsage as Record<string, unknown>;
    return JSON.stringify({
      ...result,
      modelUsage: {
        "claude-haiku-4-5": {
          inputTokens: 7,
          outputTokens: 3,
          cacheReadInputTokens: 0,
          cacheCreationInputTokens: 5,
          costUSD: 0.00004,
        },
        ...modelUsage,
      },
    });
  };

  itReads(parseClaudeOutput, [
    {
      title: "reads 2.1.197's JSON result, pricing side calls through modelUsage",
      stdout: fixture("claude-2.1.197.json"),
      outcome: {
        telemetry: {
          ...responses(2),
          cacheWriteTokens: 0,
          turns: 2,
          model: "claude-opus-4-8",
          costUsd: 0.012700000000000001,
        },
        sessionId: "d00cbc78-0da5-4d5c-bcd4-7c8f6a581488",
        finalText: "Done: wrote hello.txt.",
      },
    },
    {
      title: "reads 2.1.332's JSON result",
      stdout: fixture("claude-2.1.332.json"),
      outcome: {
        telemetry: {
          ...responses(3),
          cacheWriteTokens: 0,
          turns: 3,
          model: "claude-opus-5-5",
          costUsd: 0.015120000000000001,
        },
        sessionId: "8c04700a-0897-41ed-b463-ce8e931a35c2",
        finalText: DONE,
      },
    },
    {
      title: "counts tool uses in stream-json, once per tool_use id",
      stdout: fixture("claude-2.1.197.stream.jsonl"),
      outcome: {
        telemetry: {
          ...responses(3),
          cacheWriteTokens: 0,
          turns: 3,
          toolCalls: 2,
          model: "claude-sonnet-4-5",
          costUsd: 0.01143,
        },
        sessionId: SESSION.claudeStream,
        finalText: DONE,
      },
    },
    {
      title: "sums every model in modelUsage (side calls), not the main-loop usage",
      stdout: sideCall(),
      telemetry: {
        inputTokens: 2007,
        outputTokens: 103,
        cacheReadTokens: 400,
        cacheWriteTokens: 5,
        turns: 2,
        model: "claude-opus-4-8",
        costUsd: 0.012700000000000001,
      },
    },
    {
      title: "reports a dead endpoint's is_error even though subtype says success",
      stdout: fixture("claude-dead-endpoint.json"),
      outcome: {
        telemetry: {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          turns: 1,
          costUsd: 0,
        },
        error: "API Error: Unable to connect to API (ConnectionRefused)",
        sessionId: "5d1c7a52-3f0e-4b7a-9e61-2c8b0f4d9a17",
      },
    },
    {
      title: "reports an error subtype that has no result text",
      stdout: JSON.stringify({
        type: "result",
        subtype: "error_max_turns",
        is_error: false,
        num_turns: 9,
      }),
      outcome: { telemetry: { turns: 9 }, error: "error_max_turns" },
    },
    {
      title: "keeps the telemetry of a stream cut short by a kill",
      stdout: cutBefore(
        fixture("claude-2.1.197.stream.jsonl"),
        '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_hnmeou1fad"',
        '{"type":"user","mess',
      ),
      // Two responses seen (msg_91fe3grb62, msg_2kfryfwqfz), each streamed with its
      // start-of-message usage: 1000 input, 200 cache read, and 1 output token (a lower bound).
      outcome: {
        telemetry: {
          inputTokens: 2000,
          outputTokens: 2,
          cacheReadTokens: 400,
          cacheWriteTokens: 0,
          turns: 2,
          toolCalls: 2,
          model: "claude-sonnet-4-5",
        },
        error: "Claude Code printed no result (output empty or cut short)",
        sessionId: SESSION.claudeStream,
      },
    },
    {
      title: "quotes stderr when stdout is empty",
      stdout: "",
      stderr:
        "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n",
      outcome: {
        telemetry: {},
        error:
          "Claude Code printed no result (output empty or cut short); stderr: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
      },
    },
  ]);

  it("skips non-JSON lines around the events", () => {
    const clean = parseClaudeOutput(fixture("claude-2.1.197.stream.jsonl"), "");
    expect(parseClaudeOutput(withGarbage(fixture("claude-2.1.197.stream.jsonl")), "")).toEqual(
      clean,
    );
    expect(
      parseClaudeOutput(`npm WARN x\n${fixture("claude-2.1.332.json")}`, "").telemetry,
    ).toEqual(parseClaudeOutput(fixture("claude-2.1.332.json"), "").telemetry);
  });
});

describe("Codex CLI", () => {
  itReads(parseCodexOutput, [
    {
      title: "reads exec --json, subtracting cached tokens from input",
      stdout: fixture("codex-0.171.0.jsonl"),
      outcome: {
        telemetry: { ...responses(3), cacheWriteTokens: 0, toolCalls: 2 },
        sessionId: SESSION.codex,
        finalText: DONE,
      },
    },
    {
      title: "reports turn.failed",
      stdout: fixture("codex-turn-failed.jsonl"),
      outcome: {
        telemetry: { toolCalls: 0 },
        error:
          "stream disconnected before completion: error sending request for url (http://127.0.0.1:8787/v1/responses)",
        sessionId: "01a22850-4c1d-7e20-9b3a-6f0d2e8c1a45",
      },
    },
    {
      title: "counts the tool calls of a run killed mid-command; usage has not arrived",
      stdout: cutBefore(
        fixture("codex-0.171.0.jsonl"),
        '{"type":"item.completed","item":{"id":"item_1"',
      ),
      outcome: {
        telemetry: { toolCalls: 2 },
        error: "Codex printed no turn.completed event (output empty or cut short)",
        sessionId: SESSION.codex,
      },
    },
    {
      title: "adds reasoning to nothing: output_tokens already holds it",
      stdout:
        '{"type":"turn.completed","usage":{"input_tokens":5000,"cached_input_tokens":1000,"cache_write_input_tokens":500,"output_tokens":800,"reasoning_output_tokens":600}}',
      telemetry: {
        inputTokens: 3500,
        outputTokens: 800,
        cacheReadTokens: 1000,
        cacheWriteTokens: 500,
        toolCalls: 0,
      },
    },
  ]);

  it("takes error events for retries once a turn completes, and warning items as warnings", () => {
    const lines = fixture("codex-0.171.0.jsonl").split("\n");
    const noisy = [
      ...lines.slice(0, 2),
      '{"type":"error","message":"Reconnecting... 1/5"}',
      '{"type":"item.completed","item":{"id":"item_9","type":"error","message":"Model metadata for `mock-model` not found."}}',
      "Reading additional input from stdin...",
      ...lines.slice(2),
    ].join("\n");
    expect(parseCodexOutput(noisy, "")).toEqual(
      parseCodexOutput(fixture("codex-0.171.0.jsonl"), ""),
    );
  });
});

describe("Gemini CLI", () => {
  itReads(parseGeminiOutput, [
    {
      title: "reads -o json: side calls in, cached out of input, main-role requests as turns",
      stdout: fixture("gemini-0.61.0.json"),
      // tokens summed over the one model: prompt 3607 - cached 600 + tool 0; candidates 153 +
      // thoughts 0. roles.main.totalRequests 3 (the router's 1 is a side call).
      outcome: {
        telemetry: {
          inputTokens: 3007,
          outputTokens: 153,
          cacheReadTokens: 600,
          turns: 3,
          toolCalls: 2,
          model: "mock-gemini",
        },
        sessionId: "a39fe8ae-edac-4254-ab11-b8dd21438d70",
        finalText: DONE,
      },
    },
    {
      title: "reads -o stream-json",
      stdout: fixture("gemini-0.61.0.stream.jsonl"),
      outcome: {
        telemetry: { ...responses(2), toolCalls: 1, model: "mock-gemini" },
        sessionId: SESSION.geminiStream,
        finalText: "Done: wrote hello.txt.",
      },
    },
  ]);

  it("reads the error document on stderr after a stack trace", () => {
    expect(parseGeminiOutput("", fixture("gemini-connection-error.stderr.txt"))).toEqual({
      telemetry: {},
      error: "[API Error: fetch failed]",
      sessionId: "5b0f3f0e-2d7e-4d55-9a43-0c8d5f1b2e11",
    });
    const auth =
      '{"session_id":"s1","error":{"type":"Error","message":"Invalid auth method selected.","code":41}}';
    expect(parseGeminiOutput("", auth).error).toBe("Invalid auth method selected.");
  });

  it("adds thinking tokens to output", () => {
    const document = JSON.parse(fixture("gemini-0.61.0.json")) as {
      stats: { models: Record<string, { tokens: Record<string, number> }> };
    };
    const tokens = document.stats.models["mock-gemini"]!.tokens;
    tokens.thoughts = 40;
    tokens.tool = 12;
    expect(parseGeminiOutput(JSON.stringify(document), "").telemetry).toMatchObject({
      inputTokens: 3019,
      outputTokens: 193,
    });
  });

  it("skips warnings printed before the document", () => {
    const noisy = `Ripgrep is not available. Falling back to GrepTool.\n${fixture("gemini-0.61.0.json")}`;
    expect(parseGeminiOutput(noisy, "")).toEqual(
      parseGeminiOutput(fixture("gemini-0.61.0.json"), ""),
    );
  });

  it("reports a document cut short, and keeps a cut stream's tool calls", () => {
    const json = fixture("gemini-0.61.0.json");
    expect(parseGeminiOutput(json.slice(0, json.length / 2), "")).toEqual({
      telemetry: {},
      error: "Gemini CLI printed no JSON result (output empty or cut short)",
    });
    const stream = cutBefore(fixture("gemini-0.61.0.stream.jsonl"), '{"type":"tool_result"');
    expect(parseGeminiOutput(stream, "")).toEqual({
      telemetry: { toolCalls: 1, model: "gemini-2.5-pro" },
      error: "Gemini CLI printed no result event (output empty or cut short)",
      sessionId: SESSION.geminiStream,
    });
  });
});

describe("opencode", () => {
  itReads(parseOpencodeOutput, [
    {
      title: "reports an error event",
      stdout: fixture("opencode-api-error.jsonl"),
      outcome: {
        telemetry: { turns: 0, toolCalls: 0 },
        error: "Unable to connect. Is the computer able to access the url?",
        sessionId: "ses_dd7b6c2e0ffeQk3vTn8wLp1RzA",
      },
    },
    {
      title: "counts reasoning tokens as output",
      stdout:
        '{"type":"step_finish","sessionID":"s","part":{"reason":"stop","tokens":{"input":10,"output":20,"reasoning":30,"cache":{"read":0,"write":4}},"cost":0}}',
      telemetry: {
        inputTokens: 10,
        outputTokens: 50,
        cacheReadTokens: 0,
        cacheWriteTokens: 4,
        turns: 1,
        toolCalls: 0,
        costUsd: 0,
      },
    },
  ]);

  it("sums step_finish events: tokens, steps as turns, and its own cost", () => {
    const outcome = parseOpencodeOutput(fixture("opencode-1.18.33.jsonl"), "");
    const { costUsd, ...telemetry } = outcome.telemetry;
    expect(telemetry).toEqual({ ...responses(3), cacheWriteTokens: 0, turns: 3, toolCalls: 2 });
    expect(costUsd).toBeCloseTo(3 * 0.00381, 12);
    expect(outcome).toMatchObject({ sessionId: "ses_dd7b7a901ffezs6chRxi2MLkhZ", finalText: DONE });
    expect(outcome.error).toBeUndefined();
  });

  it("keeps the finished steps of a run killed mid-step", () => {
    const events = fixture("opencode-1.18.33.jsonl");
    const secondFinish = events.indexOf('{"type":"step_finish"', events.indexOf('"tool":"bash"'));
    const cut = cutBefore(events.slice(secondFinish), '{"type":"step_start"');
    const partial = events.slice(0, secondFinish) + cut + '{"type":"step_start","timest';
    const outcome = parseOpencodeOutput(withGarbage(partial), "");
    expect(outcome.telemetry).toMatchObject({
      ...responses(2),
      cacheWriteTokens: 0,
      turns: 2,
      toolCalls: 2,
    });
    expect(outcome.telemetry.costUsd).toBeCloseTo(0.00762, 12);
    expect(outcome.error).toBe("opencode printed no final step (output empty or cut short)");
    expect(outcome.finalText).toBeUndefined();
  });
});

describe("Qwen Code", () => {
  /** A 0.15.10 run whose stats count `errors` failed model requests. */
  const withErrors = (errors: number): string =>
    fixture("qwen-0.15.10.json").replaceAll('"totalErrors":0', `"totalErrors":${String(errors)}`);
  /** What both captured versions report of the same run. */
  const captured = (sessionId: string): AgentOutcome => ({
    telemetry: { ...responses(3), turns: 3, toolCalls: 2, model: "mock-model" },
    sessionId,
    finalText: DONE,
  });

  itReads(parseQwenOutput, [
    {
      title: "reads qwen-0.15.10.json, subtracting cached tokens from input",
      stdout: fixture("qwen-0.15.10.json"),
      outcome: captured(SESSION.qwen),
    },
    {
      title: "reads qwen-0.24.4.json, subtracting cached tokens from input",
      stdout: fixture("qwen-0.24.4.json"),
      outcome: captured("99ccd314-847a-431a-aa26-2c397dd0e337"),
    },
    {
      title: "reports 0.15.10's [API Error result, which exits 0",
      stdout: fixture("qwen-0.15.10-connection-error.json"),
      outcome: {
        telemetry: { inputTokens: 0, outputTokens: 0, turns: 1, toolCalls: 0, model: "mock-model" },
        error: "[API Error: Connection error. (cause: fetch failed)]",
        sessionId: "3e7a9c14-6b2d-4f80-a5e1-9d0c7b3f2a68",
      },
    },
    {
      title: "keeps the complete messages of an array cut short",
      stdout: cutBefore(
        fixture("qwen-0.15.10.json"),
        '{"type":"assistant","uuid":"ae5cf507',
        '{"type":"assis',
      ),
      // The write_file and run_shell_command responses: 1200 input each (200 cached), 50 out.
      outcome: {
        telemetry: { ...responses(2), turns: 2, toolCalls: 2, model: "mock-model" },
        error: "Qwen Code printed no result (output empty or cut short)",
        sessionId: SESSION.qwen,
      },
    },
  ]);

  it("reports requests that all failed, and not a retry that recovered", () => {
    expect(parseQwenOutput(withErrors(1), "").error).toBeUndefined();
    expect(parseQwenOutput(withErrors(3), "").error).toBe(
      "Qwen Code's model requests all failed (3 of 3)",
    );
  });
});

describe("every parser", () => {
  const parsers: [string, OutputParser][] = [
    ["claude", parseClaudeOutput],
    ["codex", parseCodexOutput],
    ["gemini", parseGeminiOutput],
    ["opencode", parseOpencodeOutput],
    ["qwen", parseQwenOutput],
  ];
  const garbage = [
    "",
    "\n\n",
    "null",
    "[1, 2, 3]",
    "{",
    "[[[[[[[[[[",
    '{"type":"result","usage":"many","modelUsage":[1],"num_turns":-3,"stats":7}',
    '{"type":"step_finish","part":{"tokens":{"input":"10"},"cost":"free"}}',
    '{"type":"turn.completed","usage":null}',
    '[{"type":"result","stats":{"models":{"m":null},"tools":[]}}]',
    '{"stats":{"models":{"m":{"tokens":{"prompt":-1}}}},"response":42}',
    '\u0000\u0001binary\uFFFD{"a":',
  ];
  it.each(parsers)("%s never throws and always returns telemetry", (_name, parse) => {
    for (const text of garbage) {
      const outcome = parse(text, text);
      expect(outcome.telemetry).toBeTypeOf("object");
      for (const value of Object.values(outcome.telemetry)) {
        if (typeof value === "number") expect(value).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("reads the events after many lines that open a brace and never close it", () => {
    const noisy = "{\n".repeat(200_000) + fixture("codex-0.171.0.jsonl");
    expect(parseCodexOutput(noisy, "")).toEqual(
      parseCodexOutput(fixture("codex-0.171.0.jsonl"), ""),
    );
  });

  it.each(parsers)("%s reports empty output as an error", (_name, parse) => {
    expect(parse("", "").error).toMatch(/printed no .* \(output empty or cut short\)$/);
  });
});
