import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  ledgerProofSeconds,
  MACHINE_INDEPENDENT_CLASSES,
  parseLedger,
  type LedgerRecord,
} from "../../core/index.js";
import { SWEBENCH_DATA_DIR } from "./data.js";

/** The ledger's folder, shipped with lab: one `<dataset>.jsonl` per dataset. */
export const LEDGER_DIR = path.join(SWEBENCH_DATA_DIR, "ledger");

/** The ledger's datasets, in file order. */
export const LEDGER_DATASETS = ["lite", "verified"] as const;

const loaded = new Map<string, ReadonlyMap<string, LedgerRecord>>();

/**
 * Every ledger line lab ships (or of `dir`), by instance id. An instance in both datasets has
 * the same row in each; the line with proof runs wins, then Lite's.
 */
export function ledgerLines(dir: string = LEDGER_DIR): ReadonlyMap<string, LedgerRecord> {
  const cached = loaded.get(dir);
  if (cached !== undefined) return cached;
  const lines = new Map<string, LedgerRecord>();
  for (const dataset of LEDGER_DATASETS) {
    const file = path.join(dir, `${dataset}.jsonl`);
    if (!existsSync(file)) continue;
    for (const record of parseLedger(readFileSync(file, "utf8"), file)) {
      const before = lines.get(record.instance);
      if (before === undefined || (before.proof.length === 0 && record.proof.length > 0))
        lines.set(record.instance, record);
    }
  }
  loaded.set(dir, lines);
  return lines;
}

/** The reference proof time of an instance in milliseconds (both runs' grades), if the ledger has one. */
export function referenceProofMs(instance: string, dir?: string): number | null {
  const record = ledgerLines(dir).get(instance);
  const seconds = record === undefined ? null : ledgerProofSeconds(record);
  return seconds === null ? null : Math.round(seconds * 1000);
}

/**
 * Instances the ledger drops for a reason that holds on any machine (upstream shares the
 * trouble), with that reason: proving them again would only drop them again.
 */
export function knownDrops(dir?: string): ReadonlyMap<string, LedgerRecord> {
  return new Map(
    [...ledgerLines(dir)].filter(
      ([, record]) =>
        record.status === "dropped" &&
        record.class !== null &&
        MACHINE_INDEPENDENT_CLASSES.includes(record.class),
    ),
  );
}
