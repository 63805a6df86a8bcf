/**
 * What the grading benches share: the grader's environment as this shell gives it, and one
 * timed grade of a task's gold patch.
 */
import os from "node:os";
import path from "node:path";
import { uvPassEnvFrom } from "../src/config/index.js";
import { nodePassEnvFrom } from "../src/environment/index.js";
import type { Grade, Oracle, Task } from "../src/core/index.js";
import { gradeChange, type GradeOptions } from "../src/grader/index.js";

/** The grader's environment: this shell's PATH, uv and npm settings and pyenv, with `cacheDir`. */
export function benchEnvironment(cacheDir: string): GradeOptions["environment"] {
  return {
    cacheDir,
    pathEnv: process.env.PATH ?? "/usr/bin:/bin",
    home: os.homedir(),
    uvPassEnv: uvPassEnvFrom(process.env),
    npmPassEnv: nodePassEnvFrom(process.env),
    pyenvRoot: process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv"),
    uv: process.env.LAB_UV,
    timeoutMs: 20 * 60_000,
  };
}

/** Grades `task`'s gold patch with lab's default limits; its wall time and the grade. */
export async function timeGoldGrade(
  task: Task,
  oracle: Oracle,
  options: Pick<GradeOptions, "scratchDir" | "logFile" | "environment" | "sandbox" | "canaries">,
): Promise<{ totalMs: number; grade: Grade }> {
  const start = performance.now();
  const { grade } = await gradeChange(
    task,
    oracle,
    { patch: oracle.goldPatch },
    { ...options, setupTimeoutMs: 600_000, installTimeoutMs: 1_200_000, testTimeoutMs: 1_800_000 },
  );
  return { totalMs: performance.now() - start, grade };
}
