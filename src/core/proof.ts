import { z } from "zod";
import { environmentSpecSchema, gradeSchema } from "./schemas.js";
import type { EnvironmentSpec, Grade } from "./types.js";

/** Why a proven SWE-bench instance was not kept. */
export const DROP_CATEGORIES = [
  "environment",
  "network",
  "gold_fails",
  "passes_without_fix",
  "flaky",
  "timeout",
  "infrastructure",
  "no_environment",
  "repository",
] as const;

/** Why a proven SWE-bench instance was not kept. */
export type DropCategory = (typeof DROP_CATEGORIES)[number];

/** Evidence that a task is gradable: gold resolves it, and with no change its FAIL_TO_PASS tests fail. */
export interface ValidationProof {
  /** The task proven. */
  readonly taskId: string;
  /** Gold resolves it, and with no change some FAIL_TO_PASS test fails. */
  readonly valid: boolean;
  /** Why it is not valid, when it is not. */
  readonly reason: string | null;
  /** Listed FAIL_TO_PASS tests that pass without the fix (a valid task may have some). */
  readonly passWithoutFix?: readonly string[] | undefined;
  /** The grade of the gold patch. */
  readonly gold: Grade;
  /** The grade of an empty change. */
  readonly empty: Grade;
  /** The environment cache key the grades used. */
  readonly environmentKey: string | null;
  /** The lab that proved it. */
  readonly labVersion: string;
}

/** The proof of one SWE-bench instance, as `lab gen --suite swebench` stores it to resume. */
export interface SwebenchProof {
  /** What the proof depends on: it is reused only while this is unchanged. */
  readonly fingerprint: string;
  /** Proven every run, and kept. */
  readonly kept: boolean;
  /** Why it was dropped, when it was. */
  readonly reason: string | null;
  readonly category: DropCategory | null;
  /** One proof per proof run (none when the proof could not run). */
  readonly runs: readonly ValidationProof[];
}

/** One proof run of a mined change, without its test statuses. */
export interface RepoProofRun {
  /** The tests timed out with the gold patch. */
  readonly goldTimedOut: boolean;
  /** The tests timed out with no change. */
  readonly beforeTimedOut: boolean;
  /** The environment cache key the grades used. */
  readonly environmentKey: string | null;
  /** Milliseconds of the two grades. */
  readonly durationMs: number;
}

/** The proof of one mined change, as `lab gen --from-repo` stores it to resume. */
export interface RepoTaskProof {
  /** What the proof depends on: it is reused only while this is unchanged. */
  readonly fingerprint: string;
  /** Proven every run, and kept. */
  readonly kept: boolean;
  /** Why it was dropped, in a word (`install`, `flaky`, ...), when it was. */
  readonly category: string | null;
  /** Why it was dropped, when it was. */
  readonly reason: string | null;
  /** The FAIL_TO_PASS tests the proof found (empty when dropped). */
  readonly failToPass: readonly string[];
  /** The PASS_TO_PASS tests the proof found (empty when dropped). */
  readonly passToPass: readonly string[];
  /** Tests that fail with and without the fix; left out of both lists. */
  readonly failing: readonly string[];
  /** The environment inferred for its base commit; null when none could be. */
  readonly environment: EnvironmentSpec | null;
  /** How the environment was inferred. */
  readonly notes: readonly string[];
  readonly runs: readonly RepoProofRun[];
}

/**
 * A suite's proof.json. Each gen writes its own part: proving an existing suite writes `suite`,
 * `labVersion`, `provenAt` and `proofs`; `--suite swebench` writes `instances`; `--from-repo`
 * writes `tasks`.
 */
export interface ProofFile {
  /** The suite proven (proving an existing suite). */
  readonly suite?: string | undefined;
  /** The lab that proved it (proving an existing suite). */
  readonly labVersion?: string | undefined;
  /** ISO time of the proof. */
  readonly provenAt?: string | undefined;
  /** Proofs of an existing suite's tasks, in the order proven. */
  readonly proofs?: readonly ValidationProof[] | undefined;
  /** SWE-bench instance id to its proof. */
  readonly instances?: Readonly<Record<string, SwebenchProof>> | undefined;
  /** Mined task id to its proof. */
  readonly tasks?: Readonly<Record<string, RepoTaskProof>> | undefined;
}

/** One proof of a task, as stored in proof.json and as a queue worker sends it back. */
export const validationProofSchema = z.object({
  taskId: z.string(),
  valid: z.boolean(),
  reason: z.string().nullable(),
  passWithoutFix: z.array(z.string()).optional(),
  gold: gradeSchema,
  empty: gradeSchema,
  environmentKey: z.string().nullable(),
  labVersion: z.string(),
}) satisfies z.ZodType<ValidationProof>;

const swebenchProofSchema = z.object({
  fingerprint: z.string(),
  kept: z.boolean(),
  reason: z.string().nullable(),
  category: z.enum(DROP_CATEGORIES).nullable(),
  runs: z.array(validationProofSchema),
}) satisfies z.ZodType<SwebenchProof>;

const repoTaskProofSchema = z.object({
  fingerprint: z.string(),
  kept: z.boolean(),
  category: z.string().nullable(),
  reason: z.string().nullable(),
  failToPass: z.array(z.string()),
  passToPass: z.array(z.string()),
  failing: z.array(z.string()),
  environment: environmentSpecSchema.nullable(),
  notes: z.array(z.string()),
  runs: z.array(
    z.object({
      goldTimedOut: z.boolean(),
      beforeTimedOut: z.boolean(),
      environmentKey: z.string().nullable(),
      durationMs: z.number(),
    }),
  ),
}) satisfies z.ZodType<RepoTaskProof>;

/** `proof.json`: written by `lab gen`, read back through this schema by every reader. */
export const proofFileSchema = z.object({
  suite: z.string().optional(),
  labVersion: z.string().optional(),
  provenAt: z.string().optional(),
  proofs: z.array(validationProofSchema).optional(),
  instances: z.record(z.string(), swebenchProofSchema).optional(),
  tasks: z.record(z.string(), repoTaskProofSchema).optional(),
}) satisfies z.ZodType<ProofFile>;
