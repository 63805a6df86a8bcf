import { availableParallelism } from "node:os";

interface Waiter {
  readonly grant: () => void;
}

let maxConcurrentProcesses = availableParallelism();
let runningCount = 0;
const waiters: Waiter[] = [];

/** Caps how many `limited` subprocesses run at once (default: os.availableParallelism()). */
export function setMaxConcurrentProcesses(count: number): void {
  if (!Number.isInteger(count) || count < 1) {
    throw new TypeError(
      `setMaxConcurrentProcesses: expected a positive integer, got ${String(count)}.`,
    );
  }
  maxConcurrentProcesses = count;
  grantWaiting();
}

/**
 * Waits for a process slot; resolves to its release function, or to undefined when `signal`
 * aborts first. Release is idempotent.
 */
export function acquireProcessSlot(signal?: AbortSignal): Promise<(() => void) | undefined> {
  if (signal?.aborted === true) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      const index = waiters.indexOf(waiter);
      if (index !== -1) waiters.splice(index, 1);
      resolve(undefined);
    };
    const waiter: Waiter = {
      grant: () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(createRelease());
      },
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    waiters.push(waiter);
    grantWaiting();
  });
}

function createRelease(): () => void {
  let isReleased = false;
  return () => {
    if (isReleased) return;
    isReleased = true;
    runningCount--;
    grantWaiting();
  };
}

function grantWaiting(): void {
  while (runningCount < maxConcurrentProcesses) {
    const waiter = waiters.shift();
    if (waiter === undefined) return;
    runningCount++;
    waiter.grant();
  }
}
