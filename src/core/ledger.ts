import { z } from "zod";
import { LabError } from "./errors.js";

/**
 * Why an instance is dropped or not yet proven, in a word. `upstream-shared` and the classes of
 * the tests themselves (flaky, gold-fails, passes-without-fix) hold on any machine;
 * `machine-forced`, `env-build`, `timeout` and `infrastructure` are this machine's.
 */
export const LEDGER_CLASSES = [
  "upstream-shared",
  "machine-forced",
  "flaky",
  "gold-fails",
  "passes-without-fix",
  "env-build",
  "timeout",
  "infrastructure",
  "no-environment",
  "repository",
  "out-of-scope",
  "no-mirror",
  "not-yet-proven",
] as const;

/** Why an instance is dropped or unproven. */
export type LedgerClass = (typeof LEDGER_CLASSES)[number];

/** How a graded trial came out, as the ledger states it. */
export const LEDGER_VERDICTS = ["resolved", "unresolved", "flagged", "error"] as const;

/** How a graded trial came out: flagged is unresolved for tampering; error is no grade at all. */
export type LedgerVerdict = (typeof LEDGER_VERDICTS)[number];

const verdictSchema = z.enum(LEDGER_VERDICTS).nullable();

/** One proof run of an instance: the gold patch and no change, graded. */
export const ledgerProofRunSchema = z.object({
  /** proven: gold resolves and no change fails; else what went wrong first. */
  outcome: z.enum(["proven", "gold-fails", "passes-without-fix", "timeout"]),
  /** Seconds of the two grades' test processes. */
  testSeconds: z.number(),
  /** Seconds of the two grades, every phase. */
  gradeSeconds: z.number(),
  /** lab's environment cache key (`py<version>-<hash>`). */
  environment: z.string().nullable(),
  /** The CPython version that ran the tests. */
  interpreter: z.string().nullable(),
});

/** One published prediction family's verdict on an instance, here and officially. */
export const ledgerFamilyVerdictSchema = z.object({
  lab: verdictSchema,
  official: z.enum(["resolved", "unresolved"]).nullable(),
  /** Both graded it and agree (resolved or not); null when one did not grade it. */
  agree: z.boolean().nullable(),
});

/** Where and when a line was measured. */
export const ledgerProvenanceSchema = z.object({
  /** lab's git commit that proved and graded. */
  labCommit: z.string(),
  /** When the slice started (ISO). */
  date: z.string(),
  cores: z.number().int().positive(),
  /** The 1-minute load average when the slice started. */
  loadAverage: z.number(),
});

/** One instance's line in `data/swebench/ledger/<dataset>.jsonl`. */
export const ledgerRecordSchema = z.object({
  instance: z.string(),
  repo: z.string(),
  status: z.enum(["kept", "dropped", "unproven"]),
  /** Null when kept. */
  class: z.enum(LEDGER_CLASSES).nullable(),
  /** Why, in words (gen's own reason); null when kept. */
  reason: z.string().nullable(),
  /** The public upstream issue reporting the same trouble in upstream's harness. */
  upstreamIssue: z.object({ issue: z.string(), url: z.string() }).nullable(),
  /** Each proof run, in order; empty when none ran. */
  proof: z.array(ledgerProofRunSchema),
  /** Verdicts of the runs over kept tasks; null when not kept or not graded. */
  verdicts: z
    .object({
      gold: verdictSchema,
      noop: verdictSchema,
      goldPredictions: verdictSchema,
      families: z.record(z.string(), ledgerFamilyVerdictSchema),
    })
    .nullable(),
  /** Null for a line no slice has measured. */
  provenance: ledgerProvenanceSchema.nullable(),
  /**
   * The ledger this line is copied from (`lite`) when the instance is the same task there
   * (`carryLedgerLines`); absent when this dataset's own slice measured it.
   */
  carriedFrom: z.string().optional(),
});

/** One proof run of an instance in the ledger. */
export type LedgerProofRun = z.output<typeof ledgerProofRunSchema>;
/** A prediction family's verdicts on one instance. */
export type LedgerFamilyVerdict = z.output<typeof ledgerFamilyVerdictSchema>;
/** Where and when a ledger line was measured. */
export type LedgerProvenance = z.output<typeof ledgerProvenanceSchema>;
/** One instance's line in the ledger. */
export type LedgerRecord = z.output<typeof ledgerRecordSchema>;

/**
 * Classes that hold wherever the instance is proven: `lab gen --skip-known-drops` leaves these
 * out.
 */
export const MACHINE_INDEPENDENT_CLASSES: readonly LedgerClass[] = ["upstream-shared"];

/** Seconds of an instance's whole proof (every run's grades), null when none ran. */
export function ledgerProofSeconds(record: LedgerRecord): number | null {
  if (record.proof.length === 0) return null;
  return record.proof.reduce((sum, run) => sum + run.gradeSeconds, 0);
}

const LEDGER_HINT =
  "The ledger is written by `npm run ledger` (data/swebench/README.md): restore the file from git, or write the slice again.";

/** Parses a ledger file's text: one record per non-empty line; errors name the line. */
export function parseLedger(text: string, file: string): LedgerRecord[] {
  return text
    .split("\n")
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== "")
    .map(({ line, number }) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (error) {
        throw new LabError("DATASET_INVALID", `${file}:${String(number)} is not JSON.`, {
          hint: LEDGER_HINT,
          cause: error,
        });
      }
      const parsed = ledgerRecordSchema.safeParse(raw);
      if (!parsed.success)
        throw new LabError(
          "DATASET_INVALID",
          `${file}:${String(number)} is not a ledger record: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}.`,
          { hint: LEDGER_HINT },
        );
      return parsed.data;
    });
}

/** A ledger file's text: records sorted by instance id, one JSON object a line. */
export function formatLedger(records: readonly LedgerRecord[]): string {
  return [...records]
    .sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0))
    .map((record) => `${JSON.stringify(ledgerRecordSchema.parse(record))}\n`)
    .join("");
}
