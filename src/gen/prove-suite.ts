import { LabError, runPool, type Reporter, type ValidationProof } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { loadOracle, loadTask, readProofFile, suiteLayout, type Suite } from "../suite/index.js";
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
  /** Told of each task's proof as it starts, moves from step to step, and ends. */
  readonly reporter?: Reporter | undefined;
}

/**
 * Proves an existing suite's tasks (gold resolves each, and with no change its FAIL_TO_PASS
 * tests fail), `concurrency` at once, and merges the proofs into the suite's proof.json. Every
 * task is loaded first, so a malformed one fails before hours of proving.
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
  const emit = (event: Parameters<Reporter["emit"]>[0]): void => options.reporter?.emit(event);
  emit({ type: "proof:start", suite: suite.name, total: loaded.length });
  const found = new Map<string, ValidationProof>();
  await runPool(
    loaded,
    options.concurrency ?? 1,
    async ({ task, oracle }) => {
      const taskId = task.info.id;
      emit({ type: "proof:task:start", taskId });
      const [proof] = await prove({
        task,
        oracle,
        runs: 1,
        logDirOf: () => options.logDir,
        onPhase: (phase) => {
          emit({ type: "proof:task:phase", taskId, phase });
        },
      });
      if (proof === undefined) return;
      found.set(taskId, proof);
      emit({
        type: "proof:task:end",
        taskId,
        kept: proof.valid,
        message: `${taskId}: ${proof.valid ? "proven" : `NOT proven: ${String(proof.reason)}`}`,
        done: found.size,
        total: loaded.length,
      });
    },
    options.signal,
  );
  if (options.signal?.aborted === true)
    throw new LabError("CANCELLED", `Proving suite "${suite.name}" was interrupted.`);
  const proofs = loaded.flatMap(({ task }) => found.get(task.info.id) ?? []);
  const valid = proofs.filter((proof) => proof.valid).length;
  emit({ type: "proof:end", kept: valid, dropped: proofs.length - valid });
  // Proving some tasks keeps the others' proofs (of tasks still in the suite) and the parts
  // other gens wrote.
  const earlier = await readProofFile(suite.dir);
  const byId = new Map((earlier?.proofs ?? []).map((proof) => [proof.taskId, proof]));
  for (const proof of proofs) byId.set(proof.taskId, proof);
  await writeProofFile(suite.dir, {
    ...earlier,
    suite: suite.name,
    labVersion: options.labVersion,
    provenAt: new Date().toISOString(),
    proofs: suite.taskIds.flatMap((id) => {
      const proof = byId.get(id);
      return proof === undefined ? [] : [proof];
    }),
  });
  return { proofs, proofFile: suiteLayout(suite.dir).proofFile };
}
