import type { Worker } from "bullmq";
import type { Redis } from "ioredis";

/**
 * How long a stopping worker waits for its running jobs to stop and for Redis to take them
 * back; past it the worker leaves anyway (SIGTERM must stop a worker whose Redis is gone,
 * hung or refusing), and its jobs go to another worker once their lock lapses.
 */
export const STOP_GRACE_MS = 10_000;

/**
 * The jobs a worker holds: from its handler's start until BullMQ has recorded how they ended
 * (completed or failed in Redis, or handed back by the handler). A stop waits until none is
 * left before it closes BullMQ's connections.
 */
export class HeldJobs {
  readonly #ids = new Set<string>();

  /** Watches `worker`'s records of finished jobs. */
  constructor(worker: Worker) {
    const release = (job: { id?: string | undefined } | undefined): void => {
      if (job?.id !== undefined) this.#ids.delete(job.id);
    };
    worker.on("completed", release);
    worker.on("failed", release);
  }

  /** A handler took `id`. */
  take(id: string | undefined): void {
    if (id !== undefined) this.#ids.add(id);
  }

  /** The handler put `id` back itself (moved it to waiting or delayed): nothing follows. */
  release(id: string | undefined): void {
    if (id !== undefined) this.#ids.delete(id);
  }

  /** How many jobs are held. */
  get count(): number {
    return this.#ids.size;
  }

  /** Resolves once no job is held, or once `until` aborts. */
  async none(until: AbortSignal): Promise<void> {
    while (this.#ids.size > 0 && !until.aborted)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `promise`, or the error `stopped` makes as soon as `signal` aborts: what a worker awaits
 * before it serves may wait on a Redis that never answers, and a stop must not wait with it.
 */
export async function unlessAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  stopped: () => Error,
): Promise<T> {
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      reject(stopped());
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // The abandoned promise may still fail later (its client is closed): nobody waits for it.
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/**
 * How long a stopping coordinator (`lab run --queue`, `lab gen --queue`) waits for Redis to
 * take its waiting jobs back and for the results being written; past it the coordinator
 * leaves anyway (its jobs stay queued, and a rerun collects them).
 */
export const COORDINATOR_STOP_GRACE_MS = 5000;

/** When a stop must be done by (`Date.now()` ms): `grace` after `signal` aborts, Infinity before. */
export function stopDeadline(signal: AbortSignal, grace: number): () => number {
  let at = signal.aborted ? Date.now() + grace : Infinity;
  signal.addEventListener(
    "abort",
    () => {
      at = Date.now() + grace;
    },
    { once: true },
  );
  return () => at;
}

/** Whether `promise` settles (either way) within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends Redis a PING; the function returned tells what Redis said so far. */
export function ping(redis: Redis): () => "nothing" | "pong" | Error {
  let said: "nothing" | "pong" | Error = "nothing";
  redis.ping().then(
    () => {
      said = "pong";
    },
    (error: unknown) => {
      said = error instanceof Error ? error : new Error(String(error));
    },
  );
  return () => said;
}
