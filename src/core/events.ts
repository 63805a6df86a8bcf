import type { RunStatus, TrialResult } from "./types.js";

/** What a run tells its reporter as it goes. */
export type RunEvent =
  | {
      readonly type: "run:start";
      readonly runId: string;
      readonly runDir: string;
      readonly tool: string;
      readonly toolVersion: string;
      /** The name reports give the tool (`--label`), when the run has one. */
      readonly label?: string | undefined;
      readonly suite: string;
      /** Trials this invocation will attempt. */
      readonly pending: number;
      /** Trials already finished by an earlier invocation and skipped. */
      readonly skipped: number;
      readonly resumed: boolean;
    }
  | { readonly type: "trial:start"; readonly taskId: string; readonly trial: number }
  | {
      readonly type: "trial:phase";
      readonly taskId: string;
      readonly trial: number;
      readonly phase: string;
    }
  | {
      readonly type: "trial:end";
      readonly result: TrialResult;
      readonly done: number;
      readonly pending: number;
    }
  | {
      readonly type: "run:end";
      readonly runId: string;
      readonly runDir: string;
      readonly status: RunStatus;
      /** The run's trials as stored, this invocation's and earlier ones'. */
      readonly summary: RunSummary;
      /** Trials this invocation planned: those already done it skipped and those it attempted. */
      readonly planned: number;
    }
  | {
      readonly type: "log";
      readonly level: "info" | "warn";
      readonly message: string;
      /** Said once per run: a later log event with the same key is left out (`sayOnce`). */
      readonly once?: string;
    }
  | ProofEvent;

/**
 * What `lab gen` tells its reporter as it proves tasks, the way a run tells of its trials: a
 * proof is the gold patch and no change graded, once or several times.
 */
export type ProofEvent =
  | {
      readonly type: "proof:start";
      readonly suite: string;
      /** Tasks (or instances, or mined changes) this invocation will prove. */
      readonly total: number;
      /** Each task's expected proof time (the ledger's reference), for the ETA; absent when unknown. */
      readonly expectedMs?: Readonly<Record<string, number>> | undefined;
      /** Tasks proven at once. */
      readonly concurrency?: number | undefined;
    }
  | { readonly type: "proof:task:start"; readonly taskId: string }
  | {
      readonly type: "proof:task:phase";
      readonly taskId: string;
      /** "fetch", "gold: install", "no change: tests", "run 2/3 gold: tests", ... */
      readonly phase: string;
    }
  | {
      readonly type: "proof:task:end";
      readonly taskId: string;
      /** Proven (and kept). */
      readonly kept: boolean;
      /** The line a log shows for it, e.g. "alpha: proven" or "x: dropped: why". */
      readonly message: string;
      readonly done: number;
      readonly total: number;
    }
  | { readonly type: "proof:end"; readonly kept: number; readonly dropped: number };

/** Counts over a run's finished trials. */
export interface RunSummary {
  readonly trials: number;
  readonly resolved: number;
  readonly unresolved: number;
  readonly infraErrors: number;
}

/** Receives run events; ui/ implements tty, plain, json and silent reporters. */
export interface Reporter {
  emit(event: RunEvent): void;
  /** Stops whatever the reporter keeps drawing (a live display); safe to call twice. */
  close?(): void;
}
