import { mkdir } from "node:fs/promises";
import {
  createGradeEnvironment,
  type GradeEnvironment,
  type PreparedEnvironment,
} from "../environment/index.js";
import { confineGrade, pythonToolchain, type GradeConfinement } from "./grade-sandbox.js";
import type { PythonGradingPlan } from "./plan.js";

/** A grade's per-grade environment and the confinement its graded commands run in. */
export interface OpenGrade {
  readonly prepared: PreparedEnvironment;
  readonly gradeEnv: GradeEnvironment;
  readonly confinement: GradeConfinement;
  /** Names the checkout's git directory (moved out of the checkout) for lab's own git. */
  readonly gitEnv: Readonly<Record<string, string>>;
  /** The environment of every graded command. */
  readonly runEnv: Readonly<Record<string, string>>;
}

/**
 * Makes the per-grade venv, HOME and /tmp of the plan's places, and the confinement of the
 * commands that run the checkout's code. The checkout must exist at `plan.places.repo`.
 */
export async function openGrade(
  plan: PythonGradingPlan,
  prepared: PreparedEnvironment,
  signal: AbortSignal | undefined,
): Promise<OpenGrade> {
  const { places } = plan;
  await mkdir(places.home, { recursive: true });
  await mkdir(places.tmp, { recursive: true });
  const gradeEnv = await createGradeEnvironment(prepared, places.scratchDir, {
    ...plan.machine,
    timeoutMs: plan.limits.installMs,
    signal,
  });
  const commandEnv: Record<string, string> = {
    ...gradeEnv.env,
    ...plan.environment.env,
    HOME: places.home,
    TMPDIR: places.tmp,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TZ: "UTC",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  // From here the checkout's code runs (its setup.py or build backend, its package, its
  // conftest.py): in a sandbox, and with the checkout's git directory out of its reach.
  const confinement = await confineGrade({
    sandbox: plan.sandbox,
    task: plan.task,
    debianPackages: plan.environment.debianPackages ?? [],
    environment: plan.machine,
    scratchDir: places.scratchDir,
    repo: places.repo,
    home: places.home,
    pathEnv: commandEnv.PATH ?? plan.machine.pathEnv,
    toolchain: pythonToolchain(prepared, gradeEnv),
  });
  return {
    prepared,
    gradeEnv,
    confinement,
    gitEnv: { PATH: plan.machine.pathEnv, GIT_DIR: confinement.gitDir, GIT_WORK_TREE: places.repo },
    runEnv: { ...commandEnv, ...confinement.env },
  };
}
