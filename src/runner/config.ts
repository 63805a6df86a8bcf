import type { Tool } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";

/** Per-phase limits of a trial. */
export interface TrialLimits {
  /** setup.sh making a work tree. */
  readonly setupMs: number;
  /** The tool's run. */
  readonly toolMs: number;
  /** Each install step while grading. */
  readonly installMs: number;
  /** The hidden test run. */
  readonly testMs: number;
}

/** Everything a run needs, resolved and frozen by config/. */
export interface RunConfig {
  readonly cwd: string;
  readonly suite: string;
  readonly evalsDir?: string | undefined;
  readonly tool: Tool;
  /** Only these tasks, when given. */
  readonly taskIds?: readonly string[] | undefined;
  readonly trials: number;
  readonly concurrency: number;
  readonly runId: string;
  readonly runsDir: string;
  readonly limits: TrialLimits;
  readonly environment: EnvironmentOptions;
  /** The allowlisted environment tools start from. */
  readonly toolEnv: Readonly<Record<string, string>>;
  readonly labVersion: string;
  /** Folder for trial scratch space (work trees, grading checkouts). */
  readonly scratchRoot: string;
  /** Keep work trees and grading checkouts, for debugging. */
  readonly keepScratch: boolean;
  /** What goes into run.json's config, for the record. */
  readonly recorded: Readonly<Record<string, unknown>>;
}
