import {
  LabError,
  type LedgerClass,
  type LedgerFamilyVerdict,
  type LedgerProofRun,
  type LedgerProvenance,
  type LedgerRecord,
  type LedgerVerdict,
  type SwebenchProof,
  type TrialResult,
  type ValidationProof,
} from "../core/index.js";
import type { UpstreamIssue } from "../datasets/index.js";
import type { DroppedInstance } from "./swebench.js";

/**
 * Repositories this project's machines have no mirror of (too large to mirror, no GitHub):
 * their instances are `unproven: no-mirror` until a slice proves them elsewhere.
 */
export const NO_MIRROR_REPOS: readonly string[] = [
  "django/django",
  "matplotlib/matplotlib",
  "scikit-learn/scikit-learn",
];

/** A prediction family's run here and its official verdicts. */
export interface LedgerFamily {
  readonly name: string;
  /** The run's trials by task id; the first trial counts. */
  readonly results: ReadonlyMap<string, TrialResult>;
  readonly resolved: ReadonlySet<string>;
  readonly unresolved: ReadonlySet<string>;
}

/** What one slice measured, and what the ledger held before it. */
export interface LedgerSliceInput {
  /** Every instance of the dataset, with its repository: each gets a line. */
  readonly instances: readonly { readonly instance: string; readonly repo: string }[];
  /** The ledger's lines before this slice. */
  readonly previous: readonly LedgerRecord[];
  /** proof.json's instances. */
  readonly proofs: Readonly<Record<string, SwebenchProof>>;
  /** dropped.json's drops (instances gen dropped before or without a stored proof). */
  readonly dropped: readonly Pick<DroppedInstance, "instance_id" | "category" | "reason">[];
  /** The instances this slice covers; by default every one proof.json or dropped.json names. */
  readonly slice?: readonly string[] | undefined;
  readonly gold?: ReadonlyMap<string, TrialResult> | undefined;
  readonly noop?: ReadonlyMap<string, TrialResult> | undefined;
  readonly goldPredictions?: ReadonlyMap<string, TrialResult> | undefined;
  readonly families: readonly LedgerFamily[];
  readonly provenance: LedgerProvenance;
  readonly upstreamIssueOf: (instance: string) => UpstreamIssue | null;
}

/** A ledger class for one of gen's drop categories; the reason decides where it must. */
export function ledgerClassOf(
  category: DroppedInstance["category"],
  reason: string,
): { status: "dropped" | "unproven"; class: LedgerClass } {
  switch (category) {
    case "environment":
      return { status: "dropped", class: "env-build" };
    case "network":
      // The install or the tests reach a host this machine cannot (upstream's images can).
      return { status: "dropped", class: "machine-forced" };
    case "gold_fails":
      return { status: "dropped", class: "gold-fails" };
    case "passes_without_fix":
      return { status: "dropped", class: "passes-without-fix" };
    case "flaky":
      return { status: "dropped", class: "flaky" };
    case "timeout":
      return { status: "dropped", class: "timeout" };
    case "infrastructure":
      return { status: "dropped", class: "infrastructure" };
    case "no_environment":
      return { status: "dropped", class: "no-environment" };
    case "repository":
      // A copy made without large blobs (astropy's IERS tables): the reason names the files.
      return {
        status: "dropped",
        class: /lacks \d+ object\(s\)/.test(reason) ? "machine-forced" : "repository",
      };
    case "no_mirror":
      return { status: "unproven", class: "no-mirror" };
    case "out_of_scope":
    case "invalid_row":
      return { status: "unproven", class: "out-of-scope" };
    case "known_drop":
      // Left out by --skip-known-drops: unproven here, so the ledger's own line stands.
      return { status: "unproven", class: "not-yet-proven" };
  }
}

const tenths = (ms: number): number => Math.round(ms / 100) / 10;
const sum = (values: readonly number[]): number => values.reduce((total, v) => total + v, 0);

/** One proof run as the ledger states it. */
export function ledgerProofRun(run: ValidationProof): LedgerProofRun {
  const grades = [run.gold, run.empty];
  const environment = run.environmentKey ?? run.gold.environmentKey;
  return {
    outcome: run.gold.testsTimedOut
      ? "timeout"
      : !run.gold.resolved
        ? "gold-fails"
        : run.valid
          ? "proven"
          : "passes-without-fix",
    testSeconds: tenths(sum(grades.map((grade) => grade.phaseMs.tests ?? 0))),
    gradeSeconds: tenths(sum(grades.flatMap((grade) => Object.values(grade.phaseMs)))),
    environment,
    // lab's environment keys start with the interpreter's version: py3.9.18-<hash>.
    interpreter: /^py(\d+(?:\.\d+)*)-/.exec(environment ?? "")?.[1] ?? null,
  };
}

/** How a trial came out, in the ledger's words; null when there is none. */
export function ledgerVerdict(result: TrialResult | undefined): LedgerVerdict | null {
  if (result === undefined) return null;
  if (result.outcome.kind !== "graded" || result.grade === null) return "error";
  if (result.grade.resolved) return "resolved";
  return result.grade.tampering.length > 0 ? "flagged" : "unresolved";
}

function familyVerdict(family: LedgerFamily, id: string): LedgerFamilyVerdict | null {
  const lab = ledgerVerdict(family.results.get(id));
  const official = family.resolved.has(id)
    ? "resolved"
    : family.unresolved.has(id)
      ? "unresolved"
      : null;
  if (lab === null && official === null) return null;
  return {
    lab,
    official,
    agree:
      lab === null || official === null ? null : (lab === "resolved") === (official === "resolved"),
  };
}

/** The line of an instance no slice has measured. */
export function unprovenRecord(instance: string, repo: string): LedgerRecord {
  const noMirror = NO_MIRROR_REPOS.includes(repo);
  return {
    instance,
    repo,
    status: "unproven",
    class: noMirror ? "no-mirror" : "not-yet-proven",
    reason: noMirror
      ? `not proven on this project's machines: no mirror of ${repo}`
      : "not proven yet: no slice has reached it",
    upstreamIssue: null,
    proof: [],
    verdicts: null,
    provenance: null,
  };
}

const kept = (proof: SwebenchProof | undefined): boolean => proof?.kept === true;

/**
 * Why a kept instance's outcome flipped between its proof and the slice's runs, or null: gold
 * unresolved (not flagged, not an error) in the gold run although it resolved in every proof run,
 * or the empty change resolving in the noop run. gen drops an instance whose outcome flips
 * between its proof runs; the runs are more runs of the same grades.
 */
function runFlip(input: LedgerSliceInput, instance: string, proofRuns: number): string | null {
  const gold = input.gold?.get(instance);
  const noop = input.noop?.get(instance);
  if (ledgerVerdict(gold) === "unresolved")
    return `gold resolved in its ${String(proofRuns)} proof run(s) but not in the slice's gold run: ${gold?.grade?.reason ?? "unresolved"}`;
  if (ledgerVerdict(noop) === "resolved")
    return `no change failed in its ${String(proofRuns)} proof run(s) but resolved in the slice's noop run`;
  return null;
}

/** The slice's line for an instance it covers, or null when it has nothing to say of it. */
function measuredRecord(
  input: LedgerSliceInput,
  instance: string,
  repo: string,
  drops: ReadonlyMap<string, Pick<DroppedInstance, "category" | "reason">>,
): LedgerRecord | null {
  const proof = input.proofs[instance];
  const drop = drops.get(instance);
  // The stored proof is gen's verdict, made again by today's rules on every gen.
  const category = proof !== undefined ? proof.category : (drop?.category ?? null);
  const reason = proof !== undefined ? proof.reason : (drop?.reason ?? null);
  if (proof === undefined && drop === undefined) return null;
  const flip = kept(proof) ? runFlip(input, instance, proof?.runs.length ?? 0) : null;
  const base = {
    instance,
    repo,
    proof: (proof?.runs ?? []).map(ledgerProofRun),
    provenance: input.provenance,
  };
  if (flip !== null)
    return {
      ...base,
      status: "dropped",
      class: "flaky",
      reason: flip,
      upstreamIssue: null,
      verdicts: null,
    };
  if (kept(proof)) {
    return {
      ...base,
      status: "kept",
      class: null,
      reason: null,
      upstreamIssue: null,
      verdicts: {
        gold: ledgerVerdict(input.gold?.get(instance)),
        noop: ledgerVerdict(input.noop?.get(instance)),
        goldPredictions: ledgerVerdict(input.goldPredictions?.get(instance)),
        families: Object.fromEntries(
          input.families.flatMap((family) => {
            const verdict = familyVerdict(family, instance);
            return verdict === null ? [] : [[family.name, verdict] as const];
          }),
        ),
      },
    };
  }
  const judged = ledgerClassOf(category ?? "gold_fails", reason ?? "");
  const issue = judged.status === "dropped" ? input.upstreamIssueOf(instance) : null;
  return {
    ...base,
    status: judged.status,
    class: issue === null ? judged.class : "upstream-shared",
    reason: reason ?? "dropped by gen without a reason",
    upstreamIssue: issue === null ? null : { issue: issue.issue, url: issue.url },
    verdicts: null,
  };
}

/**
 * The ledger after a slice: the slice's line for each instance it covers, every other line as
 * it was, and an unproven line for an instance with neither. A slice never replaces a proven
 * line by an unproven one (a machine without the mirror keeps another's proof).
 */
export function mergeLedgerSlice(input: LedgerSliceInput): LedgerRecord[] {
  const previous = new Map(input.previous.map((record) => [record.instance, record]));
  const drops = new Map(input.dropped.map((drop) => [drop.instance_id, drop]));
  const covered = new Set(input.slice ?? [...Object.keys(input.proofs), ...drops.keys()]);
  const known = new Set(input.instances.map((entry) => entry.instance));
  const strangers = [...covered].filter((id) => !known.has(id)).sort();
  if (input.slice !== undefined && strangers.length > 0)
    throw new LabError(
      "TASK_NOT_FOUND",
      `The slice names instances the dataset does not have: ${strangers.join(", ")}.`,
      { hint: "Check --instances against the dataset file (--dataset)." },
    );
  return input.instances
    .map(({ instance, repo }) => {
      const before = previous.get(instance);
      const measured = covered.has(instance) ? measuredRecord(input, instance, repo, drops) : null;
      if (
        measured !== null &&
        (measured.status !== "unproven" || before === undefined || before.status === "unproven")
      )
        return measured;
      return before ?? unprovenRecord(instance, repo);
    })
    .sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
}
