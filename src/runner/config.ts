import type { ChangeSource, Oracle, SandboxLimits, SandboxProvider, Task } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import type { TrialPaths } from "../store/index.js";

/**
 * The most trials per task a run may ask for. A run plans its trials before the first starts
 * (a job each), and a report reads them all: a huge --trials held lab silent and deaf to
 * Ctrl-C for minutes, then ran it out of memory. A thousand puts a task's own rate within
 * about 3 points (95%), far past what a comparison of tools needs (`lab plan`).
 */
export const MAX_TRIALS = 1000;

/**
 * The most trials one run may hold (tasks times trials per task): its plan, its index and its
 * report stay within memory and seconds. Larger campaigns are several runs.
 */
export const MAX_RUN_TRIALS = 100_000;

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

/** The sandbox each trial's tool runs in. */
export interface SandboxSettings {
  /** Makes one sandbox per trial. */
  readonly provider: SandboxProvider;
  /** Whether the tool may use the network. */
  readonly network: boolean;
  /** Memory, disk and process limits of each trial. */
  readonly limits: SandboxLimits;
  /** The user's home, which the tool never sees whole. */
  readonly hostHome: string;
}

/** Everything a run needs, resolved and frozen by config/. */
export interface RunConfig {
  readonly cwd: string;
  readonly suite: string;
  readonly evalsDir?: string | undefined;
  /** Where the changes come from: a tool run in a work tree, or changes stated up front. */
  readonly source: ChangeSource;
  /** Only these tasks, when given (narrowed further by the source and `validOnly`). */
  readonly taskIds?: readonly string[] | undefined;
  /** Only the tasks reviewed as valid (`lab review`). */
  readonly validOnly: boolean;
  /** Only the tasks the suite's oracle audit calls strong (`lab audit`). */
  readonly strongOnly: boolean;
  readonly trials: number;
  readonly concurrency: number;
  readonly runId: string;
  /** The name reports give the run's tool (`--label`), when given. */
  readonly label?: string | undefined;
  /**
   * The run's spending cap in USD (`--max-cost-total`): no trial starts once the cost its
   * finished trials reported reaches it. Absent: no cap.
   */
  readonly maxCostTotalUsd?: number | undefined;
  readonly runsDir: string;
  readonly limits: TrialLimits;
  readonly sandbox: SandboxSettings;
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

/** One trial to do. */
export interface TrialJob {
  readonly task: Task;
  readonly oracle: Oracle;
  readonly trial: number;
  readonly paths: TrialPaths;
  /**
   * Folders the trial's sandboxes never show (the same for every trial of a run): every suite,
   * the runs, lab's cache and the scratch root, where other trials' work trees are.
   */
  readonly hiddenPaths: readonly string[];
  /** The run's scratch folder under the scratch root, emptied when the run starts or resumes. */
  readonly scratchDir: string;
}
