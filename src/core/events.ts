import type { RunStatus, TrialResult } from "./types.js";

/** What a run tells its reporter as it goes. */
export type RunEvent =
  | {
      readonly type: "run:start";
      readonly runId: string;
      readonly runDir: string;
      readonly tool: string;
      readonly toolVersion: string;
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
      readonly summary: RunSummary;
    }
  | { readonly type: "log"; readonly level: "info" | "warn"; readonly message: string };

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
}
