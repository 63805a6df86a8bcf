import type { Oracle, Task, ValidationProof } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { proveTask } from "./prove.js";

/** One task to prove, `runs` times; the logs of run N go to `logDirOf(N)`. */
export interface ProofRequest {
  readonly task: Task;
  readonly oracle: Oracle;
  readonly runs: number;
  readonly logDirOf: (run: number) => string;
  /**
   * Where the base repository of a task this gen has just made comes from (swebench): a
   * prover on other machines ships the task's files and each machine fetches this itself.
   */
  readonly baseRepo?: { readonly repo: string; readonly baseCommit: string } | undefined;
  /** Told as a proof here moves from step to step (a queue's workers do not tell it). */
  readonly onPhase?: ((phase: string) => void) | undefined;
}

/**
 * Proves tasks: here (`localProver`), or on the workers of a queue (queue/). It returns one
 * proof per run, and throws as `proveTask` does (ENVIRONMENT_FAILED when the task's
 * environment cannot be built, CANCELLED when stopped).
 */
export type TaskProver = (request: ProofRequest) => Promise<ValidationProof[]>;

/** Proves on this machine, one run after another. */
export function localProver(options: {
  readonly environment: EnvironmentOptions;
  readonly labVersion: string;
  readonly testTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}): TaskProver {
  return async (request) => {
    const proofs: ValidationProof[] = [];
    for (let run = 1; run <= request.runs; run++) {
      proofs.push(
        await proveTask(request.task, request.oracle, {
          environment: options.environment,
          logDir: request.logDirOf(run),
          labVersion: options.labVersion,
          testTimeoutMs: options.testTimeoutMs,
          signal: options.signal,
          onPhase:
            request.onPhase === undefined
              ? undefined
              : (phase) => {
                  request.onPhase?.(
                    request.runs > 1
                      ? `run ${String(run)}/${String(request.runs)} ${phase}`
                      : phase,
                  );
                },
        }),
      );
    }
    return proofs;
  };
}
