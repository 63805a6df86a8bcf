import { ledgerProofSeconds, type LedgerRecord } from "../core/index.js";
import { median, percentile } from "./stats.js";

/** The markers between which the tier README's ledger section is generated. */
export const LEDGER_MARKERS = {
  start: "<!-- ledger:start -->",
  end: "<!-- ledger:end -->",
} as const;

/** One dataset's ledger, as the section shows it. */
export interface LedgerOfDataset {
  /** "Lite", "Verified". */
  readonly title: string;
  readonly records: readonly LedgerRecord[];
}

/** The figures of one set of lines: proof seconds per instance, and test seconds. */
export interface ProofFigures {
  /** Instances with proof runs. */
  readonly measured: number;
  readonly medianSeconds: number;
  readonly p90Seconds: number;
  /** All the proofs' grade seconds over all their test-process seconds. */
  readonly proofTestRatio: number;
}

/** Figures of the lines that have proof runs; null when none has. */
export function proofFigures(records: readonly LedgerRecord[]): ProofFigures | null {
  const seconds = records.flatMap((record) => {
    const value = ledgerProofSeconds(record);
    return value === null ? [] : [value];
  });
  if (seconds.length === 0) return null;
  const tests = records.flatMap((record) => record.proof.map((run) => run.testSeconds));
  const testSum = tests.reduce((total, value) => total + value, 0);
  return {
    measured: seconds.length,
    medianSeconds: median(seconds),
    p90Seconds: percentile(seconds, 90),
    proofTestRatio: seconds.reduce((total, value) => total + value, 0) / testSum,
  };
}

/** How long a cold gen of every instance would take on `cores` cores, and from what. */
export interface GenEstimate {
  readonly hours: number;
  /** Instances counted at their own proof time. */
  readonly measured: number;
  /** Instances counted at their repository's median. */
  readonly byRepository: number;
  /** Instances counted at the median of every measured one. */
  readonly byOverall: number;
}

/**
 * A cold gen's time: the sum of the instances' proof seconds over `cores` (the gen proves that
 * many at once); an instance never proven counts at its repository's median, or the overall one.
 */
export function estimateColdGen(
  records: readonly LedgerRecord[],
  cores: number,
): GenEstimate | null {
  const byRepo = new Map<string, number[]>();
  const all: number[] = [];
  for (const record of records) {
    const value = ledgerProofSeconds(record);
    if (value === null) continue;
    byRepo.set(record.repo, [...(byRepo.get(record.repo) ?? []), value]);
    all.push(value);
  }
  if (all.length === 0) return null;
  const overall = median(all);
  let total = 0;
  let measured = 0;
  let byRepository = 0;
  for (const record of records) {
    const own = ledgerProofSeconds(record);
    const repo = byRepo.get(record.repo);
    if (own !== null) {
      total += own;
      measured++;
    } else if (repo !== undefined) {
      total += median(repo);
      byRepository++;
    } else total += overall;
  }
  return {
    hours: total / cores / 3600,
    measured,
    byRepository,
    byOverall: records.length - measured - byRepository,
  };
}

const seconds = (value: number): string => value.toFixed(1);
const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function proofTable(datasets: readonly LedgerOfDataset[]): string[] {
  const lines = [
    "| dataset | repository | instances | kept | dropped | unproven | proof s, median | proof s, p90 | proof/test |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const { title, records } of datasets) {
    const repos = [...new Set(records.map((record) => record.repo))].sort();
    const row = (label: string, subset: readonly LedgerRecord[]): string => {
      const figures = proofFigures(subset);
      const count = (status: LedgerRecord["status"]): string =>
        String(subset.filter((record) => record.status === status).length);
      return `| ${title} | ${label} | ${String(subset.length)} | ${count("kept")} | ${count("dropped")} | ${count("unproven")} | ${figures === null ? "–" : seconds(figures.medianSeconds)} | ${figures === null ? "–" : seconds(figures.p90Seconds)} | ${figures === null ? "–" : figures.proofTestRatio.toFixed(2)} |`;
    };
    for (const repo of repos)
      lines.push(
        row(
          repo,
          records.filter((record) => record.repo === repo),
        ),
      );
    lines.push(row("**all**", records));
  }
  return lines;
}

function dropList(datasets: readonly LedgerOfDataset[]): string[] {
  const rows = datasets.flatMap(({ title, records }) =>
    records
      .filter((record) => record.status === "dropped")
      .map((record) => {
        const issue =
          record.upstreamIssue === null
            ? ""
            : ` Upstream's harness too: [${record.upstreamIssue.issue}](${record.upstreamIssue.url}).`;
        const reason = (record.reason ?? "").trim();
        const stop = issue === "" || /[.!?]$/.test(reason) ? "" : ".";
        return `| ${title} | \`${record.instance}\` | ${record.class ?? ""} | ${cell(reason)}${stop}${issue} |`;
      }),
  );
  return [
    "| dataset | dropped instance | class | why |",
    "|---|---|---|---|",
    ...(rows.length === 0 ? ["| (none) | | | |"] : rows),
  ];
}

function verdictLines(datasets: readonly LedgerOfDataset[]): string[] {
  const lines: string[] = [];
  const families = new Map<
    string,
    { title: string; both: number; agree: number; here: number; there: number; off: string[] }
  >();
  for (const { title, records } of datasets) {
    const kept = records.filter((record) => record.status === "kept");
    if (kept.length === 0) {
      lines.push(`- ${title}: no kept task yet.`);
      continue;
    }
    const tally = (
      pick: (record: LedgerRecord) => string | null | undefined,
      value: string,
    ): number => kept.filter((record) => pick(record) === value).length;
    const graded = (pick: (record: LedgerRecord) => string | null | undefined): number =>
      kept.filter((record) => (pick(record) ?? null) !== null).length;
    const gold = (record: LedgerRecord): string | null | undefined => record.verdicts?.gold;
    const noop = (record: LedgerRecord): string | null | undefined => record.verdicts?.noop;
    const asPredictions = (record: LedgerRecord): string | null | undefined =>
      record.verdicts?.goldPredictions;
    const same = kept.filter(
      (record) =>
        (record.verdicts?.goldPredictions ?? null) !== null &&
        record.verdicts?.goldPredictions === record.verdicts?.gold,
    ).length;
    // A kept task that gold does not resolve, or noop does, is named: a rate alone hides it.
    const misses = (
      pick: (record: LedgerRecord) => string | null | undefined,
      bad: (v: string) => boolean,
    ): string[] =>
      kept.flatMap((record) => {
        const verdict = pick(record) ?? null;
        return verdict !== null && bad(verdict) ? [`\`${record.instance}\` (${verdict})`] : [];
      });
    const goldMisses = misses(gold, (verdict) => verdict !== "resolved");
    const noopHits = misses(noop, (verdict) => verdict === "resolved");
    lines.push(
      `- ${title}, ${String(kept.length)} kept: gold resolves ${String(tally(gold, "resolved"))} of ${String(graded(gold))} graded (flagged ${String(tally(gold, "flagged"))}); noop resolves ${String(tally(noop, "resolved"))} of ${String(graded(noop))}; gold as predictions resolves ${String(tally(asPredictions, "resolved"))} of ${String(graded(asPredictions))}, the same verdict as gold on ${String(same)}.${goldMisses.length === 0 ? "" : ` Gold does not resolve ${goldMisses.join(", ")}.`}${noopHits.length === 0 ? "" : ` Noop resolves ${noopHits.join(", ")}.`}`,
    );
    for (const record of kept) {
      for (const [name, verdict] of Object.entries(record.verdicts?.families ?? {})) {
        if (verdict.agree === null) continue;
        const key = `${title}\u0000${name}`;
        const entry = families.get(key) ?? { title, both: 0, agree: 0, here: 0, there: 0, off: [] };
        entry.both++;
        if (verdict.agree) entry.agree++;
        else
          entry.off.push(
            `\`${record.instance}\` (here ${verdict.lab ?? "–"}, officially ${verdict.official ?? "–"})`,
          );
        if (verdict.lab === "resolved") entry.here++;
        if (verdict.official === "resolved") entry.there++;
        families.set(key, entry);
      }
    }
  }
  lines.push(
    "",
    "| dataset | predictions | graded here and officially | agree | resolved here / officially | disagreements |",
    "|---|---|---:|---:|---:|---|",
  );
  const rows = [...families].sort(([a], [b]) => a.localeCompare(b));
  for (const [key, entry] of rows) {
    const name = key.split("\u0000")[1] ?? key;
    lines.push(
      `| ${entry.title} | ${name} | ${String(entry.both)} | ${String(entry.agree)} (${((100 * entry.agree) / entry.both).toFixed(1)}%) | ${String(entry.here)} / ${String(entry.there)} | ${entry.off.length === 0 ? "none" : entry.off.join(", ")} |`,
    );
  }
  if (rows.length === 0) lines.push("| (none graded yet) | | | | | |");
  return lines;
}

function provenanceLines(datasets: readonly LedgerOfDataset[]): string[] {
  const slices = new Map<string, number>();
  for (const { title, records } of datasets) {
    for (const record of records) {
      if (record.provenance === null) continue;
      const { date, labCommit, cores, loadAverage } = record.provenance;
      const source =
        record.carriedFrom === undefined ? "" : ` (carried from ${record.carriedFrom})`;
      const key = `| ${title}${source} | ${date} | \`${labCommit}\` | ${String(cores)} | ${loadAverage.toFixed(2)} |`;
      slices.set(key, (slices.get(key) ?? 0) + 1);
    }
  }
  return [
    "| dataset | slice started | lab commit | cores | load average | lines |",
    "|---|---|---|---:|---:|---:|",
    ...[...slices]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, lines]) => `${key} ${String(lines)} |`),
    ...(slices.size === 0 ? ["| (no slice yet) | | | | | |"] : []),
  ];
}

/** The tier README's ledger section, markers included: what is proven, the drops, the verdicts. */
export function renderLedgerSection(datasets: readonly LedgerOfDataset[], cores = 2): string {
  if (datasets.every(({ records }) => records.length === 0))
    return [
      LEDGER_MARKERS.start,
      "",
      "_Generated from `data/swebench/ledger/` by `npm run ledger -- --readme`: no slice has been written into the ledger yet._",
      "",
      LEDGER_MARKERS.end,
    ].join("\n");
  const figures = datasets.map(({ title, records }) => {
    const own = proofFigures(records);
    const estimate = estimateColdGen(records, cores);
    const carried = new Map<string, number>();
    for (const record of records)
      if (record.carriedFrom !== undefined)
        carried.set(record.carriedFrom, (carried.get(record.carriedFrom) ?? 0) + 1);
    const carriedNote = [...carried]
      .map(
        ([from, count]) =>
          ` ${String(count)} of its lines are carried from the ${from} ledger: the same instance in both datasets (base commit, patches, test lists, version, environment commit and problem statement), proven there.`,
      )
      .join("");
    if (own === null || estimate === null)
      return `- ${title}: no proof measured yet.${carriedNote}`;
    return `- ${title}: cold proof seconds per instance (both proof runs, every grade phase) median ${seconds(own.medianSeconds)}, p90 ${seconds(own.p90Seconds)}, over ${String(own.measured)} instances; proof/test ratio ${own.proofTestRatio.toFixed(2)} (the grades' seconds over their test processes'). A cold gen of all ${String(records.length)} on ${String(cores)} cores: about ${estimate.hours.toFixed(1)} h (${String(estimate.measured)} at their own time, ${String(estimate.byRepository)} at their repository's median, ${String(estimate.byOverall)} at the overall median; the sum of proof seconds over ${String(cores)} proofs at once, clones and rendering not counted).${carriedNote}`;
  });
  return [
    LEDGER_MARKERS.start,
    "",
    "_Generated from `data/swebench/ledger/` by `npm run ledger -- --readme`; edit the ledger, not this section._",
    "",
    "#### Proven here",
    "",
    ...proofTable(datasets),
    "",
    ...figures,
    "",
    "#### Dropped",
    "",
    ...dropList(datasets),
    "",
    "#### Verdicts over kept tasks",
    "",
    ...verdictLines(datasets),
    "",
    "#### Slices",
    "",
    ...provenanceLines(datasets),
    "",
    LEDGER_MARKERS.end,
  ].join("\n");
}

/** A README's text with its ledger section replaced (or appended when it has none). */
export function replaceLedgerSection(text: string, section: string): string {
  const start = text.indexOf(LEDGER_MARKERS.start);
  const end = text.indexOf(LEDGER_MARKERS.end, start);
  return start >= 0 && end > start
    ? `${text.slice(0, start)}${section}${text.slice(end + LEDGER_MARKERS.end.length)}`
    : `${text.trimEnd()}\n\n## The ledger\n\n${section}\n`;
}
