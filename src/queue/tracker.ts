import { Job, Queue, QueueEvents, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { LabError } from "../core/index.js";
import type { QueueAddress } from "./address.js";
import { openRedis, redisOptions } from "./connection.js";
import {
  EVENTS_MAX_LEN,
  HEARTBEAT_STALE_MS,
  JOB_QUEUE,
  QUEUE_PREFIX,
  refusalsKey,
  WORKERS_KEY,
  workerHeartbeatSchema,
  type WorkerHeartbeat,
} from "./protocol.js";
import { settlesWithin, unlessAborted } from "./stopping.js";

/** A job to put on the queue. */
export interface JobSpec {
  readonly id: string;
  readonly name: "trial" | "proof";
  readonly data: unknown;
  readonly opts?: JobsOptions;
}

/** How a watched job ended, and when the tracker began fetching it (`performance.now()`). */
export interface JobEnd {
  readonly state: "completed" | "failed";
  readonly job: Job;
  readonly fetchStartedAt: number;
}

/** What the tracker tells its owner as it goes. */
export interface TrackerHooks {
  /** A watched job was taken by a worker. */
  onActive?(id: string): void;
  /** A watched job reported a phase (`job.updateProgress({ phase })`). */
  onProgress?(id: string, progress: unknown): void;
  /** A watched job is gone from Redis (lost with a Redis that kept no data): add it again. */
  onMissing?(id: string): Promise<void>;
  /** A worker refuses this work (`refusalsKey`): told once per worker and message. */
  onRefusal?(worker: string, message: string): void;
  /** No live worker has been seen for a while: told once until one shows up. */
  onNoWorker?(): void;
}

/** How often finished jobs are looked for beyond the events, and watched ones checked to exist. */
const SWEEP_MS = 3000;
const EXISTENCE_EVERY = 10;

/**
 * The coordinator's side of the queue: adds jobs, and calls each watched job's handler once
 * when it completes or fails for good. Events make that prompt; a sweep of the finished sets
 * every few seconds makes it sure (events are trimmed, or missed across a Redis restart or a
 * coordinator restart), and a rarer check re-adds a watched job that vanished.
 */
export class JobTracker {
  readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly redis: Redis;
  private readonly watched = new Map<string, (end: JobEnd) => Promise<void>>();
  private readonly handling = new Set<string>();
  /** Jobs whose events came while they were being looked at: looked at again after. */
  private readonly recheck = new Set<string>();
  private sweeping = false;
  private readonly seenRefusals = new Set<string>();
  private failure: Error | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sweeps = 0;
  private lastWorkerSeenAt = Date.now();
  private toldNoWorker = false;
  private wake: (() => void) | null = null;

  private constructor(
    address: QueueAddress,
    private readonly workKey: string,
    private readonly hooks: TrackerHooks,
  ) {
    const connection = redisOptions(address);
    this.queue = new Queue(JOB_QUEUE, {
      connection,
      prefix: QUEUE_PREFIX,
      streams: { events: { maxLen: EVENTS_MAX_LEN } },
    });
    this.events = new QueueEvents(JOB_QUEUE, { connection, prefix: QUEUE_PREFIX });
    this.redis = openRedis(address);
    // Connection errors while Redis restarts: the clients reconnect and the sweep catches up.
    this.queue.on("error", () => undefined);
    this.events.on("error", () => undefined);
    this.events.on("completed", ({ jobId }) => {
      this.settle(jobId);
    });
    this.events.on("failed", ({ jobId }) => {
      this.settle(jobId);
    });
    this.events.on("active", ({ jobId }) => {
      if (this.watched.has(jobId)) hooks.onActive?.(jobId);
    });
    this.events.on("progress", ({ jobId, data }) => {
      if (this.watched.has(jobId)) hooks.onProgress?.(jobId, data);
    });
  }

  /**
   * Opens the queue for the work named `workKey` (a run's or a gen's key); a stop (`signal`)
   * while Redis has not answered yet closes it and throws CANCELLED.
   */
  static async open(
    address: QueueAddress,
    workKey: string,
    hooks: TrackerHooks,
    signal: AbortSignal,
  ): Promise<JobTracker> {
    const tracker = new JobTracker(address, workKey, hooks);
    try {
      await unlessAborted(
        Promise.all([tracker.queue.waitUntilReady(), tracker.events.waitUntilReady()]),
        signal,
        () => new LabError("CANCELLED", `Stopped while waiting for the queue's Redis.`),
      );
    } catch (error) {
      await tracker.close();
      throw error;
    }
    tracker.timer = setInterval(() => {
      void tracker.sweep();
    }, SWEEP_MS);
    return tracker;
  }

  /** Each job's state: "unknown" for one Redis does not hold. */
  async states(ids: readonly string[]): Promise<Map<string, string>> {
    const states = new Map<string, string>();
    for (let start = 0; start < ids.length; start += 500) {
      const batch = ids.slice(start, start + 500);
      const found = await Promise.all(batch.map((id) => this.queue.getJobState(id)));
      batch.forEach((id, i) => states.set(id, found[i] ?? "unknown"));
    }
    return states;
  }

  /** Adds jobs; a job whose id Redis already holds is left as it is. */
  async add(specs: readonly JobSpec[]): Promise<void> {
    for (let start = 0; start < specs.length; start += 500) {
      await this.queue.addBulk(
        specs.slice(start, start + 500).map((spec) => ({
          name: spec.name,
          data: spec.data,
          opts: { ...spec.opts, jobId: spec.id },
        })),
      );
    }
  }

  /** Fetches a job, or undefined when Redis does not hold it. */
  async job(id: string): Promise<Job | undefined> {
    return Job.fromId(this.queue, id);
  }

  /** Removes a job (a leftover, or one collected). */
  async remove(id: string): Promise<void> {
    await this.queue.remove(id);
  }

  /**
   * Removes a job an earlier invocation queued with other data (the tool or lab upgraded
   * since, other limits or proof runs): workers that match this invocation would refuse it,
   * or do other work than asked, so it is to be queued again as this invocation describes it.
   * `isCurrent` tells whether a queued job's data is this invocation's. A job a worker holds
   * for a moment while refusing it is waited for; one that stays active is running (its
   * worker matched) and is left to finish, as is one finished already. Says whether the job
   * was removed.
   */
  async replaceOutdated(id: string, isCurrent: (data: unknown) => boolean): Promise<boolean> {
    const job = await this.job(id);
    if (job === undefined || isCurrent(job.data)) return false;
    let current = await this.queue.getJobState(id);
    for (let tries = 0; current === "active" && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await this.queue.getJobState(id);
    }
    if (current === "active" || current === "completed" || current === "failed") return false;
    try {
      await this.remove(id);
      return true;
    } catch {
      return false; // taken by a worker meanwhile: it runs, or its refusal shows
    }
  }

  /** Calls `onEnd` once when the job completes or fails for good; the job may be finished already. */
  watch(id: string, onEnd: (end: JobEnd) => Promise<void>): void {
    this.watched.set(id, onEnd);
    this.settle(id);
  }

  /** How many watched jobs have not ended. */
  get outstanding(): number {
    return this.watched.size;
  }

  /** Looks at one watched job and hands it to its handler if it has ended. */
  private settle(id: string): void {
    const onEnd = this.watched.get(id);
    if (onEnd === undefined) return;
    if (this.handling.has(id)) {
      this.recheck.add(id);
      return;
    }
    this.handling.add(id);
    void (async () => {
      try {
        const fetchStartedAt = performance.now();
        const ended = await this.queue.getJobState(id);
        if (ended !== "completed" && ended !== "failed") return;
        const job = await Job.fromId(this.queue, id);
        if (job === undefined) return;
        this.watched.delete(id);
        await onEnd({ state: ended, job, fetchStartedAt });
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
      } finally {
        this.handling.delete(id);
        if (this.recheck.delete(id)) this.settle(id);
        this.wake?.();
      }
    })();
  }

  /** Finds watched jobs that ended without an event reaching us; checks that the rest exist. */
  private async sweep(): Promise<void> {
    // Commands wait while Redis is away: one sweep at a time, not a pile of them.
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const finished = await this.queue.getRanges(["completed", "failed"], 0, -1);
      for (const id of finished) if (this.watched.has(id)) this.settle(id);
      if (++this.sweeps % EXISTENCE_EVERY === 0 && this.hooks.onMissing !== undefined) {
        const ids = [...this.watched.keys()].filter((id) => !this.handling.has(id));
        const states = await this.states(ids);
        for (const [id, state] of states) {
          if (state === "unknown" && this.watched.has(id)) await this.hooks.onMissing(id);
        }
      }
      await this.checkRefusals();
      await this.checkWorkers();
    } catch {
      // Redis is away (restarting): the next sweep tries again.
    } finally {
      this.sweeping = false;
    }
  }

  private async checkRefusals(): Promise<void> {
    if (this.hooks.onRefusal === undefined || this.watched.size === 0) return;
    const refusals = await this.redis.hgetall(refusalsKey(this.workKey));
    // A worker that died without clearing its refusals refuses nothing any more.
    const live = new Set((await liveWorkers(this.redis)).map((worker) => worker.name));
    for (const [worker, message] of Object.entries(refusals)) {
      if (!live.has(worker)) continue;
      const key = `${worker}\0${message}`;
      if (this.seenRefusals.has(key)) continue;
      this.seenRefusals.add(key);
      this.hooks.onRefusal(worker, message);
    }
  }

  private async checkWorkers(): Promise<void> {
    if (this.hooks.onNoWorker === undefined || this.watched.size === 0) return;
    if ((await liveWorkers(this.redis)).length > 0) {
      this.lastWorkerSeenAt = Date.now();
      this.toldNoWorker = false;
    } else if (!this.toldNoWorker && Date.now() - this.lastWorkerSeenAt > 10_000) {
      this.toldNoWorker = true;
      this.hooks.onNoWorker();
    }
  }

  /** Forgets the work's refusals: they were about jobs replaced since. */
  async clearRefusals(): Promise<void> {
    await this.redis.del(refusalsKey(this.workKey));
    this.seenRefusals.clear();
  }

  /** The live workers, by their heartbeats. */
  async workers(): Promise<WorkerHeartbeat[]> {
    return liveWorkers(this.redis);
  }

  /**
   * Waits until every watched job has been handled, or `signal` aborts; rethrows the first
   * failure of a handler (writing a result failed).
   */
  async settled(signal: AbortSignal, deadline: () => number): Promise<void> {
    while (this.watched.size > 0 || this.handling.size > 0) {
      if (this.failure !== null) throw this.failure;
      // Stopped: results being written still land, and nothing more is waited for; a handler
      // held by a Redis gone or hung is left behind at `deadline` (its result.json is written
      // atomically, or not at all, and a rerun collects it).
      if (signal.aborted && (this.handling.size === 0 || Date.now() >= deadline())) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          this.wake = null;
          resolve();
        };
        const timer = setTimeout(done, 1000);
        this.wake = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
    if (this.failure !== null) throw this.failure;
  }

  /**
   * Removes the watched jobs no worker has taken (waiting, delayed, prioritized) and stops
   * watching them; returns how many were removed and how many are under way on workers.
   */
  async withdraw(): Promise<{ removed: number; running: number }> {
    let removed = 0;
    let running = 0;
    const states = await this.states([...this.watched.keys()]);
    for (const [id, state] of states) {
      if (state === "active") {
        running++;
        continue;
      }
      if (state === "completed" || state === "failed") continue;
      try {
        await this.queue.remove(id);
        removed++;
      } catch {
        running++; // taken by a worker between the two calls
      }
    }
    return { removed, running };
  }

  /**
   * `withdraw`, unless Redis has not done it by `deadline` (`Date.now()` ms: it is gone, hung
   * or refusing): then null, and the jobs stay queued.
   */
  async withdrawBy(deadline: number): Promise<{ removed: number; running: number } | null> {
    let withdrawn: { removed: number; running: number } | null = null;
    const done = this.withdraw().then((result) => {
      withdrawn = result;
    });
    await settlesWithin(done, Math.max(0, deadline - Date.now()));
    return withdrawn;
  }

  /**
   * Stops sweeping and closes the connections at once. BullMQ's own close waits on QUIT and on
   * the end of its clients, which never comes for a client waiting to reconnect (ioredis
   * #1247, #1830): with Redis gone, hung or refusing it would never return. Nothing the
   * tracker wrote waits in them (each command was awaited), so they are closed by force.
   */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    // Marks the events as closing so their read loop stops; its own wait is not awaited.
    this.events.close().catch(() => undefined);
    await Promise.all([
      this.events.backend.close(true).catch(() => undefined),
      this.queue.backend.close(true).catch(() => undefined),
    ]);
    this.redis.disconnect();
  }
}

/** Workers whose heartbeat is fresh. */
export async function liveWorkers(redis: Redis): Promise<WorkerHeartbeat[]> {
  const entries = await redis.hgetall(WORKERS_KEY);
  const now = Date.now();
  const live: WorkerHeartbeat[] = [];
  for (const value of Object.values(entries)) {
    try {
      const beat = workerHeartbeatSchema.parse(JSON.parse(value));
      if (now - beat.seenAt < HEARTBEAT_STALE_MS) live.push(beat);
    } catch {
      // a foreign or older entry: not a worker of this lab
    }
  }
  return live;
}

/** Whether `data[field]` is, as JSON, the same as `value`. */
export function sameJson(data: unknown, value: unknown, field: string): boolean {
  const held = (data as Record<string, unknown> | null | undefined)?.[field];
  return JSON.stringify(held) === JSON.stringify(value);
}
