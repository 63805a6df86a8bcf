import { runPool } from "../../core/index.js";

/** How `runWithQuotas` schedules. */
export interface QuotaPoolOptions<T> {
  /** Items run at once. */
  readonly limit: number;
  /** The class an item counts against. */
  readonly classOf: (item: T) => string;
  /** Kept items allowed per class; a class not named here (or null: every class) has no quota. */
  readonly quotas: Readonly<Record<string, number>> | null;
  /** Once aborted, no new item starts. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs `work` over `items` in order, `limit` at once, keeping each class within its quota of
 * kept items (`work` resolves true when it kept its item). An item starts only while its class's
 * kept items and those in flight are under the quota, so the first items in order fill it; while
 * items in flight could still be dropped and free a place, later items of that class wait and
 * other classes go ahead. Returns the items never started. Stops as `runPool` does: nothing new
 * starts after an abort or a failure, and the failure is thrown once the started items settle.
 */
export async function runWithQuotas<T>(
  items: readonly T[],
  options: QuotaPoolOptions<T>,
  work: (item: T) => Promise<boolean>,
): Promise<T[]> {
  const pending = [...items];
  const kept = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let running = 0;
  let failed = false;
  let wake: (() => void)[] = [];
  const isFull = (name: string): boolean => {
    const limit = options.quotas?.[name];
    return limit !== undefined && (kept.get(name) ?? 0) >= limit;
  };
  const pick = (): T | "wait" | null => {
    for (const [index, item] of pending.entries()) {
      const name = options.classOf(item);
      const limit = options.quotas?.[name];
      if (limit === undefined || (kept.get(name) ?? 0) + (inFlight.get(name) ?? 0) < limit) {
        pending.splice(index, 1);
        return item;
      }
    }
    return running > 0 && pending.some((item) => !isFull(options.classOf(item))) ? "wait" : null;
  };
  const runOne = async (): Promise<void> => {
    while (options.signal?.aborted !== true && !failed) {
      const item = pick();
      if (item === null) return;
      if (item === "wait") {
        await new Promise<void>((resolve) => wake.push(resolve));
        continue;
      }
      const name = options.classOf(item);
      inFlight.set(name, (inFlight.get(name) ?? 0) + 1);
      running++;
      try {
        if (await work(item)) kept.set(name, (kept.get(name) ?? 0) + 1);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        inFlight.set(name, (inFlight.get(name) ?? 1) - 1);
        running--;
        const waiting = wake;
        wake = [];
        for (const resolve of waiting) resolve();
      }
      return;
    }
  };
  // One turn per item: each turn takes whichever item the quotas allow when it starts, not a
  // fixed one, so an item waiting on its class's quota never holds up the other classes.
  await runPool(
    items.map(() => null),
    options.limit,
    runOne,
    options.signal,
  );
  return pending;
}
