/**
 * The set-up the agent CLIs' end-to-end tests share: a copy of the starter suite, the CLIs
 * installed for real into the shared tools folder, `lab run` with the flags every such run takes,
 * and the scripts' steps on the two starter tasks they use.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect } from "vitest";
import type { Telemetry, TrialResult } from "../../src/core/index.js";
import { runLab, type CliResult } from "../helpers/lab.js";
import type { LoggedRequest, ModelServer, ScriptStep } from "../helpers/model-server/index.js";
import { repoRoot, sharedToolsDir, tempDir } from "../helpers/temp.js";

/** A starter task: its id, and its issue's title, which the model server's scripts match. */
export interface StarterTask {
  readonly id: string;
  readonly match: string;
}

/** The task whose scripts edit in the gold change, so it resolves. */
export const RESOLVING: StarterTask = {
  id: "textkit-slugify-max-length",
  match: "slugify(max_length=...) can leave a dangling separator",
};

/** The task whose scripts write an unrelated note, so it is graded and not resolved. */
export const FAILING: StarterTask = {
  id: "ledger-parsed-dates-as-of",
  match: "balance_report(as_of=...) crashes",
};

/** Lists the package of the resolving task. */
export const LIST: ScriptStep = { kind: "shell", command: "ls src/textkit" };
/** Reads the file the gold change edits. */
export const READ: ScriptStep = { kind: "read", path: "src/textkit/slug.py" };
/** The gold change of the resolving task, as one edit. */
export const EDIT: ScriptStep = {
  kind: "edit",
  path: "src/textkit/slug.py",
  oldString: "        slug = slug[:max_length]\n",
  newString: "        slug = slug[:max_length].rstrip(sep)\n",
};
/** The unrelated note the failing task's scripts write. */
export const NOTE = "Looked at the parser; no change made.\n";
/** Writes NOTE into NOTES.md. */
export const WRITE_NOTE: ScriptStep = { kind: "write", path: "NOTES.md", content: NOTE };
/** Prints NOTES.md, so its text goes back to the model as a tool result. */
export const CAT_NOTE: ScriptStep = { kind: "shell", command: "cat NOTES.md" };

/** Prices (USD per million tokens) the tests' configs give the mock models, for computed costs. */
export const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** The cost lab computes from PRICE for a trial's tokens. */
export function computedCostUsd(telemetry: Telemetry): number {
  return (
    ((telemetry.inputTokens ?? 0) * PRICE.input +
      (telemetry.outputTokens ?? 0) * PRICE.output +
      (telemetry.cacheReadTokens ?? 0) * PRICE.cacheRead +
      (telemetry.cacheWriteTokens ?? 0) * PRICE.cacheWrite) /
    1e6
  );
}

/** One `lab run` of an agent CLI on starter tasks. */
export interface AgentRunOptions {
  /** The tool to run. */
  readonly tool: string;
  /** `--run-id`: the run's folder under the runs folder. */
  readonly runId: string;
  /** Starter task ids. */
  readonly tasks: readonly string[];
  /** `--sandbox`; lab's default when left out. */
  readonly sandbox?: string;
  /** `--model`. */
  readonly model?: string;
  /** The model server: `--base-url` is its URL plus `basePath`, and its requests are collected. */
  readonly server?: ModelServer;
  /** Appended to the server's URL to make the base URL. */
  readonly basePath?: string;
  /** `--timeout`. */
  readonly timeout?: string;
  /** Further flags, as given. */
  readonly args?: readonly string[];
  /** Variables over the test's own, which point LAB_TOOLS_DIR at the shared tools folder. */
  readonly env?: Readonly<Record<string, string>>;
  /** Where lab runs (and so which lab.config.json it reads); the lab's root when left out. */
  readonly cwd?: string;
}

/** What `lab run` printed and returned, and the requests the model server got meanwhile. */
export interface AgentRun extends CliResult {
  /** Every request the server got during the run, side calls and count routes included. */
  readonly requests: readonly LoggedRequest[];
}

/** A lab of one test file: a temporary root holding a copy of the starter suite and runs. */
export interface AgentLab {
  /** The temporary folder, lab's working directory unless a run says otherwise. */
  readonly root: string;
  /** `--evals-dir`, holding the copy of the starter suite. */
  readonly evalsDir: string;
  /** `--runs-dir`. */
  readonly runsDir: string;
  /** `lab run` on the copied suite, with plain display and the shared tools folder. */
  run(options: AgentRunOptions): Promise<AgentRun>;
  /** `lab tools ARGS` with the shared tools folder, unless `env` says otherwise. */
  tools(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<CliResult>;
  /** `lab report ARGS` over the starter suite's runs. */
  report(args: readonly string[]): Promise<CliResult>;
  /** Writes `config` as lab.config.json in a folder of that name under the root; returns it. */
  configFolder(name: string, config: unknown): string;
  /** The folder of a trial's first attempt. */
  trialDir(runId: string, taskId: string): string;
  /** The record (result.json) of a trial's first attempt. */
  readTrial(runId: string, taskId: string): TrialResult;
  /** The change (patch.diff) of a trial's first attempt. */
  readPatch(runId: string, taskId: string): string;
}

/**
 * Makes the lab and, before the file's tests, copies the starter suite into it and installs
 * `tools`. Installing is idempotent: the pinned versions stay in the shared tools folder.
 * `config`, when given, becomes the root's lab.config.json.
 */
export function makeAgentLab(options: {
  /** The temporary root's name prefix. */
  readonly prefix: string;
  /** The agent CLIs to install. */
  readonly tools: readonly string[];
  /** The root's lab.config.json. */
  readonly config?: unknown;
}): AgentLab {
  const root = tempDir(options.prefix);
  const evalsDir = path.join(root, "evals");
  const runsDir = path.join(root, "runs");
  const trialDir = (runId: string, taskId: string) =>
    path.join(runsDir, runId, "trials", taskId, "1");

  const lab: AgentLab = {
    root,
    evalsDir,
    runsDir,
    async run(run) {
      const before = run.server?.requests.length ?? 0;
      const result = await runLab(
        [
          "run",
          run.tool,
          "--suite",
          "starter",
          "--tasks",
          run.tasks.join(","),
          "--run-id",
          run.runId,
          ...(run.sandbox === undefined ? [] : ["--sandbox", run.sandbox]),
          ...(run.model === undefined ? [] : ["--model", run.model]),
          ...(run.server === undefined
            ? []
            : ["--base-url", `${run.server.url}${run.basePath ?? ""}`]),
          ...(run.timeout === undefined ? [] : ["--timeout", run.timeout]),
          "--evals-dir",
          evalsDir,
          "--runs-dir",
          runsDir,
          "--display",
          "plain",
          ...(run.args ?? []),
        ],
        { cwd: run.cwd ?? root, env: { LAB_TOOLS_DIR: sharedToolsDir, ...run.env } },
      );
      return { ...result, requests: run.server?.requests.slice(before) ?? [] };
    },
    tools(args, env = {}) {
      return runLab(["tools", ...args], {
        cwd: root,
        env: { LAB_TOOLS_DIR: sharedToolsDir, ...env },
      });
    },
    report(args) {
      return runLab(
        ["report", "--suite", "starter", "--evals-dir", evalsDir, "--runs-dir", runsDir, ...args],
        { cwd: root },
      );
    },
    configFolder(name, config) {
      const dir = path.join(root, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, "lab.config.json"), JSON.stringify(config, null, 2));
      return dir;
    },
    trialDir,
    readTrial(runId, taskId) {
      return JSON.parse(
        readFileSync(path.join(trialDir(runId, taskId), "result.json"), "utf8"),
      ) as TrialResult;
    },
    readPatch(runId, taskId) {
      return readFileSync(path.join(trialDir(runId, taskId), "patch.diff"), "utf8");
    },
  };

  beforeAll(async () => {
    cpSync(path.join(repoRoot, "evals", "starter"), path.join(evalsDir, "starter"), {
      recursive: true,
    });
    if (options.config !== undefined) {
      writeFileSync(path.join(root, "lab.config.json"), JSON.stringify(options.config, null, 2));
    }
    const install = await lab.tools(["install", ...options.tools]);
    expect(install.stderr).not.toMatch(/failed/i);
    expect(install.code).toBe(0);
  }, 900_000);

  return lab;
}
