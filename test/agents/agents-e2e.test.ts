/**
 * Every npm agent CLI, installed for real by `lab tools install`, runs on two starter tasks inside
 * bubblewrap against the scripted model server on 127.0.0.1. The script of one task reads the
 * file and edits in the gold change (so the task resolves); the other writes an unrelated file
 * and runs a shell command (so it does not). The records must hold the tokens the server served.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MAIN_USAGE,
  SIDE_USAGE,
  startModelServer,
  type ModelServer,
  type Script,
} from "../helpers/model-server/index.js";
import {
  CAT_NOTE,
  computedCostUsd,
  EDIT,
  FAILING,
  LIST,
  makeAgentLab,
  PRICE,
  READ,
  RESOLVING,
  WRITE_NOTE,
  type AgentRun,
} from "./helpers.js";

/** Scripts keyed on each task's issue title. */
const scripts: Script[] = [
  {
    match: RESOLVING.match,
    steps: [
      LIST,
      READ,
      EDIT,
      { kind: "finish", text: "Fixed: the cut slug no longer ends with the separator." },
    ],
  },
  { match: FAILING.match, steps: [WRITE_NOTE, CAT_NOTE, { kind: "finish", text: "Left a note." }] },
];

interface AgentCase {
  readonly name: string;
  /** Appended to the server's URL to make the tool's base URL. */
  readonly basePath: string;
  readonly model: string;
  readonly env: Record<string, string>;
  /** Whether the CLI reports its own cost (otherwise lab computes it from the config's prices). */
  readonly reportsCost: boolean;
  /** Whether lab finds the CLI's transcript in its HOME. */
  readonly transcript: boolean;
}

const AGENTS: readonly AgentCase[] = [
  {
    name: "claude-code",
    basePath: "",
    model: "claude-sonnet-4-5",
    env: { ANTHROPIC_API_KEY: "sk-ant-dummy" },
    reportsCost: true,
    transcript: true,
  },
  {
    name: "codex",
    basePath: "/v1",
    model: "gpt-5.5",
    env: { OPENAI_API_KEY: "sk-dummy" },
    reportsCost: false,
    transcript: true,
  },
  {
    name: "gemini",
    basePath: "",
    model: "gemini-2.5-pro",
    env: { GEMINI_API_KEY: "dummy" },
    reportsCost: false,
    transcript: true,
  },
  {
    name: "opencode",
    basePath: "/v1",
    model: "mock-model",
    env: { OPENAI_API_KEY: "sk-dummy" },
    reportsCost: false,
    transcript: false,
  },
  {
    name: "qwen-code",
    basePath: "/v1",
    model: "mock-model",
    env: { OPENAI_API_KEY: "sk-dummy" },
    reportsCost: false,
    transcript: true,
  },
];

const lab = makeAgentLab({
  prefix: "lab-agents-",
  tools: AGENTS.map((agent) => agent.name),
  config: { prices: Object.fromEntries(AGENTS.map((agent) => [agent.model, PRICE])) },
});

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer({ scripts });
});

afterAll(async () => {
  await server.close();
});

describe.each(AGENTS)("$name against the scripted model server, in bubblewrap", (agent) => {
  const runId = `starter-${agent.name}`;
  let run: AgentRun;

  beforeAll(async () => {
    run = await lab.run({
      tool: agent.name,
      runId,
      tasks: [RESOLVING.id, FAILING.id],
      sandbox: "bwrap",
      model: agent.model,
      server,
      basePath: agent.basePath,
      timeout: "3m",
      env: agent.env,
    });
    expect(run.code).toBe(0);
  }, 600_000);

  const mainCalls = (match: string) =>
    run.requests.filter(
      (request) => request.route === "model" && !request.isSideCall && request.script === match,
    );

  it("edits in the gold change as scripted: resolved, with the served tokens and a cost", () => {
    const trial = lab.readTrial(runId, RESOLVING.id);
    expect(run.stderr).toContain("sandbox bwrap");
    expect(trial.outcome).toEqual({ kind: "graded" });
    expect(trial.resolved).toBe(true);
    const main = mainCalls(RESOLVING.match);
    // One request per step: shell, read, edit, then the final text.
    expect(main.map((request) => request.step)).toEqual([0, 1, 2, 3]);
    const t = trial.telemetry;
    expect(t.model).toContain(agent.model);
    expect(t.outputTokens).toBeGreaterThanOrEqual(main.length * MAIN_USAGE.outputTokens);
    expect(t.cacheReadTokens).toBeGreaterThanOrEqual(main.length * MAIN_USAGE.cacheReadInputTokens);
    const side = run.requests.filter((request) => request.isSideCall).length;
    expect([
      main.length * MAIN_USAGE.uncachedInputTokens,
      main.length * MAIN_USAGE.uncachedInputTokens + side * SIDE_USAGE.uncachedInputTokens,
    ]).toContain(t.inputTokens);
    expect(t.costUsd).toBeGreaterThan(0);
    expect(t.costSource).toBe(agent.reportsCost ? "reported" : "computed");
    if (!agent.reportsCost) {
      expect(t.costUsd).toBeCloseTo(computedCostUsd(t), 9);
    }
    const artifacts = path.join(lab.trialDir(runId, RESOLVING.id), "artifacts");
    expect(existsSync(path.join(artifacts, "agent-stdout.txt"))).toBe(true);
    if (agent.transcript) {
      expect(readdirSync(path.join(artifacts, "transcripts")).length).toBeGreaterThan(1);
    }
  });

  it("writes an unrelated file and runs a shell command as scripted: graded, not resolved", () => {
    const trial = lab.readTrial(runId, FAILING.id);
    expect(trial.outcome).toEqual({ kind: "graded" });
    expect(trial.resolved).toBe(false);
    const patch = lab.readPatch(runId, FAILING.id);
    expect(patch).toContain("+++ b/NOTES.md");
    expect(patch).toContain("+Looked at the parser; no change made.");
    const main = mainCalls(FAILING.match);
    expect(main.map((request) => request.step)).toEqual([0, 1, 2]);
    // The shell command's output came back to the model as the next step's tool result.
    expect(JSON.stringify(main[2]?.body)).toContain("Looked at the parser");
  });
});

describe("the report over the agents' runs", () => {
  it("has one row per agent with its resolve rate, cost and tokens", async () => {
    const result = await lab.report(["--json"]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    for (const agent of AGENTS) {
      const row = rows.find((candidate) => candidate.tool === agent.name);
      expect(row, agent.name).toMatchObject({ tasks: 2, resolved: 1, resolve_rate: 0.5 });
      expect(row?.cost_total, agent.name).toBeGreaterThan(0);
      expect(row?.input_tokens_mean, agent.name).toBeGreaterThan(0);
      expect(row?.output_tokens_mean, agent.name).toBeGreaterThan(0);
    }
  });
});
