import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  parseClaudeOutput,
  parseCodexOutput,
  parseGeminiOutput,
  parseOpencodeOutput,
  parseQwenOutput,
} from "../../src/agents/parsers/index.js";
import type { OutputParser } from "../../src/agents/types.js";

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

const DONE = "Done: wrote hello.txt and appended via shell.";

describe("Claude Code", () => {
  it("reads 2.1.197's JSON result, pricing side calls through modelUsage", () => {
    expect(parseClaudeOutput(fixture("claude-2.1.197.json"), "")).toEqual({
      telemetry: {
        inputTokens: 2000,
        outputTokens: 100,
        cacheReadTokens: 400,
        cacheWriteTokens: 0,
        turns: 2,
        model: "claude-opus-4-8",
        costUsd: 0.012700000000000001,
      },
      sessionId: "d00cbc78-0da5-4d5c-bcd4-7c8f6a581488",
      finalText: "Done: wrote hello.txt.",
    });
  });

  it("reads 2.1.332's JSON result", () => {
    expect(parseClaudeOutput(fixture("claude-2.1.332.json"), "")).toEqual({
      telemetry: {
        inputTokens: 3000,
        outputTokens: 150,
        cacheReadTokens: 600,
        cacheWriteTokens: 0,
        turns: 3,
        model: "claude-opus-5-5",
        costUsd: 0.015120000000000001,
      },
      sessionId: "8c04700a-0897-41ed-b463-ce8e931a35c2",
      finalText: DONE,
    });
  });

  it("counts tool uses in stream-json, once per tool_use id", () => {
    expect(parseClaudeOutput(fixture("claude-2.1.197.stream.jsonl"), "")).toEqual({
      telemetry: {
        inputTokens: 3000,
        outputTokens: 150,
        cacheReadTokens: 600,
        cacheWriteTokens: 0,
        turns: 3,
        toolCalls: 2,
        model: "claude-sonnet-4-5",
        costUsd: 0.01143,
      },
      sessionId: "3b24f65c-670b-4823-9c38-bf088a8ec96e",
      finalText: DONE,
    });
  });

  it("sums every model in modelUsage (side calls), not the main-loop usage", () => {
    const result = JSON.parse(fixture("claude-2.1.197.json")) as Record<string, unknown>;
    const modelUsage = result.modelUsage as Record<string, unknown>;
    const withSideCall = {
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
    };
    expect(parseClaudeOutput(JSON.stringify(withSideCall), "").telemetry).toEqual({
      inputTokens: 2007,
      outputTokens: 103,
      cacheReadTokens: 400,
      cacheWriteTokens: 5,
      turns: 2,
      model: "claude-opus-4-8",
      costUsd: 0.012700000000000001,
    });
  });

  it("reports a dead endpoint's is_error even though subtype says success", () => {
    expect(parseClaudeOutput(fixture("claude-dead-endpoint.json"), "")).toEqual({
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
    });
  });

  it("reports an error subtype that has no result text", () => {
    const result = { type: "result", subtype: "error_max_turns", is_error: false, num_turns: 9 };
    expect(parseClaudeOutput(JSON.stringify(result), "")).toEqual({
      telemetry: { turns: 9 },
      error: "error_max_turns",
    });
  });

  it("keeps the telemetry of a stream cut short by a kill", () => {
    const stream = fixture("claude-2.1.197.stream.jsonl");
    const cut = cutBefore(
      stream,
      '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_hnmeou1fad"',
      '{"type":"user","mess',
    );
    // Two responses seen (msg_91fe3grb62, msg_2kfryfwqfz), each streamed with its start-of-message
    // usage: 1000 input, 200 cache read, and 1 output token (a lower bound).
    expect(parseClaudeOutput(cut, "")).toEqual({
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
      sessionId: "3b24f65c-670b-4823-9c38-bf088a8ec96e",
    });
  });

  it("skips non-JSON lines around the events", () => {
    const clean = parseClaudeOutput(fixture("claude-2.1.197.stream.jsonl"), "");
    expect(parseClaudeOutput(withGarbage(fixture("claude-2.1.197.stream.jsonl")), "")).toEqual(
      clean,
    );
    expect(
      parseClaudeOutput(`npm WARN x\n${fixture("claude-2.1.332.json")}`, "").telemetry,
    ).toEqual(parseClaudeOutput(fixture("claude-2.1.332.json"), "").telemetry);
  });

  it("quotes stderr when stdout is empty", () => {
    const stderr =
      "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n";
    expect(parseClaudeOutput("", stderr)).toEqual({
      telemetry: {},
      error:
        "Claude Code printed no result (output empty or cut short); stderr: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
    });
  });
});

describe("Codex CLI", () => {
  it("reads exec --json, subtracting cached tokens from input", () => {
    expect(parseCodexOutput(fixture("codex-0.171.0.jsonl"), "")).toEqual({
      telemetry: {
        inputTokens: 3000,
        outputTokens: 150,
        cacheReadTokens: 600,
        cacheWriteTokens: 0,
        toolCalls: 2,
      },
      sessionId: "01a22844-8faa-7df3-8c5a-cd219806aae4",
      finalText: DONE,
    });
  });

  it("reports turn.failed", () => {
    expect(parseCodexOutput(fixture("codex-turn-failed.jsonl"), "")).toEqual({
      telemetry: { toolCalls: 0 },
      error:
        "stream disconnected before completion: error sending request for url (http://127.0.0.1:8787/v1/responses)",
      sessionId: "01a22850-4c1d-7e20-9b3a-6f0d2e8c1a45",
    });
  });

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

  it("counts the tool calls of a run killed mid-command; usage has not arrived", () => {
    const cut = cutBefore(
      fixture("codex-0.171.0.jsonl"),
      '{"type":"item.completed","item":{"id":"item_1"',
    );
    expect(parseCodexOutput(cut, "")).toEqual({
      telemetry: { toolCalls: 2 },
      error: "Codex printed no turn.completed event (output empty or cut short)",
      sessionId: "01a22844-8faa-7df3-8c5a-cd219806aae4",
    });
  });

  it("adds reasoning to nothing: output_tokens already holds it", () => {
    const line =
      '{"type":"turn.completed","usage":{"input_tokens":5000,"cached_input_tokens":1000,"cache_write_input_tokens":500,"output_tokens":800,"reasoning_output_tokens":600}}';
    expect(parseCodexOutput(line, "").telemetry).toEqual({
      inputTokens: 3500,
      outputTokens: 800,
      cacheReadTokens: 1000,
      cacheWriteTokens: 500,
      toolCalls: 0,
    });
  });
});

describe("Gemini CLI", () => {
  it("reads -o json: side calls in, cached out of input, main-role requests as turns", () => {
    // tokens summed over the one model: prompt 3607 - cached 600 + tool 0; candidates 153 +
    // thoughts 0. roles.main.totalRequests 3 (the router's 1 is a side call).
    expect(parseGeminiOutput(fixture("gemini-0.61.0.json"), "")).toEqual({
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
    });
  });

  it("reads -o stream-json", () => {
    expect(parseGeminiOutput(fixture("gemini-0.61.0.stream.jsonl"), "")).toEqual({
      telemetry: {
        inputTokens: 2000,
        outputTokens: 100,
        cacheReadTokens: 400,
        toolCalls: 1,
        model: "mock-gemini",
      },
      sessionId: "25fc2230-455d-4289-a300-86cc57c17add",
      finalText: "Done: wrote hello.txt.",
    });
  });

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
      sessionId: "25fc2230-455d-4289-a300-86cc57c17add",
    });
  });
});

describe("opencode", () => {
  it("sums step_finish events: tokens, steps as turns, and its own cost", () => {
    const outcome = parseOpencodeOutput(fixture("opencode-1.18.33.jsonl"), "");
    const { costUsd, ...telemetry } = outcome.telemetry;
    expect(telemetry).toEqual({
      inputTokens: 3000,
      outputTokens: 150,
      cacheReadTokens: 600,
      cacheWriteTokens: 0,
      turns: 3,
      toolCalls: 2,
    });
    expect(costUsd).toBeCloseTo(3 * 0.00381, 12);
    expect(outcome).toMatchObject({ sessionId: "ses_dd7b7a901ffezs6chRxi2MLkhZ", finalText: DONE });
    expect(outcome.error).toBeUndefined();
  });

  it("reports an error event", () => {
    expect(parseOpencodeOutput(fixture("opencode-api-error.jsonl"), "")).toEqual({
      telemetry: { turns: 0, toolCalls: 0 },
      error: "Unable to connect. Is the computer able to access the url?",
      sessionId: "ses_dd7b6c2e0ffeQk3vTn8wLp1RzA",
    });
  });

  it("keeps the finished steps of a run killed mid-step", () => {
    const events = fixture("opencode-1.18.33.jsonl");
    const secondFinish = events.indexOf('{"type":"step_finish"', events.indexOf('"tool":"bash"'));
    const cut = cutBefore(events.slice(secondFinish), '{"type":"step_start"');
    const partial = events.slice(0, secondFinish) + cut + '{"type":"step_start","timest';
    const outcome = parseOpencodeOutput(withGarbage(partial), "");
    expect(outcome.telemetry).toMatchObject({
      inputTokens: 2000,
      outputTokens: 100,
      cacheReadTokens: 400,
      cacheWriteTokens: 0,
      turns: 2,
      toolCalls: 2,
    });
    expect(outcome.telemetry.costUsd).toBeCloseTo(0.00762, 12);
    expect(outcome.error).toBe("opencode printed no final step (output empty or cut short)");
    expect(outcome.finalText).toBeUndefined();
  });

  it("counts reasoning tokens as output", () => {
    const step =
      '{"type":"step_finish","sessionID":"s","part":{"reason":"stop","tokens":{"input":10,"output":20,"reasoning":30,"cache":{"read":0,"write":4}},"cost":0}}';
    expect(parseOpencodeOutput(step, "").telemetry).toEqual({
      inputTokens: 10,
      outputTokens: 50,
      cacheReadTokens: 0,
      cacheWriteTokens: 4,
      turns: 1,
      toolCalls: 0,
      costUsd: 0,
    });
  });
});

describe("Qwen Code", () => {
  it.each([
    ["qwen-0.15.10.json", "6ae21c69-c2d7-4d3c-be7c-0d7fa42d3aaf"],
    ["qwen-0.24.4.json", "99ccd314-847a-431a-aa26-2c397dd0e337"],
  ])("reads %s, subtracting cached tokens from input", (name, sessionId) => {
    expect(parseQwenOutput(fixture(name), "")).toEqual({
      telemetry: {
        inputTokens: 3000,
        outputTokens: 150,
        cacheReadTokens: 600,
        turns: 3,
        toolCalls: 2,
        model: "mock-model",
      },
      sessionId,
      finalText: DONE,
    });
  });

  it("reports 0.15.10's [API Error result, which exits 0", () => {
    expect(parseQwenOutput(fixture("qwen-0.15.10-connection-error.json"), "")).toEqual({
      telemetry: { inputTokens: 0, outputTokens: 0, turns: 1, toolCalls: 0, model: "mock-model" },
      error: "[API Error: Connection error. (cause: fetch failed)]",
      sessionId: "3e7a9c14-6b2d-4f80-a5e1-9d0c7b3f2a68",
    });
  });

  it("reports requests that all failed, and not a retry that recovered", () => {
    const withErrors = (errors: number): string =>
      fixture("qwen-0.15.10.json").replaceAll('"totalErrors":0', `"totalErrors":${String(errors)}`);
    expect(parseQwenOutput(withErrors(1), "").error).toBeUndefined();
    expect(parseQwenOutput(withErrors(3), "").error).toBe(
      "Qwen Code's model requests all failed (3 of 3)",
    );
  });

  it("keeps the complete messages of an array cut short", () => {
    const cut = cutBefore(
      fixture("qwen-0.15.10.json"),
      '{"type":"assistant","uuid":"ae5cf507',
      '{"type":"assis',
    );
    // The write_file and run_shell_command responses: 1200 input each, 200 of them cached, 50 out.
    expect(parseQwenOutput(cut, "")).toEqual({
      telemetry: {
        inputTokens: 2000,
        outputTokens: 100,
        cacheReadTokens: 400,
        turns: 2,
        toolCalls: 2,
        model: "mock-model",
      },
      error: "Qwen Code printed no result (output empty or cut short)",
      sessionId: "6ae21c69-c2d7-4d3c-be7c-0d7fa42d3aaf",
    });
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
