/**
 * Agent CLIs when things go wrong: not installed, credentials missing, a dead model endpoint, a
 * CLI killed at the time limit (its partial change and telemetry are still kept), bad flags.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAIN_USAGE, startModelServer, type ModelServer } from "../helpers/model-server/index.js";
import { tempDir } from "../helpers/temp.js";
import { EDIT, LIST, makeAgentLab, READ, RESOLVING } from "./helpers.js";

const lab = makeAgentLab({
  prefix: "lab-agent-failures-",
  tools: ["claude-code", "opencode", "qwen-code"],
});
const TASK = RESOLVING.id;

/** Credentials of every agent blanked, so a test sets exactly the ones it means. */
const NO_CREDENTIALS = Object.fromEntries(
  [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
  ].map((name) => [name, ""]),
);

/** `lab run TOOL` on TASK with only the credentials in `env`. */
function run(tool: string, runId: string, args: string[], env: Record<string, string>) {
  return lab.run({ tool, runId, tasks: [TASK], args, env: { ...NO_CREDENTIALS, ...env } });
}

describe("before any trial starts", () => {
  it("names the missing credential and how to set it", async () => {
    const result = await run("claude-code", "no-key", [], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "claude-code needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN",
    );
    expect(result.stderr).toContain("Export ANTHROPIC_API_KEY");
    expect(existsSync(path.join(lab.runsDir, "no-key", "trials"))).toBe(false);
  });

  it("says how to install a tool that is not installed", async () => {
    const empty = tempDir("lab-no-tools-");
    const result = await run("codex", "not-installed", [], {
      LAB_TOOLS_DIR: empty,
      OPENAI_API_KEY: "sk-dummy",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`codex is not installed in ${empty}`);
    expect(result.stderr).toContain("lab tools install codex");
  });

  it("rejects agent flags on other tools and malformed values", async () => {
    const onGold = await run("gold", "flags-gold", ["--model", "x"], {});
    expect(onGold.code).toBe(2);
    expect(onGold.stderr).toContain('--model only go with agent CLIs, not "gold"');
    const badUrl = await run("claude-code", "flags-url", ["--base-url", "localhost:80"], {});
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain(
      '--base-url expects a URL such as http://127.0.0.1:8080/v1; got "localhost:80"',
    );
    const badCost = await run("claude-code", "flags-cost", ["--max-cost", "0"], {});
    expect(badCost.code).toBe(2);
    expect(badCost.stderr).toContain("--max-cost expects a positive amount");
  });
});

describe("lab tools", () => {
  it("lists agents with their installed version and credential state", async () => {
    const result = await lab.tools(["list", "--json"], {
      ...NO_CREDENTIALS,
      ANTHROPIC_API_KEY: "sk",
    });
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(["gold", "noop", "claude-code", "codex", "opencode"]),
    );
    const claude = rows.find((row) => row.name === "claude-code");
    expect(claude).toMatchObject({ kind: "agent", installed: "2.1.332", credentials: "set" });
    expect(existsSync(String(claude?.executable))).toBe(true);
    const gemini = rows.find((row) => row.name === "gemini");
    expect(gemini?.credentials).toBe("missing GEMINI_API_KEY or GOOGLE_API_KEY");
  });

  it("refuses unknown tools and reports a version that does not exist", async () => {
    const unknown = await lab.tools(["install", "cursor"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('lab has no adapter for "cursor"');
    const sandbox = await lab.tools(["install", "claude-code", "--sandbox", "dockr"]);
    expect(sandbox.code).toBe(2);
    expect(sandbox.stderr).toContain('Unknown sandbox "dockr"');
    expect(sandbox.stderr).toContain("bwrap, docker, none");
    const scratch = tempDir("lab-tools-bad-");
    const missing = await lab.tools(["install", "qwen-code", "--version", "0.0.0-none"], {
      LAB_TOOLS_DIR: scratch,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Installing @qwen-code/qwen-code@0.0.0-none with npm failed");
    const list = await lab.tools(["list", "--json"], { LAB_TOOLS_DIR: scratch });
    expect(list.stdout).toContain('"name":"qwen-code","kind":"agent"');
    expect(list.stdout).toContain('"installed":null');
  }, 120_000);
});

describe("a dead or stuck model endpoint", () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({
      scripts: [
        { match: RESOLVING.match, steps: [LIST, READ, EDIT, { kind: "finish", text: "Fixed." }] },
      ],
      failWith: (request) =>
        request.path.startsWith("/dead/")
          ? { kind: "status", status: 500, message: "scripted outage" }
          : request.path.startsWith("/denied/")
            ? { kind: "status", status: 401, message: "scripted bad key" }
            : request.path.startsWith("/hang/") && request.step === 3
              ? { kind: "hang" }
              : undefined,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("fails a Claude Code trial within seconds, with the CLI's own error", async () => {
    const result = await run(
      "claude-code",
      "dead-claude",
      ["--base-url", `${server.url}/dead`, "--model", "claude-sonnet-4-5"],
      { ANTHROPIC_API_KEY: "sk-ant-dummy" },
    );
    expect(result.code).toBe(0);
    const record = lab.readTrial("dead-claude", TASK);
    expect(record.outcome.kind).toBe("tool_crashed");
    expect(record.outcome.kind === "tool_crashed" && record.outcome.message).toMatch(/\S/);
    expect(record.resolved).toBe(false);
    expect(record.phaseMs.tool).toBeLessThan(60_000);
  }, 120_000);

  it("ends a Qwen Code trial on a rejected key within seconds, with the CLI's own error", async () => {
    await run(
      "qwen-code",
      "dead-qwen",
      ["--base-url", `${server.url}/denied/v1`, "--model", "mock-model"],
      { OPENAI_API_KEY: "sk-dummy" },
    );
    const record = lab.readTrial("dead-qwen", TASK);
    expect(record.outcome.kind).toBe("tool_crashed");
    expect(record.outcome.kind === "tool_crashed" && record.outcome.message).toContain(
      "scripted bad key",
    );
    expect(record.phaseMs.tool).toBeLessThan(60_000);
  }, 180_000);

  it("still grades the partial change and keeps the partial telemetry of a CLI killed at its limit", async () => {
    await run(
      "opencode",
      "hang-opencode",
      ["--base-url", `${server.url}/hang/v1`, "--model", "mock-model", "--timeout", "75s"],
      { OPENAI_API_KEY: "sk-dummy" },
    );
    const record = lab.readTrial("hang-opencode", TASK);
    expect(record.outcome).toEqual({ kind: "tool_timeout" });
    // The edit (step 2) landed before the model hung on step 3: the change resolves the task.
    expect(record.resolved).toBe(true);
    // The three answered steps, as opencode reported them before it was killed.
    expect(record.telemetry.inputTokens).toBe(3 * MAIN_USAGE.uncachedInputTokens);
    expect(record.telemetry.outputTokens).toBe(3 * MAIN_USAGE.outputTokens);
  }, 180_000);
});
