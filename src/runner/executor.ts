import {
  LabError,
  runPool,
  type Reporter,
  type RunRecord,
  type TrialResult,
} from "../core/index.js";
import type { RunPaths } from "../store/index.js";
import type { RunConfig, TrialJob } from "./config.js";
import { runTrial } from "./trial.js";

/** A line for the run's log. */
export interface LogNote {
  readonly level: "info" | "warn";
  readonly message: string;
}

/** What `TrialExecutor.prepare` found. */
export interface PreparedExecutor {
  readonly notes: readonly LogNote[];
  /** Entries of run.json's config that replace or add to the run's own; none for a local run. */
  readonly recorded?: Readonly<Record<string, unknown>>;
}

/** What an executor is told about the run whose trials it carries out. */
export interface TrialContext {
  readonly config: RunConfig;
  readonly run: RunPaths;
  /** run.json as this invocation wrote it (its createdAt names the run across invocations). */
  readonly record: RunRecord;
  readonly toolVersion: string;
  readonly reporter: Reporter;
  readonly signal: AbortSignal;
  /**
   * Called once per trial whose files are all in its folder, result.json last: indexes it and
   * reports it. Never called for a trial cut short by an interruption.
   */
  readonly onResult: (result: TrialResult) => Promise<void>;
  /**
   * Asked just before each trial starts; false leaves it unstarted (the run's spending cap is
   * reached). Absent: every trial starts.
   */
  readonly mayStart?: (() => boolean) | undefined;
}

/**
 * Where a run's trials are carried out: in a pool of this process (the default), or on the
 * workers of a job queue. Either way each trial is `runTrial`, and its files end in the run
 * folder before `onResult`; see docs/design/scale-out.md.
 */
export interface TrialExecutor {
  /**
   * Checks, before anything is written, that trials can be carried out (the sandbox is ready,
   * the queue reachable); returns what the run's log should say about it, and settings that
   * run.json's config records over the run's own (the queue's, where the sandbox is).
   */
  prepare(
    config: RunConfig,
    context: { readonly reporter: Reporter; readonly signal: AbortSignal },
  ): Promise<PreparedExecutor>;
  /**
   * Carries out every job, calling `onResult` as each lands. Resolves when all have landed or
   * the context's signal aborted; throws on a failure of lab itself (a bug, a store failure).
   */
  execute(jobs: readonly TrialJob[], context: TrialContext): Promise<void>;
}

/**
 * Fails with SANDBOX_UNAVAILABLE when the sandbox cannot run here or cannot enforce a limit
 * the user asked for; otherwise returns what the run's log should say about it (a warning when
 * the trust boundary is not enforced).
 */
export async function checkSandbox(
  config: Pick<RunConfig, "sandbox">,
  context: { readonly reporter?: Reporter; readonly signal?: AbortSignal } = {},
): Promise<LogNote[]> {
  const { provider, limits, network } = config.sandbox;
  // docker may build its image first (minutes, once): say so as it goes.
  await provider.checkReady({
    progress: (message) => {
      context.reporter?.emit({
        type: "log",
        level: "info",
        message: `sandbox ${provider.name}: ${message}`,
      });
    },
    signal: context.signal,
  });
  const enforcement = await provider.describeLimits(limits);
  if (limits.memoryMb !== null && enforcement.unenforced.includes("memory")) {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      `A memory limit of ${String(limits.memoryMb)} MiB was asked for, but lab cannot make a memory cgroup here.`,
      {
        hint: "Run lab as root or in a cgroup that delegates the memory controller (e.g. `systemd-run --user --scope -p Delegate=yes lab run ...`), or drop --memory.",
      },
    );
  }
  const notes: LogNote[] = [
    {
      level: "info",
      message: `sandbox ${provider.name} (network ${network ? "on" : "off"}); limits: ${enforcement.summary}; grading: ${provider.isolatesFilesystem ? `the change's install and tests run in ${provider.name} too (network on)` : "the change's install and tests run unconfined, on the host"}`,
    },
  ];
  if (!provider.isolatesFilesystem) {
    notes.push({
      level: "warn",
      message: `sandbox "${provider.name}": tools run on the host as you and can read the oracle, other trials and your files; the trust boundary is NOT enforced.`,
    });
  }
  if (!network && !provider.canIsolateNetwork) {
    notes.push({
      level: "warn",
      message: `network off was asked for, but sandbox "${provider.name}" cannot turn it off.`,
    });
  }
  if (enforcement.unenforced.includes("processes")) {
    notes.push({
      level: "warn",
      message:
        "the process limit is not enforced here (no writable pids cgroup); a fork bomb can reach the host.",
    });
  }
  return notes;
}

/** Runs trials in this process, `config.concurrency` at once: the default executor. */
export const localExecutor: TrialExecutor = {
  prepare: async (config, context) => ({ notes: await checkSandbox(config, context) }),
  async execute(jobs, context) {
    const { config, toolVersion, reporter, signal } = context;
    // Held in an object: TypeScript does not see the pool's callbacks assign it.
    const state: { failure: Error | null } = { failure: null };
    const inner = new AbortController();
    const onAbort = (): void => {
      inner.abort();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // Interrupted while run.json was being written: the listener above would never fire.
    if (signal.aborted) inner.abort();
    try {
      await runPool(
        jobs,
        config.concurrency,
        async (job) => {
          if (context.mayStart?.() === false) return;
          reporter.emit({ type: "trial:start", taskId: job.task.info.id, trial: job.trial });
          try {
            const result = await runTrial(job, config, toolVersion, reporter, inner.signal);
            if (result !== null) await context.onResult(result);
          } catch (error) {
            // A bug or a store failure: stop taking trials, let the running ones end, and rethrow.
            state.failure ??= error instanceof Error ? error : new Error(String(error));
            inner.abort();
          }
        },
        inner.signal,
      );
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (state.failure !== null) throw state.failure;
  },
};
