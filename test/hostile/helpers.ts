import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import {
  commandToolSpec,
  configFileSchema,
  resolveRunConfig,
  resolveSettings,
} from "../../src/config/index.js";
import {
  quoteShell,
  type Grade,
  type Oracle,
  type RunEvent,
  type Task,
  type TrialResult,
} from "../../src/core/index.js";
import { gradeChange } from "../../src/grader/index.js";
import { runSuite, type RunResult } from "../../src/runner/index.js";
import { suiteLayout } from "../../src/suite/index.js";
import { createDockerProvider } from "../../src/sandbox/index.js";
import { createCommandTool } from "../../src/tools/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { nodeTestTask } from "../helpers/js-fixture-tasks.js";
import { testEnvironment } from "../helpers/lab.js";
import { outsideTmpRoot, repoRoot, sharedCacheDir } from "../helpers/temp.js";
import { dockerEndToEndUnavailable, hasBwrap, testDockerSettings } from "../sandbox/helpers.js";

/** A sandbox that isolates, which hostile tools are run against. */
export type IsolatingSandbox = "bwrap" | "docker";

/**
 * The isolating sandboxes this machine has: bwrap, and docker where an engine answers (and
 * LAB_TEST_DOCKER is not "contract"). Every hostile test runs under each; the controls
 * (`none`) run once, beside bwrap.
 */
export const HOSTILE_SANDBOXES: readonly IsolatingSandbox[] = [
  ...(hasBwrap() ? (["bwrap"] as const) : []),
  ...(dockerEndToEndUnavailable() === null ? (["docker"] as const) : []),
];

/** Where the hostile tools live; shown to them read-only as their "installation". */
export const HOSTILE_DIR = path.join(repoRoot, "test", "fixtures", "hostile");

/** A lab installation to attack: a suite, runs and scratch space, outside /tmp. */
export interface Lab {
  readonly root: string;
  readonly evalsDir: string;
  readonly runsDir: string;
  readonly scratchDir: string;
  /** Runs one hostile script (with its arguments) over the suite, as a command tool. */
  run(
    script: string,
    options?: {
      args?: string;
      runId?: string;
      tasks?: string[];
      sandbox?: string;
      timeout?: string;
      disk?: string;
      memory?: string;
      maxProcesses?: number;
      /** The user's home, to lab (HOME); pyenv's root stays where it was. */
      home?: string;
      concurrency?: number;
    },
  ): Promise<RunResult & { events: RunEvent[] }>;
}

/**
 * Makes the lab under the repository's .cache rather than /tmp: the sandbox replaces /tmp, and
 * a test whose oracle sits there would pass whatever the sandbox's rules were. Its suite is a
 * two-task fixture suite named "fixture" (alpha and beta: Python packages, or with "fixture-js"
 * node:test projects), or a copy of a built-in suite (starter, starter-js). Its runs use
 * `sandbox` (default bwrap) unless told otherwise; under docker, lab's image is built first if
 * missing.
 */
export function makeLab(
  options: {
    suite?: "fixture" | "fixture-js" | "starter" | "starter-js";
    sandbox?: IsolatingSandbox;
  } = {},
): Lab {
  const fixture = options.suite === undefined || options.suite.startsWith("fixture");
  const suiteName = fixture ? "fixture" : (options.suite ?? "fixture");
  const sandbox = options.sandbox ?? "bwrap";
  if (sandbox === "docker") {
    beforeAll(
      () => createDockerProvider({ settings: testDockerSettings() }).checkReady(),
      1_800_000,
    );
  }
  const root = mkdtempSync(path.join(outsideTmpRoot, "hostile-"));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });
  const evalsDir = path.join(root, "evals");
  const runsDir = path.join(root, "runs");
  const scratchDir = path.join(root, "scratch");
  if (!fixture)
    cpSync(path.join(repoRoot, "evals", suiteName), path.join(evalsDir, suiteName), {
      recursive: true,
    });
  else if (options.suite === "fixture-js")
    writeFixtureSuite(evalsDir, "fixture", [nodeTestTask("alpha"), nodeTestTask("beta")]);
  else writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
  return {
    root,
    evalsDir,
    runsDir,
    scratchDir,
    async run(script, options = {}) {
      const env = {
        ...process.env,
        ...(options.home === undefined
          ? {}
          : {
              HOME: options.home,
              PYENV_ROOT: process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv"),
            }),
        LAB_CACHE_DIR: sharedCacheDir,
        LAB_SCRATCH_DIR: scratchDir,
      };
      const settings = resolveSettings({ evalsDir, runsDir }, env, root);
      const line = `bash ${quoteShell(path.join(HOSTILE_DIR, script))}${options.args === undefined ? "" : ` ${options.args}`}`;
      const tool = createCommandTool(
        commandToolSpec(script.replace(/\.sh$/, ""), { command: line, paths: [HOSTILE_DIR] }, env),
      );
      const config = resolveRunConfig({
        flags: {
          suite: suiteName,
          runId: options.runId ?? script.replace(/\.sh$/, ""),
          tasks: options.tasks ?? (suiteName === "fixture" ? ["alpha"] : undefined),
          concurrency: options.concurrency === undefined ? undefined : String(options.concurrency),
          timeout: options.timeout ?? "60s",
          sandbox: options.sandbox ?? sandbox,
          disk: options.disk,
          memory: options.memory,
        },
        env,
        file: configFileSchema.parse(
          options.maxProcesses === undefined
            ? {}
            : { defaults: { maxProcesses: options.maxProcesses } },
        ),
        settings,
        source: { kind: "tool", tool },
        labVersion: "test",
        signal: new AbortController().signal,
      });
      const events: RunEvent[] = [];
      const result = await runSuite(
        config,
        { emit: (event) => events.push(event) },
        new AbortController().signal,
      );
      return { ...result, events };
    },
  };
}

/** What a hostile tool reported about its own success, one line per thing it achieved. */
export function toolReport(runDir: string, trial: TrialResult): string[] {
  const file = path.join(
    runDir,
    "trials",
    trial.taskId,
    String(trial.trial),
    "artifacts",
    "report.txt",
  );
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

/** The diff a trial was graded on. */
export function gradedPatch(runDir: string, trial: TrialResult): string {
  const file = path.join(runDir, "trials", trial.taskId, String(trial.trial), "patch.diff");
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

/** The tool's log of a trial. */
export function toolLog(runDir: string, trial: TrialResult): string {
  return readFileSync(
    path.join(runDir, "trials", trial.taskId, String(trial.trial), "tool.log"),
    "utf8",
  );
}

/** The hidden test patch of a fixture task. */
export function testPatchOf(lab: Lab, taskId: string): string {
  const oracleDir = suiteLayout(path.join(lab.evalsDir, "fixture")).oracleDir(taskId);
  return readFileSync(path.join(oracleDir, "test.patch"), "utf8");
}

/**
 * Grades `change` of a fixture task as a run would (lab's usual limits, the shared cache), with
 * or without canaries; its scratch and log go under `root`, named `name`.
 */
export async function gradeFixtureChange(
  task: Task,
  oracle: Oracle,
  change: { patch: string } | { workTree: string },
  options: { canaries: boolean; root: string; name: string },
): Promise<Grade> {
  const { root, name } = options;
  const { grade } = await gradeChange(task, oracle, change, {
    scratchDir: path.join(root, name),
    logFile: path.join(root, `${name}.log`),
    environment: testEnvironment(),
    setupTimeoutMs: 60_000,
    installTimeoutMs: 300_000,
    testTimeoutMs: 120_000,
    canaries: options.canaries,
  });
  return grade;
}
