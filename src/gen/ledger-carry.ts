import { formatLedger, type LedgerRecord } from "../core/index.js";
import { readRowsFile } from "../datasets/index.js";
import { writeFileAtomic } from "../store/index.js";
import { unprovenRecord } from "./ledger.js";
import { readLedgerFile } from "./ledger-slice.js";

/**
 * The fields of a SWE-bench row that make an instance what it is for a proof: the same values
 * in two datasets make the same task, proven once. The dataset's own extras (Verified's
 * difficulty, Lite's created_at) do not matter.
 */
export const SAME_INSTANCE_FIELDS = [
  "repo",
  "base_commit",
  "patch",
  "test_patch",
  "FAIL_TO_PASS",
  "PASS_TO_PASS",
  "version",
  "environment_setup_commit",
  "problem_statement",
] as const;

/** Where a dataset's lines may be carried from, and where they go. */
export interface LedgerCarryOptions {
  /** The dataset whose ledger gets the lines (e.g. Verified's parquet). */
  readonly datasetFile: string;
  /** Its ledger file: read, then replaced. */
  readonly out: string;
  /** The dataset the proofs were made on (e.g. Lite's parquet). */
  readonly fromDatasetFile: string;
  /** Its ledger file. */
  readonly fromLedger: string;
  /** The name the carried lines give their source ("lite"). */
  readonly fromName: string;
}

/** What a carry did. */
export interface LedgerCarrySummary {
  readonly records: LedgerRecord[];
  /** Lines now carried from the other ledger. */
  readonly carried: number;
  /** Instances in both datasets whose rows differ: never carried. */
  readonly differing: readonly string[];
}

/** A row's identity over SAME_INSTANCE_FIELDS, as one string. */
function identityOf(row: Record<string, unknown>): string {
  return JSON.stringify(SAME_INSTANCE_FIELDS.map((field) => row[field] ?? null));
}

async function rowsById(file: string): Promise<Map<string, Record<string, unknown>>> {
  const rows = (await readRowsFile(file)) as Record<string, unknown>[];
  return new Map(
    rows.flatMap((row) =>
      typeof row.instance_id === "string" ? [[row.instance_id, row] as const] : [],
    ),
  );
}

/**
 * Carries proven lines from another dataset's ledger into this one, for instances whose rows
 * are the same task in both (every field of SAME_INSTANCE_FIELDS equal): Verified shares 93 of
 * Lite's instances, and a proof of one is a proof of the other. A line this dataset proved
 * itself is never replaced; a line carried before is carried again (its source may have been
 * proven again since), or made unproven when its source no longer holds. Prediction families
 * are not carried: their official verdicts belong to the other dataset's runs.
 */
export async function carryLedgerLines(options: LedgerCarryOptions): Promise<LedgerCarrySummary> {
  const [rows, fromRows, previous, fromLines] = await Promise.all([
    rowsById(options.datasetFile),
    rowsById(options.fromDatasetFile),
    readLedgerFile(options.out),
    readLedgerFile(options.fromLedger),
  ]);
  const fromLine = new Map(fromLines.map((record) => [record.instance, record]));
  const line = new Map(previous.map((record) => [record.instance, record]));
  const differing: string[] = [];
  let carried = 0;
  const records = [...rows].map(([instance, row]): LedgerRecord => {
    const own = line.get(instance) ?? unprovenRecord(instance, String(row.repo));
    const provedHere = own.provenance !== null && own.carriedFrom === undefined;
    const fromRow = fromRows.get(instance);
    if (provedHere || fromRow === undefined) return own;
    const wasCarried = own.carriedFrom !== undefined;
    const sameTask = identityOf(row) === identityOf(fromRow);
    if (!sameTask) differing.push(instance);
    const source = fromLine.get(instance);
    if (!sameTask || source === undefined || source.provenance === null)
      return wasCarried ? unprovenRecord(instance, String(row.repo)) : own;
    carried++;
    return {
      ...source,
      verdicts: source.verdicts === null ? null : { ...source.verdicts, families: {} },
      carriedFrom: options.fromName,
    };
  });
  await writeFileAtomic(options.out, formatLedger(records));
  return { records, carried, differing };
}
