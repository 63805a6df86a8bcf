import { LabError, runPool, type ValidationProof } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { loadOracle, loadTask, suiteLayout, type Suite } from "../suite/index.js";
import { writeProofFile } from "./prove.js";
import { localProver, type TaskProver } from "./prover.js";

/** How `proveSuite` proves. */
export interface ProveSuiteOptions {
  /** Only these tasks; default: every task of the suite. */
  readonly taskIds?: readonly string[] | undefined;
  /** Where environments are built and cached. */
  readonly environment: EnvironmentOptions;
  /** Where the grading logs go. */
  readonly logDir: string;
  /** Recorded in proof.json. */
  readonly labVersion: string;
  /** Limit of one test run. */
  readonly testTimeoutMs: number;
  /** Stops the proofs. */
  readonly signal?: AbortSignal | undefined;
  /** Where proofs run; default: here. */
  readonly prover?: TaskProver | undefined;
  /** Tasks proven at once (default 1). */
  readonly concurrency?: number | undefined;
  /** Told after each task's proof, with how many are done: for progress. */
  readonly onProof?: ((proof: ValidationProof, done: number, total: number) => void) | undefined;
}

/**
 * Proves an existing suite's tasks (gold resolves each, and with no change its FAIL_TO_PASS
 * tests fail), `concurrency` at once, and writes the proofs to the suite's proof.json in the
 * suite's order. Every task is loaded first, so a malformed one fails before hours of proving.
 */
export async function proveSuite(
  suite: Suite,
  options: ProveSuiteOptions,
): Promise<{ proofs: ValidationProof[]; proofFile: string }> {
  const loaded = [];
  for (const id of options.taskIds ?? suite.taskIds) {
    const task = await loadTask(suite, id);
    loaded.push({ task, oracle: await loadOracle(task) });
  }
  const prove =
    options.prover ??
    localProver({
      environment: options.environment,
      labVersion: options.labVersion,
      testTimeoutMs: options.testTimeoutMs,
      signal: options.signal,
    });
  const found = new Map<string, ValidationProof>();
  await runPool(
    loaded,
    options.concurrency ?? 1,
    async ({ task, oracle }) => {
      const [proof] = await prove({ task, oracle, runs: 1, logDirOf: () => options.logDir });
      if (proof === undefined) return;
      found.set(task.info.id, proof);
      options.onProof?.(proof, found.size, loaded.length);
    },
    options.signal,
  );
  if (options.signal?.aborted === true)
    throw new LabError("CANCELLED", `Proving suite "${suite.name}" was interrupted.`);
  const proofs = loaded.flatMap(({ task }) => found.get(task.info.id) ?? []);
  await writeProofFile(suite.dir, {
    suite: suite.name,
    labVersion: options.labVersion,
    provenAt: new Date().toISOString(),
    proofs,
  });
  return { proofs, proofFile: suiteLayout(suite.dir).proofFile };
}
