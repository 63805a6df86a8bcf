/**
 * The Python agents' adapters (aider, mini-swe-agent): their parsers against real outputs
 * (test/fixtures/agents/python/README.md says how they were made), their invocations, and the
 * text dialects the scripted model server answers them in. The real CLIs applying those replies
 * are tested end to end in python-e2e.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  AIDER_EVENTS_MARKER,
  aider,
  litellmModel,
  parseAiderOutput,
} from "../../src/agents/adapters/aider.js";
import { miniSweAgent, parseMiniSweAgentOutput } from "../../src/agents/adapters/mini-swe-agent.js";
import type { InvocationInput } from "../../src/agents/types.js";
import type { ScriptStep } from "../helpers/model-server/index.js";
import {
  MINI_SUBMIT_COMMAND,
  TEXT_DIALECTS,
  aiderDialect,
  miniDialect,
} from "../helpers/model-server/text-dialects.js";
import { tempDir } from "../helpers/temp.js";

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/agents/python/${name}`, import.meta.url), "utf8");
}

const PER_ANSWER = { prompt: 1200, cached: 200, output: 50 };

describe("aider's output", () => {
  it("gives the exact tokens of its analytics events, one turn per answer", () => {
    expect(parseAiderOutput(fixture("aider-0.86.2.success.stdout.txt"), "")).toEqual({
      telemetry: {
        inputTokens: 2 * PER_ANSWER.prompt,
        outputTokens: 2 * PER_ANSWER.output,
        turns: 2,
        model: "openai/mock-model",
      },
    });
  });

  it("takes aider's own session cost for a model litellm has prices for", () => {
    expect(parseAiderOutput(fixture("aider-0.86.2.cost.stdout.txt"), "")).toEqual({
      telemetry: {
        inputTokens: 2400,
        outputTokens: 100,
        turns: 2,
        costUsd: 0.0065,
        model: "openai/gpt-4o",
      },
    });
  });

  it("falls back to the rounded 'Tokens:' lines when the events are missing", () => {
    const stdout = fixture("aider-0.86.2.cost.stdout.txt");
    const printed = stdout.slice(0, stdout.indexOf(AIDER_EVENTS_MARKER));
    expect(parseAiderOutput(printed, "")).toEqual({
      telemetry: {
        inputTokens: 2400,
        outputTokens: 100,
        turns: 2,
        costUsd: 0.0065,
        model: "openai/gpt-4o",
      },
    });
    expect(parseAiderOutput("Tokens: 12k sent, 950 received.\n", "").telemetry).toEqual({
      inputTokens: 12000,
      outputTokens: 950,
      turns: 1,
    });
  });

  it("reports a dead endpoint, though aider exits 0", () => {
    expect(parseAiderOutput(fixture("aider-0.86.2.dead-endpoint.stdout.txt"), "")).toEqual({
      telemetry: { model: "openai/mock-model" },
      error:
        "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error. The API provider's servers are down or overloaded.",
    });
  });

  it("reports a refused key with aider's hint", () => {
    const outcome = parseAiderOutput(fixture("aider-0.86.2.auth-error.stdout.txt"), "");
    expect(outcome.error).toBe(
      "litellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect API key provided: sk-dummy. The API provider is not able to authenticate you. Check your API key.",
    );
  });

  it("does not count an error that a retry got past", () => {
    const stdout = [
      "Model: openai/mock-model with diff edit format",
      "litellm.RateLimitError: RateLimitError: OpenAIException - slow down",
      "The API provider has rate limited you. Try again later or check your quotas.",
      "Retrying in 0.2 seconds...",
      "Tokens: 1.2k sent, 50 received.",
      "",
    ].join("\n");
    expect(parseAiderOutput(stdout, "")).toEqual({
      telemetry: { inputTokens: 1200, outputTokens: 50, turns: 1, model: "openai/mock-model" },
    });
  });

  it("reports an unexpected exit reason and an exception event", () => {
    const events = (...lines: object[]) =>
      `\n${AIDER_EVENTS_MARKER}\n${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
    expect(
      parseAiderOutput(events({ event: "exit", properties: { reason: "Exit flag set" } }), "")
        .error,
    ).toBe("aider exited early: Exit flag set");
    const exception = { event: "message_send_exception", properties: { exception: "boom" } };
    expect(parseAiderOutput(events(exception), "").error).toBe("boom");
    expect(parseAiderOutput("", "")).toEqual({ telemetry: {} });
  });
});

describe("mini-swe-agent's trajectory", () => {
  const toolRun = {
    inputTokens: 3 * (PER_ANSWER.prompt - PER_ANSWER.cached),
    outputTokens: 3 * PER_ANSWER.output,
    cacheReadTokens: 3 * PER_ANSWER.cached,
    turns: 3,
    toolCalls: 3,
    model: "openai/mock-model",
  };

  it("sums every answer's usage, cached tokens apart (tool calls)", () => {
    const trajectory = fixture("mini-swe-agent-2.4.6.toolcalls.trajectory.json");
    expect(parseMiniSweAgentOutput(trajectory, "")).toEqual({
      telemetry: toolRun,
      finalText: "Done.",
    });
  });

  it("reads a text-mode run the same way, the action block left out of the final text", () => {
    const trajectory = fixture("mini-swe-agent-2.4.6.textbased.trajectory.json");
    expect(parseMiniSweAgentOutput(trajectory, "")).toEqual({
      telemetry: toolRun,
      finalText: "Done.",
    });
  });

  it("takes instance_cost when litellm priced the model", () => {
    const trajectory = fixture("mini-swe-agent-2.4.6.cost.trajectory.json");
    expect(parseMiniSweAgentOutput(trajectory, "").telemetry).toEqual({
      ...toolRun,
      costUsd: 0.00975,
      model: "openai/gpt-4o",
    });
  });

  it("reports the API error an exception ended the run with", () => {
    const dead = fixture("mini-swe-agent-2.4.6.dead-endpoint.trajectory.json");
    expect(parseMiniSweAgentOutput(dead, "")).toEqual({
      telemetry: { turns: 1, toolCalls: 0, model: "openai/mock-model" },
      error:
        "mini-swe-agent stopped with InternalServerError: litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.",
    });
    const refused = fixture("mini-swe-agent-2.4.6.auth-error.trajectory.json");
    expect(parseMiniSweAgentOutput(refused, "").error).toMatch(
      /^mini-swe-agent stopped with AuthenticationError: litellm\.AuthenticationError: .*Incorrect API key provided/,
    );
  });

  it("reports limits and repeated format errors", () => {
    const trajectory = JSON.parse(fixture("mini-swe-agent-2.4.6.toolcalls.trajectory.json")) as {
      info: { exit_status: string };
    };
    trajectory.info.exit_status = "LimitsExceeded";
    expect(parseMiniSweAgentOutput(JSON.stringify(trajectory), "").error).toBe(
      "mini-swe-agent reached its step or cost limit",
    );
    trajectory.info.exit_status = "RepeatedFormatError";
    expect(parseMiniSweAgentOutput(JSON.stringify(trajectory), "")).toMatchObject({
      error: "mini-swe-agent stopped: the model's replies held no valid action, 3 times",
    });
  });

  it("subtracts cache reads and cache writes from litellm's prompt_tokens (Anthropic)", () => {
    const usage = {
      prompt_tokens: 1230,
      completion_tokens: 50,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 200,
      prompt_tokens_details: { cached_tokens: 200 },
    };
    const trajectory = {
      info: { model_stats: { instance_cost: 0.01, api_calls: 1 }, exit_status: "Submitted" },
      messages: [{ role: "assistant", content: "ok", extra: { actions: [], response: { usage } } }],
    };
    expect(parseMiniSweAgentOutput(JSON.stringify(trajectory), "").telemetry).toEqual({
      inputTokens: 1000,
      outputTokens: 50,
      cacheReadTokens: 200,
      cacheWriteTokens: 30,
      turns: 1,
      toolCalls: 0,
      costUsd: 0.01,
    });
  });

  it("quotes the exception of a crash before any trajectory", () => {
    const outcome = parseMiniSweAgentOutput(
      fixture("mini-swe-agent-2.4.6.no-model.stdout.txt"),
      fixture("mini-swe-agent-2.4.6.no-model.stderr.txt"),
    );
    expect(outcome).toEqual({
      telemetry: {},
      error:
        "mini-swe-agent wrote no trajectory: ValueError: No default model set. Please run `mini-extra config setup` to set one.",
    });
  });
});

function invocationInput(settings: InvocationInput["settings"]): InvocationInput {
  return {
    executable: "/tools/x/1.0/venv/bin/x",
    installDir: "/tools/x/1.0",
    prompt: "Fix the bug.",
    promptFile: "/trial/prompt.txt",
    workTree: "/trial/work",
    home: "/trial/home",
    artifactsDir: "/trial/artifacts",
    timeoutMs: 60_000,
    settings,
    credentials: { OPENAI_API_KEY: "sk-test" },
  };
}

describe("invocations", () => {
  it("speaks to a base URL as OpenAI-compatible unless the model names a provider", () => {
    expect(litellmModel("mock-model", "http://127.0.0.1:1/v1")).toBe("openai/mock-model");
    expect(litellmModel("anthropic/claude-sonnet-4-5", "http://x/v1")).toBe(
      "anthropic/claude-sonnet-4-5",
    );
    expect(litellmModel("gpt-4o", undefined)).toBe("gpt-4o");
    expect(litellmModel(undefined, "http://x/v1")).toBeUndefined();
  });

  it("runs aider through a bootstrap, headless, with its files in HOME", () => {
    const run = aider.invocation(
      invocationInput({ model: "mock-model", baseUrl: "http://127.0.0.1:9/v1" }),
    );
    expect(run.argv.slice(0, 2)).toEqual(["/tools/x/1.0/venv/bin/python", "-c"]);
    const flags = run.argv.slice(3);
    expect(flags).toEqual(expect.arrayContaining(["--yes-always", "--no-auto-commits"]));
    expect(flags.slice(0, 4)).toEqual([
      "--model",
      "openai/mock-model",
      "--message-file",
      "/trial/prompt.txt",
    ]);
    expect(flags.filter((arg) => arg.startsWith("/")).every((p) => p.startsWith("/trial/"))).toBe(
      true,
    );
    expect(run.env).toMatchObject({
      OPENAI_API_KEY: "sk-test",
      OPENAI_API_BASE: "http://127.0.0.1:9/v1",
      LITELLM_LOCAL_MODEL_COST_MAP: "True",
    });
    expect(run.files.map((file) => file.path)).toEqual([
      "/trial/home/.aider/caches/model_prices_and_context_window.json",
    ]);
    // The bootstrap is Python that compiles.
    const code = run.argv[2]!;
    expect(code).toContain('"/trial/home/.aider/tags.cache"');
    execFileSync("python3", ["-c", "import sys; compile(sys.argv[1], 'bootstrap', 'exec')", code]);
  });

  it("runs mini-swe-agent in yolo mode with its trajectory as the output file", async () => {
    const run = miniSweAgent.invocation(invocationInput({ model: "gpt-4o", maxCostUsd: 2.5 }));
    expect(run.argv).toEqual([
      "/tools/x/1.0/venv/bin/x",
      "--yolo",
      "--exit-immediately",
      "--task",
      "Fix the bug.",
      "--output",
      "/trial/artifacts/mini-trajectory.json",
      "--model",
      "gpt-4o",
      "--cost-limit",
      "2.5",
    ]);
    expect(run.outputFile).toBe("/trial/artifacts/mini-trajectory.json");
    expect(run.env).toMatchObject({
      MSWEA_CONFIGURED: "true",
      MSWEA_COST_TRACKING: "ignore_errors",
      MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT: "2",
    });
    expect(run.env.OPENAI_API_BASE).toBeUndefined();
    expect(await aider.transcripts("/trial/home", { telemetry: {} })).toEqual([
      ".aider/chat.history.md",
      ".aider/llm.history",
    ]);
  });
});

describe("text dialects", () => {
  const edit: ScriptStep = {
    kind: "edit",
    path: "src/app.py",
    oldString: '    return "hello"\n',
    newString: '    return "hello, world"\n',
  };

  it("serves aider and mini", () => {
    expect(Object.keys(TEXT_DIALECTS).sort()).toEqual(["aider", "mini"]);
  });

  it("renders aider edits as SEARCH/REPLACE blocks on ./paths, new files with an empty SEARCH", () => {
    expect(aiderDialect(edit, { done: false })).toBe(
      [
        "Here is the change.",
        "",
        "./src/app.py",
        "```",
        "<<<<<<< SEARCH",
        '    return "hello"',
        "=======",
        '    return "hello, world"',
        ">>>>>>> REPLACE",
        "```",
        "",
      ].join("\n"),
    );
    const write: ScriptStep = { kind: "write", path: "NOTES.md", content: "a\n\nb\n" };
    expect(aiderDialect(write, { done: false })).toBe(
      "Here is the new file.\n\n./NOTES.md\n```\n<<<<<<< SEARCH\n=======\na\n\nb\n>>>>>>> REPLACE\n```\n",
    );
  });

  it("asks aider for a file by its bare path, which aider takes for a mention", () => {
    const reply = aiderDialect({ kind: "read", path: "./src/app.py" }, { done: false });
    expect(reply.split(/\s+/)).toContain("src/app.py");
    expect(aiderDialect({ kind: "shell", command: "ls" }, { done: false })).toBe(
      "Run this command:\n\n```bash\nls\n```\n",
    );
    expect(aiderDialect({ kind: "finish", text: "All done." }, { done: true })).toBe("All done.");
  });

  /** The one action mini-swe-agent 2.x's text mode finds in a reply (its own regex). */
  function miniAction(reply: string): string {
    const actions = [...reply.matchAll(/```mswea_bash_command\s*\n([\s\S]*?)\n```/g)];
    expect(actions).toHaveLength(1);
    return actions[0]![1]!.trim();
  }

  /** Runs a command the way mini's local environment does: bash, in the work tree. */
  function runIn(dir: string, command: string): string {
    return execFileSync("bash", ["-c", command], { cwd: dir, encoding: "utf8" });
  }

  it("renders every mini step as one action that does what the step says", () => {
    const dir = tempDir("lab-mini-dialect-");
    mkdirSync(path.join(dir, "src"));
    writeFileSync(path.join(dir, "src", "app.py"), 'def greet():\n    return "hello"\n');
    runIn(dir, miniAction(miniDialect(edit, { done: false })));
    expect(readFileSync(path.join(dir, "src", "app.py"), "utf8")).toBe(
      'def greet():\n    return "hello, world"\n',
    );
    const fenced = "# Notes\n\n```\ncode\n```\n";
    const write: ScriptStep = { kind: "write", path: "docs/NOTES.md", content: fenced };
    runIn(dir, miniAction(miniDialect(write, { done: false })));
    expect(readFileSync(path.join(dir, "docs", "NOTES.md"), "utf8")).toBe(fenced);
    const read = miniAction(miniDialect({ kind: "read", path: "docs/NOTES.md" }, { done: false }));
    expect(runIn(dir, read)).toBe(fenced);
    const shell = miniAction(miniDialect({ kind: "shell", command: "echo hi" }, { done: false }));
    expect(runIn(dir, shell)).toBe("hi\n");
  });

  it("ends mini's run with the submit command, past the script's end too", () => {
    const finish = miniDialect({ kind: "finish", text: "Fixed." }, { done: false });
    expect(finish).toMatch(/^THOUGHT: Fixed\./);
    expect(miniAction(finish)).toBe(MINI_SUBMIT_COMMAND);
    const past = miniDialect({ kind: "finish", text: "Done." }, { done: true });
    expect(miniAction(past)).toBe(MINI_SUBMIT_COMMAND);
  });
});
