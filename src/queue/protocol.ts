/**
 * What travels through the queue: job data from the coordinator, return values from workers,
 * and the names of lab's keys beside BullMQ's. Everything is plain JSON checked by a schema on
 * arrival; a worker never trusts a job's paths or a coordinator a worker's files.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { validationProofSchema, type ValidationProof } from "../core/index.js";

/** BullMQ's key prefix for lab's queue: keys are `lab:jobs:*`. */
export const QUEUE_PREFIX = "lab";
/** The one queue every run's trials and every gen's proofs go through. */
export const JOB_QUEUE = "jobs";
/** A task id or suite name as a folder name: never a path (job data names folders on workers). */
const folderName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "a folder name");

/** Version of this file's shapes; a worker refuses a job of another version. */
export const PROTOCOL_VERSION = 1;
/**
 * Events kept in BullMQ's event stream. A completed event carries its trial's files, so the
 * stream is kept short; a coordinator that misses events finds finished jobs by sweeping.
 */
export const EVENTS_MAX_LEN = 200;

/** Redis hash of live workers: name to a heartbeat (see `WorkerHeartbeat`). */
export const WORKERS_KEY = `${QUEUE_PREFIX}:workers`;
/** Redis hash of a run's or gen's refusals: worker name to why it refuses that work. */
export function refusalsKey(workKey: string): string {
  return `${QUEUE_PREFIX}:refusals:${workKey}`;
}
/** A worker whose heartbeat is older than this is gone. */
export const HEARTBEAT_STALE_MS = 30_000;

/** What a worker says about itself in the registry, every few seconds. */
export const workerHeartbeatSchema = z.object({
  name: z.string(),
  host: z.string(),
  pid: z.number(),
  concurrency: z.number(),
  sandbox: z.string(),
  labVersion: z.string(),
  seenAt: z.number(),
});
/** A worker's entry in the registry. */
export type WorkerHeartbeat = z.infer<typeof workerHeartbeatSchema>;

/**
 * How the coordinator names its tool, so every worker builds the same tool from its own
 * installation, lab.config.json and credentials: the flags of `lab run` that make a tool.
 */
export const toolRequestSchema = z.object({
  name: z.string(),
  command: z.string().optional(),
  commandEnv: z.array(z.string()).optional(),
  /** `--path`: host folders the command reads, absolute. */
  commandPaths: z.array(z.string()).optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  maxCost: z.string().optional(),
});
/** The flags of `lab run` that make its tool. */
export type ToolRequest = z.infer<typeof toolRequestSchema>;

const sourceSpecSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("tool"), request: toolRequestSchema, fingerprint: z.string() }),
  z.object({
    kind: z.literal("stated"),
    name: z.string(),
    description: z.string(),
    version: z.string(),
    fingerprint: z.string(),
    origin: z.string(),
  }),
]);

/** What every trial job of a run carries about its run (about a kilobyte). */
export const runManifestSchema = z.object({
  /** The run's queue key: its id and a hash of its creation time. */
  key: z.string(),
  runId: folderName,
  suite: folderName,
  labVersion: z.string(),
  toolVersion: z.string(),
  source: sourceSpecSchema,
  limits: z.object({
    setupMs: z.number(),
    toolMs: z.number(),
    installMs: z.number(),
    testMs: z.number(),
  }),
  network: z.boolean(),
  sandboxLimits: z.object({
    memoryMb: z.number().nullable(),
    diskMb: z.number().nullable(),
    maxProcesses: z.number().nullable(),
  }),
});
/** A run, as its trial jobs describe it. */
export type RunManifest = z.infer<typeof runManifestSchema>;

/** A trial job's data. */
export const trialJobSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("trial"),
  run: runManifestSchema,
  taskId: folderName,
  trial: z.number().int().positive(),
  /** The task's content hash on the coordinator (suite/content-hash.ts). */
  taskHash: z.string(),
  /** A stated change (predictions): the patch itself. */
  patch: z.string().optional(),
  /** Workers whose attempt ended in an infrastructure failure: others are preferred. */
  triedOn: z.array(z.string()).default([]),
  /** Times a worker put the job back for another to try. */
  deferrals: z.number().default(0),
  /** Times a worker refused the job (another suite content, tool version, lab). */
  refusals: z.number().default(0),
});
/** A trial job's data. */
export type TrialJobData = z.infer<typeof trialJobSchema>;

/** A file of a task, shipped to workers when the task was made by this gen. */
export const taskFileSchema = z.object({
  /** Relative to the suite folder: `tasks/<id>/...` or `oracle/<id>/...`. */
  path: z.string(),
  content: z.string(),
  executable: z.boolean(),
});
/** A file of a task, shipped to workers. */
export type TaskFile = z.infer<typeof taskFileSchema>;

/** What every proof job of a gen carries about its gen. */
export const genManifestSchema = z.object({
  key: z.string(),
  suite: folderName,
  labVersion: z.string(),
  testTimeoutMs: z.number(),
});
/** A gen, as its proof jobs describe it. */
export type GenManifest = z.infer<typeof genManifestSchema>;

/** A proof job's data. */
export const proofJobSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal("proof"),
  gen: genManifestSchema,
  taskId: folderName,
  taskHash: z.string(),
  /** Proof runs to make. */
  runs: z.number().int().positive(),
  /**
   * A task this gen just made: its files, and where its base repository comes from, so each
   * worker fetches its own (swebench). Without it, the worker's suite must hold the task.
   */
  task: z
    .object({
      files: z.array(taskFileSchema),
      baseRepo: z.object({ repo: z.string(), baseCommit: z.string() }).optional(),
    })
    .optional(),
  triedOn: z.array(z.string()).default([]),
  deferrals: z.number().default(0),
  refusals: z.number().default(0),
});
/** A proof job's data. */
export type ProofJobData = z.infer<typeof proofJobSchema>;

/** What a worker returns for a trial: its folder's files, packed (bundle.ts). */
export const trialReturnSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  worker: z.string(),
  bundle: z.string(),
});
/** What a worker returns for a trial. */
export type TrialReturn = z.infer<typeof trialReturnSchema>;

/** What a worker returns for a proof: the proofs, or why it could not make them, and the logs. */
export const proofReturnSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  worker: z.string(),
  proofs: z.array(validationProofSchema),
  /** A failure that decides the task (its environment cannot be built, its repository fetched). */
  failure: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The proofs' grading logs, `run<N>/<id>.gold.log` and `.empty.log`. */
  bundle: z.string(),
});
/** What a worker returns for a proof. */
export interface ProofReturn {
  readonly v: typeof PROTOCOL_VERSION;
  readonly worker: string;
  readonly proofs: readonly ValidationProof[];
  readonly failure: { readonly code: string; readonly message: string } | null;
  readonly bundle: string;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 10);
}

/** A run's queue key: the same for every invocation of one run folder, different for another run of the same id. */
export function runKeyOf(runId: string, createdAt: string): string {
  return `${runId}-${shortHash(`${runId}\0${createdAt}`)}`;
}

/** A gen's queue key: one per suite folder. */
export function genKeyOf(suite: string, suiteDir: string): string {
  return `gen-${suite}-${shortHash(suiteDir)}`;
}

/** A trial's job id: rerunning the coordinator finds the same job instead of adding another. */
export function trialJobId(runKey: string, taskId: string, trial: number): string {
  return `${runKey}.t${String(trial)}.${taskId}`;
}

/** A proof's job id; a changed task (another hash) is a new job. */
export function proofJobId(genKey: string, taskHash: string, taskId: string): string {
  return `${genKey}.p${taskHash}.${taskId}`;
}
