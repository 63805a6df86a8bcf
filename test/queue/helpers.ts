import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Queue } from "bullmq";
import { JOB_QUEUE, QUEUE_PREFIX } from "../../src/queue/index.js";
import { startLab, waitFor, type LabProcess } from "../helpers/lab-process.js";
import type { RedisServer } from "../helpers/redis.js";

/** The command that fixes a fixture task (`add` subtracts), then dawdles `seconds`. */
export function fixAndSleep(seconds: number): string {
  return `sed -i 's/a - b/a + b/' src/*/__init__.py; sleep ${String(seconds)}`;
}

/** Starts `lab worker` on `redis`, its scratch folder its own, and waits until it serves. */
export async function startWorker(
  root: string,
  redis: RedisServer,
  name: string,
  options: {
    evalsDir: string;
    config?: string;
    lockDuration?: string;
    /** A lab cache of its own (environments are built where the worker is). */
    cacheDir?: string;
    args?: readonly string[];
    env?: Record<string, string>;
  },
): Promise<LabProcess> {
  const worker = startLab(
    [
      "worker",
      "--queue",
      redis.url,
      "--name",
      name,
      "--lock-duration",
      options.lockDuration ?? "5s",
      "--evals-dir",
      options.evalsDir,
      ...(options.config === undefined ? [] : ["--config", options.config]),
      ...(options.args ?? []),
    ],
    {
      cwd: root,
      env: {
        LAB_SCRATCH_DIR: path.join(root, "scratch", name),
        ...(options.cacheDir === undefined ? {} : { LAB_CACHE_DIR: options.cacheDir }),
        ...options.env,
      },
    },
  );
  await waitFor(() => worker.stderr().includes("serves queue"), 60_000, `worker ${name} to start`);
  return worker;
}

/** Stops workers (Ctrl-C) and waits for them. */
export async function stopAll(processes: readonly LabProcess[]): Promise<void> {
  for (const process of processes)
    if (process.child.exitCode === null) process.child.kill("SIGINT");
  await Promise.all(processes.map((process) => process.exited));
}

/** How many times a worker's log says it started `taskId`'s first trial of run `runId`. */
export function starts(workers: readonly LabProcess[], runId: string, taskId: string): number {
  return workers
    .map((worker) => worker.stderr().split(`${runId}: ${taskId} #1: started`).length - 1)
    .reduce((a, b) => a + b, 0);
}

/** What the tests read of a result.json. */
export interface StoredTrial {
  readonly resolved: boolean | null;
  readonly outcome: { readonly kind: string; readonly message?: string };
}

/**
 * The trial records of a run: task id to its trial numbers' result.json, parsed. A task
 * appears once one of its trials has its result.json (result.json is a trial's last file).
 */
export function results(runDir: string): Record<string, Record<string, StoredTrial>> {
  const found: Record<string, Record<string, StoredTrial>> = {};
  const trials = path.join(runDir, "trials");
  if (!existsSync(trials)) return found;
  for (const task of readdirSync(trials)) {
    const byTrial: Record<string, StoredTrial> = {};
    for (const trial of readdirSync(path.join(trials, task))) {
      const file = path.join(trials, task, trial, "result.json");
      if (existsSync(file)) byTrial[trial] = JSON.parse(readFileSync(file, "utf8")) as StoredTrial;
    }
    if (Object.keys(byTrial).length > 0) found[task] = byTrial;
  }
  return found;
}

/** The lines of a run's results.jsonl index. */
export function indexLines(runDir: string): number {
  const file = path.join(runDir, "results.jsonl");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

/** A BullMQ handle on lab's queue, to look at job counts from a test. */
export function inspectQueue(redis: RedisServer): Queue {
  const queue = new Queue(JOB_QUEUE, {
    connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null },
    prefix: QUEUE_PREFIX,
  });
  // While Redis restarts: the client reconnects by itself.
  queue.on("error", () => undefined);
  return queue;
}
