import type { Reporter } from "../core/index.js";
import type { SwebenchRow } from "../datasets/index.js";

/** What a gen takes from lab's ledger (data/swebench/ledger/). */
export interface LedgerUse {
  /** Instances to leave out (`--skip-known-drops`), each with the ledger's reason. */
  readonly skip?: ReadonlyMap<string, string> | undefined;
  /** An instance's reference proof time in milliseconds, null when the ledger has none. */
  readonly referenceMs?: ((instance: string) => number | null) | undefined;
}

/** The rows to prove, and those the ledger drops anywhere, left out and named in the log. */
export function leaveOutKnownDrops(
  chosen: readonly SwebenchRow[],
  use: LedgerUse,
  reporter: Reporter,
): {
  rows: SwebenchRow[];
  left: { instance_id: string; repo: string; category: "known_drop"; reason: string }[];
} {
  const skip = use.skip ?? new Map<string, string>();
  const left = chosen
    .filter((row) => skip.has(row.instance_id))
    .map((row) => ({
      instance_id: row.instance_id,
      repo: row.repo,
      category: "known_drop" as const,
      reason: `left out (--skip-known-drops): the ledger drops it on any machine: ${skip.get(row.instance_id) ?? ""}`,
    }));
  if (use.skip !== undefined && left.length === 0)
    reporter.emit({
      type: "log",
      level: "info",
      message: "--skip-known-drops: the ledger drops none of these instances whatever the machine",
    });
  if (left.length > 0)
    reporter.emit({
      type: "log",
      level: "info",
      message: `--skip-known-drops: leaving out ${String(left.length)} instance(s) the ledger drops whatever the machine: ${left.map((drop) => drop.instance_id).join(", ")}`,
    });
  return { rows: chosen.filter((row) => !skip.has(row.instance_id)), left };
}

/**
 * Each chosen instance's expected proof time: its reference in the ledger, or the median of
 * the references found for the others; undefined when the ledger has none of them. Logs the
 * total over `concurrency`.
 */
export function expectedProofMs(
  chosen: readonly SwebenchRow[],
  use: LedgerUse,
  concurrency: number,
  reporter: Reporter,
): Record<string, number> | undefined {
  const referenceMs = use.referenceMs;
  if (referenceMs === undefined || chosen.length === 0) return undefined;
  const known = new Map<string, number>();
  for (const row of chosen) {
    const ms = referenceMs(row.instance_id);
    if (ms !== null) known.set(row.instance_id, ms);
  }
  if (known.size === 0) return undefined;
  const sorted = [...known.values()].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const fallback =
    sorted.length % 2 === 1
      ? (sorted[middle] ?? 0)
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  const expected = Object.fromEntries(
    chosen.map((row) => [row.instance_id, known.get(row.instance_id) ?? fallback]),
  );
  const totalMs = Object.values(expected).reduce((sum, ms) => sum + ms, 0) / concurrency;
  reporter.emit({
    type: "log",
    level: "info",
    message: `reference proof times from the ledger for ${String(known.size)} of ${String(chosen.length)} instance(s)${known.size < chosen.length ? " (the rest at their median)" : ""}: about ${formatMinutes(totalMs)} at ${String(concurrency)} at once on the reference machine`,
  });
  return expected;
}

/** 5 400 000 ms -> "1 h 30 min"; 150 000 -> "3 min". */
export function formatMinutes(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 60
    ? `${String(minutes)} min`
    : `${String(Math.floor(minutes / 60))} h ${String(minutes % 60)} min`;
}
