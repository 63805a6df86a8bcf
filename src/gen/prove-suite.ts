import type { Reporter, ValidationProof } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { loadOracle, loadTask, readProofFile, suiteLayout, type Suite } from "../suite/index.js";
import { proveTask, writeProofFile } from "./prove.js";

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
  /** Told of each task's proof as it starts, moves from step to step, and ends. */
  readonly reporter?: Reporter | undefined;
}

/**
 * Proves an existing suite's tasks one after another (gold resolves each, and with no change
 * its FAIL_TO_PASS tests fail) and merges the proofs into the suite's proof.json. Every task is
 * loaded first, so a malformed one fails before hours of proving.
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
  const proofs: ValidationProof[] = [];
  const emit = (event: Parameters<Reporter["emit"]>[0]): void => options.reporter?.emit(event);
  emit({ type: "proof:start", suite: suite.name, total: loaded.length });
  for (const { task, oracle } of loaded) {
    const taskId = task.info.id;
    emit({ type: "proof:task:start", taskId });
    const proof = await proveTask(task, oracle, {
      environment: options.environment,
      logDir: options.logDir,
      labVersion: options.labVersion,
      testTimeoutMs: options.testTimeoutMs,
      signal: options.signal,
      onPhase: (phase) => {
        emit({ type: "proof:task:phase", taskId, phase });
      },
    });
    proofs.push(proof);
    emit({
      type: "proof:task:end",
      taskId,
      kept: proof.valid,
      message: `${taskId}: ${proof.valid ? "proven" : `NOT proven: ${String(proof.reason)}`}`,
      done: proofs.length,
      total: loaded.length,
    });
  }
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
