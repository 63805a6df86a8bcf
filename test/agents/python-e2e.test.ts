/**
 * The Python agent CLIs, installed for real by `lab tools install` (PyPI into uv venvs), run on
 * two starter tasks inside bubblewrap against the scripted model server on 127.0.0.1: aider
 * answered in its SEARCH/REPLACE dialect, mini-swe-agent with `bash` tool calls (its default)
 * and in its text mode. One task's script edits in the gold change (resolved); the other writes
 * an unrelated file (not resolved). See docs/design/agents-python.md for why the scripts differ.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MAIN_USAGE,
  startModelServer,
  type ModelServer,
  type ScriptStep,
} from "../helpers/model-server/index.js";
import {
  CAT_NOTE,
  computedCostUsd,
  EDIT,
  FAILING,
  LIST,
  makeAgentLab,
  NOTE,
  PRICE,
  READ,
  RESOLVING,
  WRITE_NOTE,
  type StarterTask,
} from "./helpers.js";

/** mini-swe-agent's way to finish when it speaks through tool calls. */
const SUBMIT: ScriptStep = { kind: "shell", command: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" };

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
    failing: [WRITE_NOTE, CAT_NOTE],
    requests: { resolving: 2, failing: 1 },
    splitsCache: false,
  },
  {
    title: "mini-swe-agent (bash tool calls)",
    name: "mini-swe-agent",
    basePath: "/v1",
    args: [],
    resolving: [LIST, READ, EDIT, SUBMIT],
    failing: [WRITE_NOTE, CAT_NOTE, SUBMIT],
    requests: { resolving: 4, failing: 3 },
    splitsCache: true,
  },
  {
    title: "mini-swe-agent (text mode)",
    name: "mini-swe-agent",
    basePath: "/text/mini/v1",
    args: ["--model-class", "litellm_textbased", "-c", "mini_textbased.yaml"],
    resolving: [READ, EDIT, { kind: "finish", text: "Fixed." }],
    failing: [WRITE_NOTE, CAT_NOTE, { kind: "finish", text: "Note." }],
    requests: { resolving: 3, failing: 3 },
    splitsCache: true,
  },
];

const lab = makeAgentLab({ prefix: "lab-python-agents-", tools: ["aider", "mini-swe-agent"] });

describe.each(AGENTS.map((agent, i) => ({ ...agent, i })))(
  "$title against the scripted model server, in bubblewrap",
  (agent) => {
    let server: ModelServer;
    let configDir: string;

    beforeAll(async () => {
      server = await startModelServer({
        scripts: [
          { match: RESOLVING.match, steps: agent.resolving },
          { match: FAILING.match, steps: agent.failing },
        ],
      });
      configDir = lab.configFolder(`case-${String(agent.i)}`, {
        prices: { [MODEL]: PRICE },
        agents: { [agent.name]: { args: agent.args } },
      });
    });

    afterAll(async () => {
      await server.close();
    });

    async function runTask(task: StarterTask) {
      const runId = `${agent.name}-${String(agent.i)}-${task.id}`;
      const run = await lab.run({
        tool: agent.name,
        runId,
        tasks: [task.id],
        sandbox: "bwrap",
        model: MODEL,
        server,
        basePath: agent.basePath,
        timeout: "4m",
        env: { OPENAI_API_KEY: "sk-dummy" },
        cwd: configDir,
      });
      return {
        run,
        trial: lab.readTrial(runId, task.id),
        requests: run.requests.filter((request) => request.route === "model"),
        artifacts: path.join(lab.trialDir(runId, task.id), "artifacts"),
        patch: lab.readPatch(runId, task.id),
      };
    }

    it("edits in the gold change as scripted: resolved, with the served tokens and a cost", async () => {
      const { run, trial, requests, artifacts, patch } = await runTask(RESOLVING);
      expect(run.stderr).toContain("sandbox bwrap");
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
      expect(t.costUsd).toBeCloseTo(computedCostUsd(t), 9);
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
