import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { errorMessage, LabError, type LabErrorCode, type ValidationProof } from "../core/index.js";
import type { ProofRequest, TaskProver } from "../gen/index.js";
import { writeFileAtomic } from "../store/index.js";
import { suiteDirOf, taskContentHash } from "../suite/index.js";
import { describeAddressRisks, type QueueAddress } from "./address.js";
import { unpackBundle } from "./bundle.js";
import { checkQueueReachable } from "./connection.js";
import {
  genKeyOf,
  PROTOCOL_VERSION,
  proofJobId,
  proofReturnSchema,
  type GenManifest,
  type ProofJobData,
  type TaskFile,
} from "./protocol.js";
import { COORDINATOR_STOP_GRACE_MS, stopDeadline, unlessAborted } from "./stopping.js";
import { JobTracker, sameJson, type JobEnd } from "./tracker.js";

/** How a gen proves on a queue. */
export interface QueueProverOptions {
  readonly address: QueueAddress;
  /** The suite being proven, and its folder here. */
  readonly suite: { readonly name: string; readonly dir: string };
  readonly labVersion: string;
  readonly testTimeoutMs: number;
  /** How many workers may try a proof that fails for infrastructure reasons. */
  readonly attempts: number;
  readonly signal: AbortSignal;
  readonly onLog: (level: "info" | "warn", message: string) => void;
}

/** A prover on a queue, to be closed when the gen is done. */
export interface QueueProver {
  readonly prove: TaskProver;
  /** Removes the proofs no worker has taken when the gen was stopped, and closes the queue. */
  close(): Promise<void>;
}

const KEEP_FINISHED_S = 7 * 24 * 3600;

/** Every file of a task's task and oracle folders, relative to the suite folder. */
async function taskFiles(request: ProofRequest): Promise<TaskFile[]> {
  const suiteDir = suiteDirOf(request.task);
  const files: TaskFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile())
        files.push({
          path: path.relative(suiteDir, full).split(path.sep).join("/"),
          content: await readFile(full, "utf8"),
          executable: ((await stat(full)).mode & 0o111) !== 0,
        });
    }
  };
  await walk(request.task.dir);
  await walk(request.task.oracleDir);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Opens a prover whose proofs run on the workers of a queue: one job per task, named by the
 * suite folder and the task's content, so a rerun of the gen finds its jobs again. Logs come
 * back into `logDirOf(run)` here, as a local proof writes them.
 */
export async function openQueueProver(options: QueueProverOptions): Promise<QueueProver> {
  const { address } = options;
  for (const warning of [...describeAddressRisks(address), ...(await checkQueueReachable(address))])
    options.onLog("warn", warning);
  const gen: GenManifest = {
    key: genKeyOf(options.suite.name, options.suite.dir),
    suite: options.suite.name,
    labVersion: options.labVersion,
    testTimeoutMs: options.testTimeoutMs,
  };
  const tracker = await JobTracker.open(
    address,
    gen.key,
    {
      onRefusal: (worker, message) => {
        options.onLog("warn", `worker ${worker} refuses this gen's proofs: ${message}`);
      },
      onNoWorker: () => {
        options.onLog(
          "warn",
          `no worker serves queue ${address.display}; start one: lab worker --queue URL`,
        );
      },
    },
    options.signal,
  );
  const deadline = stopDeadline(options.signal, COORDINATOR_STOP_GRACE_MS);
  const interrupted = (): Error => new LabError("CANCELLED", "The gen was interrupted.");
  options.onLog(
    "info",
    `proofs go to queue ${address.display}, up to ${String(options.attempts)} attempt(s) each`,
  );
  const pending = new Set<(error: Error) => void>();
  const onAbort = (): void => {
    for (const reject of pending) reject(interrupted());
  };
  options.signal.addEventListener("abort", onAbort, { once: true });

  /** Adds the proof's job unless Redis holds it as this gen describes it. */
  const queueProof = async (id: string, data: ProofJobData): Promise<void> => {
    const [state] = (await tracker.states([id])).values();
    if (state === "failed") await tracker.remove(id);
    // Queued by a gen of another lab version, test timeout or number of proof runs: workers
    // of this version would refuse it, or prove it otherwise than asked.
    const outdated =
      state !== "unknown" &&
      state !== "failed" &&
      (await tracker.replaceOutdated(
        id,
        (queued) => sameJson(queued, gen, "gen") && sameJson(queued, data.runs, "runs"),
      ));
    if (outdated)
      options.onLog(
        "info",
        `${data.taskId}: replacing its proof job queued by an earlier gen with other settings`,
      );
    if (state === "unknown" || state === "failed" || outdated)
      await tracker.add([
        {
          id,
          name: "proof",
          data,
          opts: {
            attempts: options.attempts,
            backoff: { type: "fixed", delay: 2000 },
            removeOnComplete: { age: KEEP_FINISHED_S },
            removeOnFail: { age: KEEP_FINISHED_S },
          },
        },
      ]);
  };

  const prove: TaskProver = async (request) => {
    const taskHash = await taskContentHash(request.task);
    const id = proofJobId(gen.key, taskHash, request.task.info.id);
    const data: ProofJobData = {
      v: PROTOCOL_VERSION,
      kind: "proof",
      gen,
      taskId: request.task.info.id,
      taskHash,
      runs: request.runs,
      ...(request.baseRepo === undefined
        ? {}
        : { task: { files: await taskFiles(request), baseRepo: request.baseRepo } }),
      triedOn: [],
      deferrals: 0,
      refusals: 0,
    };
    // Its commands wait while Redis is gone or hung: a stop does not wait with them.
    await unlessAborted(queueProof(id, data), options.signal, interrupted);
    return new Promise<ValidationProof[]>((resolve, reject) => {
      if (options.signal.aborted) {
        reject(interrupted());
        return;
      }
      pending.add(reject);
      tracker.watch(id, async (end) => {
        try {
          resolve(await collectProof(end, request, id));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        } finally {
          pending.delete(reject);
          await tracker.remove(id).catch(() => undefined);
        }
      });
    });
  };
  return {
    prove,
    async close() {
      options.signal.removeEventListener("abort", onAbort);
      try {
        if (options.signal.aborted) {
          const withdrawn = await tracker.withdrawBy(deadline());
          if (withdrawn === null)
            options.onLog(
              "warn",
              `the queue's Redis did not answer within ${String(COORDINATOR_STOP_GRACE_MS / 1000)} s: this gen's proof jobs stay queued, and rerunning the gen collects them`,
            );
          else
            options.onLog(
              "info",
              `removed ${String(withdrawn.removed)} waiting proof job(s) from the queue${withdrawn.running > 0 ? `; ${String(withdrawn.running)} under way on workers are collected by rerunning the gen` : ""}`,
            );
        }
      } finally {
        await tracker.close();
      }
    },
  };
}

/** The proofs a finished job holds, its logs written where a local proof would write them. */
async function collectProof(
  end: JobEnd,
  request: ProofRequest,
  id: string,
): Promise<ValidationProof[]> {
  if (end.state === "failed") {
    throw new LabError(
      "QUEUE_UNAVAILABLE",
      `The workers could not prove ${request.task.info.id}: ${end.job.failedReason || "the job failed"} (after ${String(end.job.attemptsMade)} attempt(s); last on worker ${end.job.processedBy ?? "?"}).`,
    );
  }
  let sent;
  try {
    sent = proofReturnSchema.parse(end.job.returnvalue);
  } catch (error) {
    throw new LabError(
      "QUEUE_UNAVAILABLE",
      `Proof job ${id} came back malformed: ${errorMessage(error)}.`,
    );
  }
  for (const file of await unpackBundle(sent.bundle)) {
    const match = /^run(\d+)\/([^/]+)$/.exec(file.path);
    if (match === null) continue;
    await writeFileAtomic(path.join(request.logDirOf(Number(match[1])), match[2] ?? ""), file.data);
  }
  if (sent.failure !== null) {
    throw new LabError(
      sent.failure.code as LabErrorCode,
      `${sent.failure.message} (on worker ${sent.worker})`,
    );
  }
  if (sent.proofs.length !== request.runs)
    throw new LabError(
      "QUEUE_UNAVAILABLE",
      `Proof job ${id} came back with ${String(sent.proofs.length)} of ${String(request.runs)} proof runs.`,
    );
  return sent.proofs;
}
