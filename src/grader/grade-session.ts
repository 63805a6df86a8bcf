/**
 * The environment-specific steps of a grade, behind one shape so that `grade.ts` carries out
 * a Python task's grade and a Node task's alike: open the environment and its sandbox, run the
 * pre-install steps, install over the change, run the hidden tests.
 */
import { appendFile } from "node:fs/promises";
import type { PhaseTimer, SandboxExecResult } from "../core/index.js";
import { prepareEnvironment } from "../environment/index.js";
import { installProject, preInstall } from "./install-project.js";
import { installNodeProject } from "./node-install.js";
import { describeNodeToolchain, openNodeGrade } from "./node-open.js";
import { runNodeTests } from "./node-tests.js";
import { openGrade } from "./open-grade.js";
import { isNodePlan, isPythonPlan, type GradingPlan } from "./plan.js";
import { runHiddenTests } from "./test-run.js";

/** One grade's open environment and the steps that run the change's code in it. */
export interface GradeSession {
  /** The environment's cache key, recorded in the grade. */
  readonly key: string;
  /** Names the checkout's git directory (moved out of the checkout) for lab's own git. */
  readonly gitEnv: Readonly<Record<string, string>>;
  /** Runs the pre-install steps; returns what the change is measured against (a commit). */
  preInstall(): Promise<string>;
  /** Installs the project over the applied change; returns how. */
  install(baseline: string): Promise<"fresh" | "reused">;
  /** Runs the hidden tests; `guard` is the runner guard's token (pytest, SymPy) or null. */
  runTests(guard: string | null): Promise<SandboxExecResult>;
}

/**
 * Opens a grade's environment (Python: the era environment and a per-grade venv; Node: the
 * task's runtime and the project's package manager) and its sandbox, and logs where the
 * change's code runs. The checkout must exist, still at the base commit.
 */
export async function openGradeSession(
  plan: GradingPlan,
  timer: PhaseTimer,
  signal: AbortSignal | undefined,
): Promise<GradeSession> {
  const log = (text: string): Promise<void> => appendFile(plan.places.logFile, `${text}\n`);
  if (isNodePlan(plan)) {
    const open = await timer.timed("environment", () => openNodeGrade(plan, signal));
    await log(open.confinement.note);
    await log(describeNodeToolchain(open, plan.js.upstream));
    return {
      key: open.key,
      gitEnv: open.gitEnv,
      preInstall: () => Promise.resolve(plan.task.info.baseCommit),
      install: () => installNodeProject(plan, open, timer, signal),
      runTests: () => runNodeTests(plan, open, timer, signal),
    };
  }
  if (!isPythonPlan(plan)) throw new Error("a plan is for either a Python or a Node task");
  const prepared = await timer.timed("environment", () =>
    prepareEnvironment(plan.environment, plan.machine),
  );
  const open = await timer.timed("venv", () => openGrade(plan, prepared, signal));
  await log(open.confinement.note);
  return {
    key: prepared.key,
    gitEnv: open.gitEnv,
    preInstall: () => preInstall(plan, open, signal),
    install: (baseline) => installProject(plan, open, baseline, timer, signal),
    runTests: (guard) => runHiddenTests(plan, open, timer, signal, guard),
  };
}
