/**
 * The Python agent CLIs, installed for real by `lab tools install` (PyPI into uv venvs), run on
 * two starter tasks inside bubblewrap against the scripted model server on 127.0.0.1: aider
 * answered in its SEARCH/REPLACE dialect, mini-swe-agent with `bash` tool calls (its default)
 * and in its text mode. One task's script edits in the gold change (resolved); the other writes
 * an unrelated file (not resolved). See docs/design/agents-python.md for why the scripts differ.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrialResult } from "../../src/core/index.js";
import { runLab } from "../helpers/lab.js";
import {
  MAIN_USAGE,
  startModelServer,
  type ModelServer,
  type Script,
  type ScriptStep,
} from "../helpers/model-server/index.js";
import { repoRoot, sharedToolsDir, tempDir } from "../helpers/temp.js";

const root = tempDir("lab-python-agents-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");

const RESOLVING = "textkit-slugify-max-length";
const FAILING = "ledger-parsed-dates-as-of";
const RESOLVING_MATCH = "slugify(max_length=...) can leave a dangling separator";
const FAILING_MATCH = "balance_report(as_of=...) crashes";

const READ: ScriptStep = { kind: "read", path: "src/textkit/slug.py" };
const EDIT: ScriptStep = {
  kind: "edit",
  path: "src/textkit/slug.py",
  oldString: "        slug = slug[:max_length]\n",
  newString: "        slug = slug[:max_length].rstrip(sep)\n",
};
const NOTE = "Looked at the parser; no change made.\n";
const WRITE: ScriptStep = { kind: "write", path: "NOTES.md", content: NOTE };
/** mini-swe-agent's way to finish when it speaks through tool calls. */
const SUBMIT: ScriptStep = { kind: "shell", command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" };

/** Prices (USD per million tokens) the config gives the mock model, for computed costs. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const MODEL = "mock-model";

interface AgentCase {
  /** The case's title. */
  readonly title: string;
  /** The adapter's name. */
  readonly name: string;
  /** Appended to the server's URL to make the tool's base URL. */
  readonly basePath: string;
  /** lab.config.json `agents.<name>.args`. */
  readonly args: readonly string[];
  /** The scripts of the resolving and the failing task. */
  readonly resolving: readonly ScriptStep[];
  readonly failing: readonly ScriptStep[];
  /** The model requests each task takes (aider asks again only after a read). */
  readonly requests: { readonly resolving: number; readonly failing: number };
  /** Whether the CLI's usage splits cached tokens out (aider's counts include them). */
  readonly splitsCache: boolean;
}

const AGENTS: readonly AgentCase[] = [
  {
    title: "aider (SEARCH/REPLACE blocks)",
    name: "aider",
    basePath: "/text/aider/v1",
    args: ["--edit-format", "diff"],
    // aider asks for the file (and gets it), then answers with the edit and stops: one message.
    resolving: [READ, EDIT, { kind: "finish", text: "Fixed." }],
    failing: [WRITE, { kind: "shell", command: "cat NOTES.md" }],
    requests: { resolving: 2, failing: 1 },
    splitsCache: false,
  },
  {
    title: "mini-swe-agent (bash tool calls)",
    name: "mini-swe-agent",
    basePath: "/v1",
    args: [],
    resolving: [{ kind: "shell", command: "ls src/textkit" }, READ, EDIT, SUBMIT],
    failing: [WRITE, { kind: "shell", command: "cat NOTES.md" }, SUBMIT],
    requests: { resolving: 4, failing: 3 },
    splitsCache: true,
  },
  {
    title: "mini-swe-agent (text mode)",
    name: "mini-swe-agent",
    basePath: "/text/mini/v1",
    args: ["--model-class", "litellm_textbased", "-c", "mini_textbased.yaml"],
    resolving: [READ, EDIT, { kind: "finish", text: "Fixed." }],
    failing: [WRITE, { kind: "shell", command: "cat NOTES.md" }, { kind: "finish", text: "Note." }],
    requests: { resolving: 3, failing: 3 },
    splitsCache: true,
  },
];

beforeAll(async () => {
  cpSync(path.join(repoRoot, "evals", "starter"), path.join(evalsDir, "starter"), {
    recursive: true,
  });
  // Installing is idempotent: the pinned versions stay in the shared tools folder.
  const install = await runLab(["tools", "install", "aider", "mini-swe-agent"], {
    cwd: root,
    env: { LAB_TOOLS_DIR: sharedToolsDir },
  });
  expect(install.stderr).not.toMatch(/failed/i);
  expect(install.code).toBe(0);
}, 900_000);

function readTrial(runId: string, taskId: string): TrialResult {
  return JSON.parse(
    readFileSync(path.join(runsDir, runId, "trials", taskId, "1", "result.json"), "utf8"),
  ) as TrialResult;
}

describe.each(AGENTS.map((agent, i) => ({ ...agent, i })))(
  "$title against the scripted model server, in bubblewrap",
  (agent) => {
    let server: ModelServer;
    const configDir = path.join(root, `case-${String(agent.i)}`);

    beforeAll(async () => {
      const scripts: Script[] = [
        { match: RESOLVING_MATCH, steps: agent.resolving },
        { match: FAILING_MATCH, steps: agent.failing },
      ];
      server = await startModelServer({ scripts });
      mkdirSync(configDir, { recursive: true });
      const config = {
        prices: { [MODEL]: PRICE },
        agents: { [agent.name]: { args: agent.args } },
      };
      writeFileSync(path.join(configDir, "lab.config.json"), JSON.stringify(config, null, 2));
    });

    afterAll(async () => {
      await server.close();
    });

    async function runTask(taskId: string) {
      const before = server.requests.length;
      const runId = `${agent.name}-${String(agent.i)}-${taskId}`;
      const result = await runLab(
        [
          "run",
          agent.name,
          "--suite",
          "starter",
          "--tasks",
          taskId,
          "--run-id",
          runId,
          "--sandbox",
          "bwrap",
          "--model",
          MODEL,
          "--base-url",
          `${server.url}${agent.basePath}`,
          "--timeout",
          "4m",
          "--evals-dir",
          evalsDir,
          "--runs-dir",
          runsDir,
          "--display",
          "plain",
        ],
        { cwd: configDir, env: { LAB_TOOLS_DIR: sharedToolsDir, OPENAI_API_KEY: "sk-dummy" } },
      );
      const requests = server.requests.slice(before).filter((r) => r.route === "model");
      const artifacts = path.join(runsDir, runId, "trials", taskId, "1", "artifacts");
      const patch = readFileSync(
        path.join(runsDir, runId, "trials", taskId, "1", "patch.diff"),
        "utf8",
      );
      return { result, trial: readTrial(runId, taskId), requests, artifacts, patch };
    }

    it("edits in the gold change as scripted: resolved, with the served tokens and a cost", async () => {
      const { result, trial, requests, artifacts, patch } = await runTask(RESOLVING);
      expect(result.stderr).toContain("sandbox bwrap");
      expect(trial.outcome).toEqual({ kind: "graded" });
      expect(trial.resolved).toBe(true);
      const count = agent.requests.resolving;
      expect(requests.map((request) => request.step)).toEqual([...Array(count).keys()]);
      expect(requests.every((request) => !request.isSideCall)).toBe(true);
      const t = trial.telemetry;
      expect(t.model).toBe(`openai/${MODEL}`);
      expect(t.turns).toBe(count);
      expect(t.outputTokens).toBe(count * MAIN_USAGE.outputTokens);
      const uncached = count * MAIN_USAGE.uncachedInputTokens;
      const cached = count * MAIN_USAGE.cacheReadInputTokens;
      if (agent.splitsCache) {
        expect(t.inputTokens).toBe(uncached);
        expect(t.cacheReadTokens).toBe(cached);
      } else {
        expect(t.inputTokens).toBe(uncached + cached);
      }
      expect(t.costSource).toBe("computed");
      const expected =
        ((t.inputTokens ?? 0) * PRICE.input +
          (t.outputTokens ?? 0) * PRICE.output +
          (t.cacheReadTokens ?? 0) * PRICE.cacheRead) /
        1e6;
      expect(t.costUsd).toBeCloseTo(expected, 9);
      // Nothing of the agent's own (caches, histories) is part of the change.
      expect(patch).not.toMatch(/\.aider|trajectory/);
      expect(existsSync(path.join(artifacts, "agent-stdout.txt"))).toBe(true);
      if (agent.name === "aider") {
        expect(readdirSync(path.join(artifacts, "transcripts")).sort()).toEqual([
          "README.txt",
          "chat.history.md",
          "llm.history",
        ]);
      } else {
        expect(existsSync(path.join(artifacts, "mini-trajectory.json"))).toBe(true);
      }
    }, 420_000);

    it("writes an unrelated file as scripted: graded, not resolved", async () => {
      const { trial, requests, patch } = await runTask(FAILING);
      expect(trial.outcome).toEqual({ kind: "graded" });
      expect(trial.resolved).toBe(false);
      expect(requests).toHaveLength(agent.requests.failing);
      expect(patch).toContain("+++ b/NOTES.md");
      expect(patch).toContain(`+${NOTE.trimEnd()}`);
      if (agent.name !== "aider") {
        // The shell command's output came back to the model with the next request.
        expect(JSON.stringify(requests[2]?.body)).toContain("Looked at the parser");
      }
    }, 420_000);
  },
);
