import { mkdir } from "node:fs/promises";
import {
  classifyInfraError,
  errorMessage,
  LabError,
  SCHEMA_VERSION,
  sourceName,
  type Task,
  type TrialResult,
} from "../core/index.js";
import type { TrialContext, TrialExecutor, TrialJob } from "../runner/index.js";
import {
  readTrialResult,
  trialResultSchema,
  writeJsonAtomic,
  type TrialPaths,
} from "../store/index.js";
import { taskContentHash } from "../suite/index.js";
import { describeAddressRisks, type QueueAddress } from "./address.js";
import { unpackBundle, writeBundle, type BundleFile } from "./bundle.js";
import { checkQueueReachable } from "./connection.js";
import {
  PROTOCOL_VERSION,
  runKeyOf,
  trialJobId,
  trialReturnSchema,
  type RunManifest,
  type ToolRequest,
  type TrialJobData,
} from "./protocol.js";
import { COORDINATOR_STOP_GRACE_MS, stopDeadline, unlessAborted } from "./stopping.js";
import { JobTracker, sameJson, type JobEnd, type JobSpec, type TrackerHooks } from "./tracker.js";

/** How a run goes through a queue. */
export interface QueueRunOptions {
  readonly address: QueueAddress;
  /** For a tool run: the flags that make the tool, which each worker builds for itself. */
  readonly toolRequest: ToolRequest | undefined;
  /** How many workers may try a trial that fails for infrastructure reasons. */
  readonly attempts: number;
}

/** What the coordinator spent per trial, for `npm run bench:queue`. */
export interface QueueRunStats {
  /** Milliseconds spent hashing tasks and adding jobs. */
  enqueueMs: number;
  /** Per collected trial: milliseconds from fetching its finished job to its files written, indexed and the job removed. */
  readonly collectMs: number[];
  /** Per collected trial: milliseconds from the worker finishing it to its result.json written here. */
  readonly latencyMs: number[];
}

/** A trial executor that hands trials to a queue's workers, with what it measured. */
export interface QueueExecutor extends TrialExecutor {
  readonly stats: QueueRunStats;
}

/** Back-off before a trial that failed for infrastructure reasons is tried again. */
const RETRY_DELAY_MS = 2000;
/** Finished jobs nobody collects are dropped after a week (a coordinator that never came back). */
const KEEP_FINISHED_S = 7 * 24 * 3600;

/**
 * Runs a run's trials on the workers of a BullMQ queue: one job per trial, named by the run
 * and the trial, so a rerun finds the jobs already there instead of adding them twice. Each
 * worker runs and grades its trial with `runTrial` and sends its folder back; the coordinator
 * writes it into the run folder (result.json last) and removes the job. See
 * docs/design/scale-out.md.
 */
export function createQueueExecutor(options: QueueRunOptions): QueueExecutor {
  const { address } = options;
  const stats: QueueRunStats = { enqueueMs: 0, collectMs: [], latencyMs: [] };
  return {
    stats,
    async prepare(config) {
      if (config.source.kind === "tool" && options.toolRequest === undefined)
        throw new Error("a queue run of a tool needs the tool's request");
      const warnings = await checkQueueReachable(address);
      const recordedSandbox = config.recorded.sandbox;
      return {
        notes: [
          {
            level: "info",
            message: `trials go to queue ${address.display}: each runs on a worker (\`lab worker --queue URL\`), in that worker's sandbox, up to ${String(options.attempts)} attempt(s)`,
          },
          ...[
            ...describeAddressRisks(address),
            ...warnings,
            ...(config.keepScratch
              ? ["--keep does nothing with --queue: work trees and checkouts are the workers'"]
              : []),
          ].map((message) => ({ level: "warn" as const, message })),
        ],
        recorded: {
          queue: address.display,
          attempts: options.attempts,
          concurrency: "the workers'",
          sandbox: {
            ...(typeof recordedSandbox === "object" ? recordedSandbox : {}),
            provider: "the workers' (lab worker --sandbox)",
            isolatesFilesystem: null,
          },
        },
      };
    },
    execute: (jobs, context) => executeOnQueue(jobs, context, options, stats),
  };
}

async function executeOnQueue(
  jobs: readonly TrialJob[],
  context: TrialContext,
  options: QueueRunOptions,
  stats: QueueRunStats,
): Promise<void> {
  const { config, record, reporter, signal } = context;
  const { source } = config;
  const runKey = runKeyOf(record.runId, record.createdAt);
  const manifest: RunManifest = {
    key: runKey,
    runId: record.runId,
    suite: config.suite,
    labVersion: config.labVersion,
    toolVersion: context.toolVersion,
    source:
      source.kind === "tool"
        ? {
            kind: "tool",
            request: options.toolRequest ?? { name: source.tool.name },
            fingerprint: source.tool.fingerprint,
          }
        : {
            kind: "stated",
            name: source.name,
            description: source.description,
            version: source.version,
            fingerprint: source.fingerprint,
            origin: source.origin,
          },
    limits: config.limits,
    network: config.sandbox.network,
    sandboxLimits: config.sandbox.limits,
  };
  const log = (level: "info" | "warn", message: string): void => {
    reporter.emit({ type: "log", level, message });
  };
  const started = Date.now();
  const byId = new Map<string, { job: TrialJob; spec: JobSpec }>();
  const hashes = new Map<Task, string>();
  for (const job of jobs) {
    let taskHash = hashes.get(job.task);
    if (taskHash === undefined) {
      taskHash = await taskContentHash(job.task);
      hashes.set(job.task, taskHash);
    }
    const data: TrialJobData = {
      v: PROTOCOL_VERSION,
      kind: "trial",
      run: manifest,
      taskId: job.task.info.id,
      trial: job.trial,
      taskHash,
      ...(source.kind === "stated" ? { patch: source.patchFor(job.task.info.id) } : {}),
      triedOn: [],
      deferrals: 0,
      refusals: 0,
    };
    const id = trialJobId(runKey, job.task.info.id, job.trial);
    byId.set(id, {
      job,
      spec: {
        id,
        name: "trial",
        data,
        opts: {
          attempts: options.attempts,
          backoff: { type: "fixed", delay: RETRY_DELAY_MS },
          removeOnComplete: { age: KEEP_FINISHED_S },
          removeOnFail: { age: KEEP_FINISHED_S },
        },
      },
    });
  }

  const deadline = stopDeadline(signal, COORDINATOR_STOP_GRACE_MS);
  const stopped = (): Error => new LabError("CANCELLED", `Run ${record.runId} was stopped.`);
  let tracker: JobTracker;
  try {
    tracker = await JobTracker.open(options.address, runKey, hooks(), signal);
  } catch (error) {
    // Stopped before Redis answered: the run is cancelled, nothing was queued.
    if (signal.aborted) return;
    throw error;
  }
  try {
    // Every command below waits while Redis is gone or hung: a stop does not wait with them.
    const enqueued = await unlessAborted(enqueue(), signal, stopped).then(
      () => true,
      (error: unknown) => {
        if (signal.aborted) return false;
        throw error;
      },
    );
    if (enqueued) {
      for (const [id, entry] of byId) {
        tracker.watch(id, (end) => collect(end, entry.job, context, tracker, stats));
      }
      await tracker.settled(signal, deadline);
    }
    if (signal.aborted) {
      const withdrawn = await tracker.withdrawBy(deadline());
      log(
        withdrawn === null ? "warn" : "info",
        withdrawn === null
          ? `the queue's Redis did not answer within ${String(COORDINATOR_STOP_GRACE_MS / 1000)} s: this run's trial jobs stay queued, and rerunning this command collects them`
          : `removed ${String(withdrawn.removed)} waiting trial job(s) from the queue` +
              (withdrawn.running > 0
                ? `; ${String(withdrawn.running)} under way on workers finish there, and rerunning this command collects them`
                : ""),
      );
    }
  } finally {
    await tracker.close();
  }

  function hooks(): TrackerHooks {
    return {
      onActive: (id) => {
        const entry = byId.get(id);
        if (entry !== undefined)
          reporter.emit({
            type: "trial:start",
            taskId: entry.job.task.info.id,
            trial: entry.job.trial,
          });
      },
      onProgress: (id, progress) => {
        const entry = byId.get(id);
        const phase = (progress as { phase?: unknown } | null)?.phase;
        if (entry !== undefined && typeof phase === "string")
          reporter.emit({
            type: "trial:phase",
            taskId: entry.job.task.info.id,
            trial: entry.job.trial,
            phase,
          });
      },
      onMissing: async (id) => {
        const entry = byId.get(id);
        if (entry === undefined) return;
        log(
          "warn",
          `trial job ${id} is no longer in Redis (restarted without its data?): adding it again`,
        );
        await tracker.add([entry.spec]);
      },
      onRefusal: (worker, message) => {
        log("warn", `worker ${worker} refuses this run's trials: ${message}`);
      },
      onNoWorker: () => {
        log(
          "warn",
          `no worker serves queue ${options.address.display}; start one: lab worker --queue URL`,
        );
      },
    };
  }

  /** Adds the run's jobs that Redis does not hold as this invocation describes them. */
  async function enqueue(): Promise<void> {
    // Leftovers of this run: jobs finished and collected by an invocation that died before
    // removing them. Their trials are recorded (not pending), so they are only removed.
    const finished = await tracker.queue.getRanges(["completed", "failed"], 0, -1);
    for (const id of finished)
      if (id.startsWith(`${runKey}.`) && !byId.has(id))
        await tracker.remove(id).catch(() => undefined);

    const states = await tracker.states([...byId.keys()]);
    const toAdd: JobSpec[] = [];
    let attached = 0;
    let finishedMeanwhile = 0;
    let requeued = 0;
    for (const [id, state] of states) {
      const entry = byId.get(id);
      if (entry === undefined) continue;
      if (state === "unknown") {
        toAdd.push(entry.spec);
      } else if (
        state === "failed" ||
        (state === "completed" && (await isCollected(tracker, id, entry.job.paths)))
      ) {
        // Failed for good while no coordinator watched, or an infra error recorded already:
        // try again, as a local rerun retries infra errors.
        await tracker.remove(id);
        toAdd.push(entry.spec);
      } else if (state === "completed") {
        finishedMeanwhile++;
      } else if (await tracker.replaceOutdated(id, (data) => sameJson(data, manifest, "run"))) {
        toAdd.push(entry.spec);
        requeued++;
      } else {
        attached++;
      }
    }
    // Refusals of the jobs replaced were about a run described otherwise: they no longer hold.
    if (requeued > 0) await tracker.clearRefusals();
    await tracker.add(toAdd);
    stats.enqueueMs += Date.now() - started;
    log(
      "info",
      `queue ${options.address.display}: ${String(toAdd.length)} trial job(s) added` +
        (requeued > 0
          ? ` (${String(requeued)} replacing jobs queued earlier with another tool version or settings)`
          : "") +
        (attached > 0 ? `, ${String(attached)} already queued or running` : "") +
        (finishedMeanwhile > 0
          ? `, ${String(finishedMeanwhile)} finished while no coordinator watched`
          : ""),
    );
    const workers = await tracker.workers().catch(() => []);
    if (workers.length === 0 && byId.size > 0)
      log(
        "warn",
        `no worker serves queue ${options.address.display} yet; start one: lab worker --queue URL`,
      );
    else if (workers.length > 0)
      log(
        "info",
        `${String(workers.length)} worker(s): ${workers.map((worker) => `${worker.name} (${String(worker.concurrency)})`).join(", ")}`,
      );
  }
}

/**
 * Whether a completed job's result is already in the run folder: a trial recorded as an infra
 * error by an invocation that died before removing its job. The same finish time says so.
 */
async function isCollected(tracker: JobTracker, id: string, paths: TrialPaths): Promise<boolean> {
  const stored = await readTrialResult(paths).catch(() => null);
  if (stored === null) return false;
  const job = await tracker.job(id);
  if (job === undefined) return false;
  const sent = await resultOf(job.returnvalue).catch(() => null);
  return sent !== null && sent.result.finishedAt === stored.finishedAt;
}

/** A worker's return value: its files, and the result they hold. */
async function resultOf(
  value: unknown,
): Promise<{ files: BundleFile[]; result: TrialResult; worker: string }> {
  const parsed = trialReturnSchema.parse(value);
  const files = await unpackBundle(parsed.bundle);
  const resultFile = files.find((file) => file.path === "result.json");
  if (resultFile === undefined) throw new Error("it holds no result.json");
  const result = trialResultSchema.parse(
    JSON.parse(resultFile.data.toString("utf8")),
  ) as TrialResult;
  return { files, result, worker: parsed.worker };
}

/** Writes a finished job's trial into the run folder, then removes the job. */
async function collect(
  end: JobEnd,
  job: TrialJob,
  context: TrialContext,
  tracker: JobTracker,
  stats: QueueRunStats,
): Promise<void> {
  const result =
    end.state === "completed"
      ? await collectCompleted(end.job, job, context)
      : await writeQueueFailure(
          job,
          context,
          `${end.job.failedReason || "the job failed"} (after ${String(end.job.attemptsMade)} attempt(s); last on worker ${end.job.processedBy ?? "?"})`,
          end.job,
        );
  await context.onResult(result);
  if (end.job.finishedOn !== undefined) stats.latencyMs.push(Date.now() - end.job.finishedOn);
  await tracker.remove(end.job.id ?? "").catch(() => undefined);
  stats.collectMs.push(performance.now() - end.fetchStartedAt);
}

/** Writes a completed job's files into its trial folder; a malformed one is recorded as an infra error. */
async function collectCompleted(
  queued: JobEnd["job"],
  job: TrialJob,
  context: TrialContext,
): Promise<TrialResult> {
  let sent;
  try {
    sent = await resultOf(queued.returnvalue);
    const { result } = sent;
    if (
      result.runId !== context.config.runId ||
      result.taskId !== job.task.info.id ||
      result.trial !== job.trial
    )
      throw new Error(
        `it is the result of ${result.runId}/${result.taskId} #${String(result.trial)}`,
      );
  } catch (error) {
    return writeQueueFailure(
      job,
      context,
      `worker ${queued.processedBy ?? "?"} sent back a malformed trial: ${errorMessage(error)}`,
      queued,
    );
  }
  await writeBundle(job.paths.dir, sent.files, ["result.json"]);
  await mkdir(job.paths.artifactsDir, { recursive: true });
  return sent.result;
}

/** Records a trial the queue could not carry out (its workers died or failed it) as an infra error. */
async function writeQueueFailure(
  job: TrialJob,
  context: TrialContext,
  message: string,
  queued: { processedOn?: number | undefined; finishedOn?: number | undefined },
): Promise<TrialResult> {
  const finishedAt = new Date(queued.finishedOn ?? Date.now());
  const startedAt = new Date(queued.processedOn ?? finishedAt.getTime());
  const result: TrialResult = {
    schemaVersion: SCHEMA_VERSION,
    runId: context.config.runId,
    tool: sourceName(context.config.source),
    toolVersion: context.toolVersion,
    suite: job.task.suite,
    taskId: job.task.info.id,
    trial: job.trial,
    // A worker lost or a job failed on the queue: lab's machinery, unless the words say more.
    outcome: { kind: "infra_error", phase: "queue", message, class: classifyInfraError(message) },
    resolved: null,
    patchApplied: null,
    patchEmpty: null,
    grade: null,
    toolExit: null,
    telemetry: {},
    phaseMs: {},
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  };
  await writeBundle(job.paths.dir, [], []);
  await mkdir(job.paths.artifactsDir, { recursive: true });
  await writeJsonAtomic(job.paths.result, result);
  return result;
}
