import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  errorCode,
  errorMessage,
  type PhaseTimer,
  type Sandbox,
  type SandboxSpec,
  type Telemetry,
  type Tool,
  type ToolExit,
  type ToolReport,
} from "../core/index.js";
import { createEnvMarker, killProcessesByEnvMarker } from "../process/index.js";
import { checkoutTask } from "../suite/index.js";
import type { RunConfig, TrialJob } from "./config.js";

/** What a trial's tool left: its work tree to grade, and how it ended. */
export interface ToolRun {
  readonly workTree: string;
  readonly toolExit: ToolExit;
  readonly telemetry: Telemetry;
  /** What was wrong with what the tool left (its telemetry file). */
  readonly warnings: readonly string[];
}

/** A phase of the tool's side of a trial that failed for lab's or the machine's reasons. */
export interface ToolRunFailure {
  readonly phase: "setup" | "sandbox" | "tool";
  readonly message: string;
  /** The error's code (a LabError's, or errno's), which classes it. */
  readonly code?: string | undefined;
}

/**
 * Makes a fresh work tree with the task's setup.sh, runs the tool in it inside the run's
 * sandbox, and kills whatever the tool left running. The prompt sits in a folder of its own
 * under `scratch`, which the sandbox shows read-only.
 */
export async function runToolInWorkTree(
  job: TrialJob,
  tool: Tool,
  config: RunConfig,
  scratch: string,
  timer: PhaseTimer,
  signal: AbortSignal,
): Promise<ToolRun | ToolRunFailure> {
  const { task } = job;
  const workTree = path.join(scratch, "work");
  const inputDir = path.join(scratch, "input");
  const promptFile = path.join(inputDir, "prompt.txt");
  try {
    await timer.timed("setup", () =>
      checkoutTask(task, workTree, {
        timeoutMs: config.limits.setupMs,
        env: { PATH: config.environment.pathEnv, HOME: scratch },
        signal,
        purpose: "tool",
      }),
    );
  } catch (error) {
    return { phase: "setup", message: errorMessage(error), code: errorCode(error) };
  }

  await mkdir(inputDir);
  await writeFile(promptFile, task.prompt);
  const marker = createEnvMarker();
  let strays = 0;
  let sandbox: Sandbox;
  try {
    sandbox = await config.sandbox.provider.create(
      sandboxSpec(job, tool, config, scratch, workTree),
    );
  } catch (error) {
    return { phase: "sandbox", message: errorMessage(error), code: errorCode(error) };
  }
  let report: ToolReport;
  try {
    report = await timer.timed("tool", () =>
      tool.run({
        taskId: task.info.id,
        prompt: task.prompt,
        promptFile,
        workTree,
        timeoutMs: config.limits.toolMs,
        logFile: job.paths.toolLog,
        artifactsDir: job.paths.artifactsDir,
        env: {
          ...config.toolEnv,
          ...(sandbox.homeDir === undefined ? {} : { HOME: sandbox.homeDir, TMPDIR: "/tmp" }),
          [marker.name]: marker.value,
        },
        signal,
        sandbox,
        ...(tool.readsOracle ? { goldPatch: job.oracle.goldPatch } : {}),
      }),
    );
  } catch (error) {
    return {
      phase: "tool",
      message: `the ${tool.name} adapter failed: ${errorMessage(error)}`,
      code: errorCode(error),
    };
  } finally {
    // Anything still carrying this trial's marker was left behind by the tool: a daemon
    // that escaped its process group must not live on to tamper with grading.
    strays = await killProcessesByEnvMarker(marker.name, marker.value);
    await sandbox.dispose();
  }
  return {
    workTree,
    toolExit: { ...report.exit, strayProcesses: strays },
    telemetry: report.telemetry,
    warnings: report.warnings ?? [],
  };
}

/**
 * What one trial's sandbox is made of: its work tree, the prompt, the tool's artifacts folder
 * and installation; and the folders the sandbox must keep out of sight.
 */
function sandboxSpec(
  job: TrialJob,
  tool: Tool,
  config: RunConfig,
  scratch: string,
  workTree: string,
): SandboxSpec {
  return {
    workTree,
    stateDir: path.join(scratch, "sandbox"),
    readOnlyPaths: [path.join(scratch, "input")],
    toolPaths: tool.sandboxPaths ?? [],
    writablePaths: [job.paths.artifactsDir],
    hiddenPaths: job.hiddenPaths,
    hostHome: config.sandbox.hostHome,
    pathEnv: config.toolEnv.PATH ?? "/usr/bin:/bin",
    network: config.sandbox.network,
    limits: config.sandbox.limits,
    // What the grade's commands get, the tool gets too (bwrap shows the host's, with them).
    debianPackages:
      job.oracle.environment.kind === "node" ? [] : job.oracle.environment.debianPackages,
    toolInstallation: tool.installation,
  };
}
