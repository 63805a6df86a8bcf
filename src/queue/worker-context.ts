import { DelayedError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { SandboxProvider, Tool } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import type { QueueAddress } from "./address.js";
import { refusalsKey, type ToolRequest } from "./protocol.js";
import { liveWorkers } from "./tracker.js";

/** A worker's machine: where it keeps things and how it runs tools. */
export interface WorkerSettings {
  readonly address: QueueAddress;
  /** How the worker is named in the registry, in logs and in `processedBy` (default host-pid). */
  readonly name: string;
  /** Jobs at once. */
  readonly concurrency: number;
  /** A job's lock lapses after this long without renewal; then another worker takes it. */
  readonly lockDurationMs: number;
  /** Stop after this long with nothing to do (batch schedulers); undefined: run until stopped. */
  readonly idleExitMs: number | undefined;
  /** The sandbox this machine runs tools and grades in. */
  readonly sandbox: SandboxProvider;
  /** The user's home, which a tool never sees whole. */
  readonly hostHome: string;
  readonly cwd: string;
  /** Where this machine's suites are (`--evals-dir`), as for `lab run`. */
  readonly evalsDir: string | undefined;
  readonly environment: EnvironmentOptions;
  /** The allowlisted environment tools start from (this machine's credentials included). */
  readonly toolEnv: Readonly<Record<string, string>>;
  /** Work trees, grading checkouts and results before they are sent. */
  readonly scratchRoot: string;
  readonly labVersion: string;
  /** Where swebench proofs fetch base repositories (`--mirrors`), instead of GitHub. */
  readonly mirrorsDir: string | undefined;
  /** Builds the tool a run names, from this machine's installation, config and credentials. */
  readonly resolveTool: (request: ToolRequest) => Tool;
  /** Lines for the worker's log. */
  readonly onLog: (level: "info" | "warn", message: string) => void;
}

/** What the job handlers share. */
export interface WorkerContext {
  readonly settings: WorkerSettings;
  readonly redis: Redis;
  /** Where trials and proofs leave their files before they are sent back. */
  readonly stagingRoot: string;
  /** Refusal hashes this worker wrote to, cleared when it stops (it no longer refuses). */
  readonly refused: Set<string>;
  /** Logs a line once per distinct text (refusals repeat for every job of a run). */
  logOnce(level: "info" | "warn", message: string): void;
}

/**
 * A refused job waits this long at first, doubling per refusal up to 20 s: a refusing worker
 * does not churn through a run's jobs, and a matching worker that joins soon gets them.
 */
const REFUSAL_DELAY_MS = 2000;

/**
 * Refuses a job this machine must not run (another suite content, tool version or lab): says
 * why in the worker's log and in the work's refusals hash, which the coordinator shows, and puts
 * the job back, delayed, for another worker. No attempt is spent.
 */
export async function refuse(
  context: WorkerContext,
  job: Job,
  token: string | undefined,
  workKey: string,
  message: string,
): Promise<never> {
  const key = refusalsKey(workKey);
  await context.redis.hset(key, context.settings.name, message);
  await context.redis.expire(key, 24 * 3600);
  context.refused.add(key);
  context.logOnce("warn", `refusing ${workKey}: ${message}`);
  const refusals = Number((job.data as { refusals?: unknown }).refusals ?? 0);
  await job.updateData({ ...(job.data as object), refusals: refusals + 1 });
  await job.moveToDelayed(
    Date.now() + Math.min(REFUSAL_DELAY_MS * 2 ** Math.min(refusals, 4), 20_000),
    token,
  );
  throw new DelayedError();
}

/**
 * Puts back a job that failed on this worker before, when a live worker it has not failed on
 * could take it: an infrastructure failure is retried elsewhere when there is an elsewhere.
 * At most three times, so a busy pool does not pass a job around forever.
 */
export async function preferOtherWorkers(
  context: WorkerContext,
  job: Job,
  token: string | undefined,
  triedOn: readonly string[],
  deferrals: number,
): Promise<void> {
  if (!triedOn.includes(context.settings.name) || deferrals >= 3) return;
  const others = (await liveWorkers(context.redis).catch(() => [])).filter(
    (worker) => !triedOn.includes(worker.name),
  );
  if (others.length === 0) return;
  await job.updateData({ ...(job.data as object), deferrals: deferrals + 1 });
  await job.moveToDelayed(Date.now() + 1000, token);
  throw new DelayedError();
}

/** Records that a job's attempt failed on this worker, so its retry prefers another. */
export async function markTriedHere(
  context: WorkerContext,
  job: Job,
  triedOn: readonly string[],
): Promise<void> {
  await job
    .updateData({
      ...(job.data as object),
      triedOn: [...new Set([...triedOn, context.settings.name])],
      deferrals: 0,
    })
    .catch(() => undefined);
}
