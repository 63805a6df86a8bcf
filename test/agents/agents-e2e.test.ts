/**
 * Every npm agent CLI, installed for real by `lab tools install`, runs on two starter tasks inside
 * bubblewrap against the scripted model server on 127.0.0.1. The script of one task reads the
 * file and edits in the gold change (so the task resolves); the other writes an unrelated file
 * and runs a shell command (so it does not). The records must hold the tokens the server served.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrialResult } from "../../src/core/index.js";
import { runLab } from "../helpers/lab.js";
import {
  MAIN_USAGE,
  SIDE_USAGE,
  startModelServer,
  type ModelServer,
  type Script,
} from "../helpers/model-server/index.js";
import { repoRoot, sharedToolsDir, tempDir } from "../helpers/temp.js";

const root = tempDir("lab-agents-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");

const RESOLVING = "textkit-slugify-max-length";
const FAILING = "ledger-parsed-dates-as-of";

/** Scripts keyed on each task's issue title. */
const scripts: Script[] = [
  {
    match: "slugify(max_length=...) can leave a dangling separator",
    steps: [
      { kind: "shell", command: "ls src/textkit" },
      { kind: "read", path: "src/textkit/slug.py" },
      {
        kind: "edit",
        path: "src/textkit/slug.py",
        oldString: "        slug = slug[:max_length]\n",
        newString: "        slug = slug[:max_length].rstrip(sep)\n",
      },
      { kind: "finish", text: "Fixed: the cut slug no longer ends with the separator." },
    ],
  },
  {
    match: "balance_report(as_of=...) crashes",
    steps: [
      { kind: "write", path: "NOTES.md", content: "Looked at the parser; no change made.\n" },
      { kind: "shell", command: "cat NOTES.md" },
      { kind: "finish", text: "Left a note." },
    ],
  },
];

/** Prices (USD per million tokens) the config gives the mock models, for computed costs. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

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

let server: ModelServer;

beforeAll(async () => {
  cpSync(path.join(repoRoot, "evals", "starter"), path.join(evalsDir, "starter"), {
    recursive: true,
  });
  const prices = Object.fromEntries(AGENTS.map((agent) => [agent.model, PRICE]));
  writeFileSync(path.join(root, "lab.config.json"), JSON.stringify({ prices }, null, 2));
  server = await startModelServer({ scripts });
  // Installing is idempotent: the pinned versions stay in the shared tools folder.
  const install = await runLab(["tools", "install", ...AGENTS.map((agent) => agent.name)], {
    cwd: root,
    env: { LAB_TOOLS_DIR: sharedToolsDir },
  });
  expect(install.stderr).not.toMatch(/failed/i);
  expect(install.code).toBe(0);
}, 900_000);

afterAll(async () => {
  await server.close();
});

function readTrial(runId: string, taskId: string): TrialResult {
  return JSON.parse(
    readFileSync(path.join(runsDir, runId, "trials", taskId, "1", "result.json"), "utf8"),
  ) as TrialResult;
}

describe.each(AGENTS)("$name against the scripted model server, in bubblewrap", (agent) => {
  const runId = `starter-${agent.name}`;
  let stderr = "";
  let requests: ModelServer["requests"] = [];

  beforeAll(async () => {
    const before = server.requests.length;
    const result = await runLab(
      [
        "run",
        agent.name,
        "--suite",
        "starter",
        "--tasks",
        `${RESOLVING},${FAILING}`,
        "--run-id",
        runId,
        "--sandbox",
        "bwrap",
        "--model",
        agent.model,
        "--base-url",
        `${server.url}${agent.basePath}`,
        "--timeout",
        "3m",
        "--evals-dir",
        evalsDir,
        "--runs-dir",
        runsDir,
        "--display",
        "plain",
      ],
      { cwd: root, env: { LAB_TOOLS_DIR: sharedToolsDir, ...agent.env } },
    );
    expect(result.code).toBe(0);
    stderr = result.stderr;
    requests = server.requests.slice(before);
  }, 600_000);

  const mainCalls = (match: string) =>
    requests.filter(
      (request) => request.route === "model" && !request.isSideCall && request.script === match,
    );

  it("edits in the gold change as scripted: resolved, with the served tokens and a cost", () => {
    const trial = readTrial(runId, RESOLVING);
    expect(stderr).toContain("sandbox bwrap");
    expect(trial.outcome).toEqual({ kind: "graded" });
    expect(trial.resolved).toBe(true);
    const main = mainCalls(scripts[0]?.match ?? "");
    // One request per step: shell, read, edit, then the final text.
    expect(main.map((request) => request.step)).toEqual([0, 1, 2, 3]);
    const t = trial.telemetry;
    expect(t.model).toContain(agent.model);
    expect(t.outputTokens).toBeGreaterThanOrEqual(main.length * MAIN_USAGE.outputTokens);
    expect(t.cacheReadTokens).toBeGreaterThanOrEqual(main.length * MAIN_USAGE.cacheReadInputTokens);
    const side = requests.filter((request) => request.isSideCall).length;
    expect([
      main.length * MAIN_USAGE.uncachedInputTokens,
      main.length * MAIN_USAGE.uncachedInputTokens + side * SIDE_USAGE.uncachedInputTokens,
    ]).toContain(t.inputTokens);
    expect(t.costUsd).toBeGreaterThan(0);
    expect(t.costSource).toBe(agent.reportsCost ? "reported" : "computed");
    if (!agent.reportsCost) {
      const expected =
        ((t.inputTokens ?? 0) * PRICE.input +
          (t.outputTokens ?? 0) * PRICE.output +
          (t.cacheReadTokens ?? 0) * PRICE.cacheRead +
          (t.cacheWriteTokens ?? 0) * PRICE.cacheWrite) /
        1e6;
      expect(t.costUsd).toBeCloseTo(expected, 9);
    }
    const artifacts = path.join(runsDir, runId, "trials", RESOLVING, "1", "artifacts");
    expect(existsSync(path.join(artifacts, "agent-stdout.txt"))).toBe(true);
    if (agent.transcript) {
      expect(readdirSync(path.join(artifacts, "transcripts")).length).toBeGreaterThan(1);
    }
  });

  it("writes an unrelated file and runs a shell command as scripted: graded, not resolved", () => {
    const trial = readTrial(runId, FAILING);
    expect(trial.outcome).toEqual({ kind: "graded" });
    expect(trial.resolved).toBe(false);
    const patch = readFileSync(
      path.join(runsDir, runId, "trials", FAILING, "1", "patch.diff"),
      "utf8",
    );
    expect(patch).toContain("+++ b/NOTES.md");
    expect(patch).toContain("+Looked at the parser; no change made.");
    const main = mainCalls(scripts[1]?.match ?? "");
    expect(main.map((request) => request.step)).toEqual([0, 1, 2]);
    // The shell command's output came back to the model as the next step's tool result.
    expect(JSON.stringify(main[2]?.body)).toContain("Looked at the parser");
  });
});

describe("the report over the agents' runs", () => {
  it("has one row per agent with its resolve rate, cost and tokens", async () => {
    const result = await runLab(
      ["report", "--suite", "starter", "--json", "--evals-dir", evalsDir, "--runs-dir", runsDir],
      { cwd: root },
    );
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
