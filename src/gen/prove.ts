import os from "node:os";
import path from "node:path";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import type { Grade, Oracle, ProofFile, Task, ValidationProof } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { gradeChange } from "../grader/index.js";
import { writeJsonAtomic } from "../store/index.js";
import { suiteLayout } from "../suite/index.js";

/** Grades a task's gold patch and an empty change, and judges the task by them. */
export async function proveTask(
  task: Task,
  oracle: Oracle,
  options: {
    environment: EnvironmentOptions;
    logDir: string;
    labVersion: string;
    testTimeoutMs: number;
    signal?: AbortSignal | undefined;
    /** Told each grading step as it starts: "gold: install", "no change: tests", ... */
    onPhase?: ((phase: string) => void) | undefined;
  },
): Promise<ValidationProof> {
  const grade = (label: string, patch: string): Promise<Grade> =>
    gradeInScratch(task, oracle, patch, {
      ...options,
      logFile: path.join(options.logDir, `${task.info.id}.${label}.log`),
      onPhase: (phase) => options.onPhase?.(`${label === "empty" ? "no change" : label}: ${phase}`),
    });
  const gold = await grade("gold", oracle.goldPatch);
  const empty = await grade("empty", "");
  return {
    taskId: task.info.id,
    ...judgeProof(gold, empty),
    gold,
    empty,
    environmentKey: gold.environmentKey,
    labVersion: options.labVersion,
  };
}

/**
 * The verdict on a task from its two grades. It is valid when the gold patch resolves it and,
 * with no change, some FAIL_TO_PASS test fails: the task then tells a fix from no fix. Listed
 * FAIL_TO_PASS tests that pass without the fix are named (upstream recorded some of its lists
 * while a service its tests call was failing); when all of them pass, the task proves nothing.
 */
export function judgeProof(
  gold: Grade,
  empty: Grade,
): { valid: boolean; reason: string | null; passWithoutFix: string[] } {
  const listed = Object.keys(empty.failToPass);
  const passWithoutFix = Object.entries(empty.failToPass)
    .filter(([, ok]) => ok)
    .map(([id]) => id);
  const reason = !gold.resolved
    ? `the gold patch does not resolve it: ${gold.reason ?? "unknown"}`
    : listed.length === 0
      ? "it lists no FAIL_TO_PASS test"
      : passWithoutFix.length === listed.length
        ? `every FAIL_TO_PASS test passes without the fix: ${passWithoutFix.slice(0, 3).join(", ")}${passWithoutFix.length > 3 ? ` and ${String(passWithoutFix.length - 3)} more` : ""}`
        : null;
  return { valid: reason === null, reason, passWithoutFix };
}

/** Grades `patch` on a fresh checkout in a throwaway scratch folder, as a proof does. */
export async function gradeInScratch(
  task: Task,
  oracle: Oracle,
  patch: string,
  options: {
    logFile: string;
    environment: EnvironmentOptions;
    testTimeoutMs: number;
    signal?: AbortSignal | undefined;
    /** Told each grading step as it starts. */
    onPhase?: ((phase: string) => void) | undefined;
  },
): Promise<Grade> {
  const root = options.environment.scratchRoot ?? os.tmpdir();
  await mkdir(root, { recursive: true });
  const scratch = await mkdtemp(path.join(root, `lab-proof-${task.info.id}-`));
  try {
    const outcome = await gradeChange(
      task,
      oracle,
      { patch },
      {
        scratchDir: scratch,
        logFile: options.logFile,
        environment: options.environment,
        setupTimeoutMs: 10 * 60_000,
        installTimeoutMs: 20 * 60_000,
        testTimeoutMs: options.testTimeoutMs,
        signal: options.signal,
        onPhase: options.onPhase,
      },
    );
    return outcome.grade;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Writes a suite's proof.json (replacing it), in the shape `readProofFile` checks. */
export async function writeProofFile(suiteDir: string, proof: ProofFile): Promise<void> {
  await writeJsonAtomic(suiteLayout(suiteDir).proofFile, proof);
}
