import { z } from "zod";

/** What became of one wrong variant of a gold patch. */
export type VariantResult =
  /** The hidden tests failed it: the tests notice this wrong change. */
  | "killed"
  /** It resolved the task: the tests let a wrong change through (or it is equivalent). */
  | "survived"
  /** Its syntax tree equals the gold's (docstrings aside): not graded. */
  | "equivalent"
  /** It does not compile, or did not apply: not a variant the tests can judge. */
  | "unviable"
  /** Its grade failed for lab's or the machine's reasons. */
  | "error";

/** One wrong variant of a gold patch and its grade. */
export interface AuditVariant {
  /** "hunk-2", "mutant-5". */
  readonly id: string;
  /** A hunk of the gold patch left out, or a mutant of a line it adds. */
  readonly kind: "hunk" | "mutant";
  /** remove-hunk, swap-comparison, negate-condition, drop-statement, change-constant, change-return. */
  readonly operator: string;
  readonly file: string;
  /** The line (of the gold version of the file) the mutant changes; null for a hunk. */
  readonly line: number | null;
  readonly description: string;
  /** How the variant differs from the gold patch, as a small unified diff of the file. */
  readonly diff: string;
  readonly result: VariantResult;
  /** Why it was killed (the grade's reason), or the error. */
  readonly reason: string | null;
}

/** A task's audit outcome. */
export type AuditOutcome =
  /** Every graded variant was killed. */
  | "strong"
  /** Some variant survived: the hidden tests let a wrong change through. */
  | "weak_tests"
  /** Nothing to vary (no Python source line added, a single hunk). */
  | "no_variants"
  /** No variant could be graded. */
  | "error";

/** One task's oracle audit. */
export interface TaskAudit {
  readonly taskId: string;
  /** What the audit depends on (gold and test patches, environment, mutant count, method). */
  readonly fingerprint: string;
  readonly outcome: AuditOutcome;
  /** killed / (killed + survived); null when nothing was graded. */
  readonly score: number | null;
  readonly counts: Readonly<Record<VariantResult, number>>;
  /** Mutants the mutator made, before sampling (equivalent ones included). */
  readonly mutantsMade: number;
  readonly variants: readonly AuditVariant[];
  readonly durationMs: number;
  readonly auditedAt: string;
}

/** A suite's audit.json: written by `lab audit`, read by `lab run --strong-only`, reports and review. */
export interface AuditFile {
  readonly schemaVersion: 1;
  readonly suite: string;
  readonly labVersion: string;
  readonly updatedAt: string;
  /** Task id to its audit. */
  readonly tasks: Readonly<Record<string, TaskAudit>>;
}

const variantResult = z.enum(["killed", "survived", "equivalent", "unviable", "error"]);

/** audit.json, as stored. */
export const auditFileSchema = z.object({
  schemaVersion: z.literal(1),
  suite: z.string(),
  labVersion: z.string(),
  updatedAt: z.string(),
  tasks: z.record(
    z.string(),
    z.object({
      taskId: z.string(),
      fingerprint: z.string(),
      outcome: z.enum(["strong", "weak_tests", "no_variants", "error"]),
      score: z.number().nullable(),
      counts: z.record(variantResult, z.number()),
      mutantsMade: z.number(),
      variants: z.array(
        z.object({
          id: z.string(),
          kind: z.enum(["hunk", "mutant"]),
          operator: z.string(),
          file: z.string(),
          line: z.number().nullable(),
          description: z.string(),
          diff: z.string(),
          result: variantResult,
          reason: z.string().nullable(),
        }),
      ),
      durationMs: z.number(),
      auditedAt: z.string(),
    }),
  ),
}) satisfies z.ZodType<AuditFile>;
