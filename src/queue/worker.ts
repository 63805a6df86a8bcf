import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DelayedError, UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import { LabError } from "../core/index.js";
import { describeAddressRisks } from "./address.js";
import { checkQueueReachable, openRedis, redisOptions } from "./connection.js";
import { processProof } from "./proof-job.js";
import {
  JOB_QUEUE,
  PROTOCOL_VERSION,
  proofJobSchema,
  QUEUE_PREFIX,
  trialJobSchema,
  WORKERS_KEY,
  type WorkerHeartbeat,
} from "./protocol.js";
import { HeldJobs, ping, settlesWithin, STOP_GRACE_MS, unlessAborted } from "./stopping.js";
import { processTrial } from "./trial-job.js";
import { refuse, type WorkerContext, type WorkerSettings } from "./worker-context.js";

/** What a worker did before it stopped. */
export interface WorkerSummary {
  readonly trials: number;
  readonly proofs: number;
}

/** How often a worker says it is alive in the registry. */
const HEARTBEAT_MS = 5000;

/** The key a job's work (run or gen) goes by, for refusals of jobs whose data cannot be read. */
function workKeyOf(data: unknown): string {
  const value = data as { run?: { key?: unknown }; gen?: { key?: unknown } } | null;
  const key = value?.run?.key ?? value?.gen?.key;
  return typeof key === "string" ? key : "unknown";
}

/**
 * Serves the queue until `signal` aborts (or, with `idleExitMs`, until it has been idle that
 * long): takes trial and proof jobs, `concurrency` at once, and carries them out on this
 * machine. On a stop, running jobs are cut short and handed back to the queue for another
 * worker, spending no attempt. A worker that dies instead leaves its jobs locked until the
 * lock lapses; BullMQ's stall check then hands them to another worker.
 */
export async function runWorker(
  settings: WorkerSettings,
  signal: AbortSignal,
): Promise<WorkerSummary> {
  const { address, name } = settings;
  const stopped = (what: string) =>
    new LabError("CANCELLED", `Worker ${name} was stopped while ${what}.`);
  for (const warning of [
    ...describeAddressRisks(address),
    ...(await unlessAborted(checkQueueReachable(address), signal, () =>
      stopped("reaching the queue's Redis"),
    )),
  ])
    settings.onLog("warn", warning);
  await unlessAborted(settings.sandbox.checkReady(), signal, () => stopped("checking its sandbox"));
  const redis = openRedis(address);
  const stagingRoot = path.join(
    settings.scratchRoot,
    "queue-staging",
    name.replace(/[^A-Za-z0-9._-]/g, "_"),
  );
  await rm(stagingRoot, { recursive: true, force: true });
  await mkdir(stagingRoot, { recursive: true });
  const told = new Set<string>();
  const context: WorkerContext = {
    settings,
    redis,
    stagingRoot,
    refused: new Set(),
    logOnce(level, message) {
      if (told.has(message)) return;
      told.add(message);
      settings.onLog(level, message);
    },
  };
  const heartbeat = async (): Promise<void> => {
    const beat: WorkerHeartbeat = {
      name,
      host: os.hostname(),
      pid: process.pid,
      concurrency: settings.concurrency,
      sandbox: settings.sandbox.name,
      labVersion: settings.labVersion,
      seenAt: Date.now(),
    };
    await redis.hset(WORKERS_KEY, name, JSON.stringify(beat));
  };
  const beating = setInterval(() => {
    heartbeat().catch(() => undefined);
  }, HEARTBEAT_MS);

  const stop = new AbortController();
  let active = 0;
  let lastBusyAt = Date.now();
  const done = { trials: 0, proofs: 0 };
  const handle = async (
    job: Job,
    token: string | undefined,
    jobSignal?: AbortSignal,
  ): Promise<unknown> => {
    active++;
    held.take(job.id);
    const jobStop =
      jobSignal === undefined ? stop.signal : AbortSignal.any([stop.signal, jobSignal]);
    try {
      const version = (job.data as { v?: unknown } | null)?.v;
      if (version !== PROTOCOL_VERSION)
        return await refuse(
          context,
          job,
          token,
          workKeyOf(job.data),
          `the job speaks queue protocol ${String(version)} and this worker ${String(PROTOCOL_VERSION)}: run the same lab version on the coordinator and the workers`,
        );
      if (job.name === "trial") {
        const data = trialJobSchema.safeParse(job.data);
        if (!data.success)
          throw new UnrecoverableError(`malformed trial job: ${data.error.message}`);
        const result = await processTrial(job, data.data, token, jobStop, context);
        done.trials++;
        return result;
      }
      if (job.name === "proof") {
        const data = proofJobSchema.safeParse(job.data);
        if (!data.success)
          throw new UnrecoverableError(`malformed proof job: ${data.error.message}`);
        const result = await processProof(job, data.data, token, jobStop, context);
        done.proofs++;
        return result;
      }
      throw new UnrecoverableError(`unknown job kind "${job.name}"`);
    } catch (error) {
      if (error instanceof WaitingError || error instanceof DelayedError) {
        held.release(job.id);
        throw error;
      }
      // Cut short by a stop: hand the job back untouched rather than fail an attempt.
      if (stop.signal.aborted) {
        await job.moveToWait(token);
        held.release(job.id);
        throw new WaitingError();
      }
      throw error;
    } finally {
      active--;
      lastBusyAt = Date.now();
    }
  };
  const worker = new Worker(JOB_QUEUE, handle, {
    connection: redisOptions(address),
    prefix: QUEUE_PREFIX,
    name,
    concurrency: settings.concurrency,
    lockDuration: settings.lockDurationMs,
    stalledInterval: Math.max(1000, Math.min(30_000, Math.round(settings.lockDurationMs / 2))),
    // A trial whose workers died three times is recorded as an infra error, not tried forever.
    maxStalledCount: 2,
  });
  const held = new HeldJobs(worker);
  // Connection errors while Redis restarts (the clients reconnect), and locks lost by a worker
  // too slow to renew them (another worker redoes the job; this attempt's result is dropped).
  worker.on("error", (error) => {
    context.logOnce("warn", `queue ${address.display}: ${error.message}`);
  });
  worker.on("stalled", (jobId) => {
    settings.onLog("warn", `job ${jobId}: its worker stopped renewing its lock; handed to another`);
  });
  try {
    await unlessAborted(Promise.all([heartbeat(), worker.waitUntilReady()]), signal, () =>
      stopped("waiting for the queue's Redis"),
    );
    settings.onLog(
      "info",
      `worker ${name} serves queue ${address.display}: ${String(settings.concurrency)} job(s) at once, sandbox ${settings.sandbox.name}${settings.idleExitMs === undefined ? "" : `, stops after ${String(Math.round(settings.idleExitMs / 1000))} s idle`}`,
    );
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        clearInterval(idle);
        signal.removeEventListener("abort", finish);
        resolve();
      };
      signal.addEventListener("abort", finish, { once: true });
      const idle = setInterval(() => {
        if (
          settings.idleExitMs !== undefined &&
          active === 0 &&
          Date.now() - lastBusyAt > settings.idleExitMs
        )
          finish();
      }, 500);
      if (signal.aborted) finish();
    });
    settings.onLog(
      "info",
      signal.aborted
        ? `worker ${name} stopping${active > 0 ? `: ${String(active)} running job(s) go back to the queue` : ""}`
        : `worker ${name} idle; stopping`,
    );
  } finally {
    stop.abort();
    clearInterval(beating);
    // Take no new job (a job finishing now fetches none either).
    worker.pause(true).catch(() => undefined);
    // Handing jobs back and leaving the registry need Redis, whose commands wait through an
    // outage (maxRetriesPerRequest: null): a Redis gone, hung or refusing would hold the stop
    // forever, so they get STOP_GRACE_MS. BullMQ's own close is forced (no QUIT, no wait for
    // its blocking read): what it would wait for is done by then, or given up.
    const redisSays = ping(redis);
    const giveUp = new AbortController();
    const farewell = async (): Promise<void> => {
      await held.none(giveUp.signal);
      await redis.hdel(WORKERS_KEY, name).catch(() => undefined);
      for (const key of context.refused) await redis.hdel(key, name).catch(() => undefined);
    };
    if (!(await settlesWithin(farewell(), STOP_GRACE_MS))) {
      giveUp.abort();
      const running =
        held.count > 0
          ? `; ${String(held.count)} running job(s) go to another worker once their lock lapses (--lock-duration)`
          : "";
      const grace = `${String(STOP_GRACE_MS / 1000)} s`;
      const said = redisSays();
      settings.onLog(
        "warn",
        said === "pong"
          ? `worker ${name} did not finish stopping within ${grace}: leaving${running}`
          : said === "nothing"
            ? `the queue's Redis did not answer within ${grace}: leaving without handing anything back${running}`
            : `the queue's Redis refuses this worker (${said.message}): leaving without handing anything back${running}`,
      );
    }
    await worker.close(true);
    redis.disconnect();
    await rm(stagingRoot, { recursive: true, force: true });
  }
  return done;
}
