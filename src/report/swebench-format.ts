/**
 * `lab report --format swebench`: upstream SWE-bench's run report, field by field, as
 * `make_run_report` (swebench/harness/reporting.py, swebench 5.0.2 on PyPI, the same file as
 * the repository's HEAD 7a21e05) writes it. test/report/swebench-format.test.ts checks it
 * against that function's output on the same inputs
 * (test/fixtures/swebench/run-report-reference.py).
 */
import type { RunRecord, TrialResult } from "../core/index.js";

/** A run report in upstream SWE-bench's schema (schema_version 2), in its key order. */
export interface SwebenchRunReport {
  readonly total_instances: number;
  readonly submitted_instances: number;
  readonly completed_instances: number;
  readonly resolved_instances: number;
  readonly unresolved_instances: number;
  readonly infra_failure_instances: number;
  readonly ambiguous_failure_instances: number;
  readonly empty_patch_instances: number;
  readonly error_instances: number;
  readonly completed_ids: string[];
  readonly incomplete_ids: string[];
  readonly empty_patch_ids: string[];
  readonly submitted_ids: string[];
  readonly resolved_ids: string[];
  readonly unresolved_ids: string[];
  readonly infra_failure_ids: string[];
  readonly ambiguous_failure_ids: string[];
  readonly failure_reasons: Record<string, string>;
  readonly error_ids: string[];
  readonly schema_version: 2;
}

/**
 * Upstream's infrastructure failure signatures (swebench/harness/infra_failure.py,
 * INFRA_FAILURE_SIGNATURES): reason, tier, pattern, matched in order over the logs of an
 * unresolved or errored instance; the first hit wins. Advisory: a flagged instance stays where it was.
 */
const SIGNATURES: readonly (readonly [string, "environment" | "ambiguous", RegExp])[] = [
  ["browser_launch_failed", "environment", /Failed to launch|Failed to connect to the bus/m],
  [
    "display_unavailable",
    "environment",
    /cannot open display|Missing X server|unable to open X display/m,
  ],
  ["out_of_memory", "environment", /Cannot allocate memory|OutOfMemoryError|^Killed$/m],
  [
    "container_unavailable",
    "environment",
    /Error response from daemon|Cannot connect to the Docker daemon/m,
  ],
  [
    "network_unreachable",
    "environment",
    /Could not resolve host|Temporary failure in name resolution/m,
  ],
  ["missing_module", "ambiguous", /Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError/m],
  ["no_tests_collected", "ambiguous", /no tests ran|collected 0 items/m],
  ["tests_timed_out", "ambiguous", /Timeout error: \d+ seconds exceeded/m],
];

/** Upstream's classify_text: the first signature a log matches, or null. */
export function classifyInfraFailure(
  text: string,
): { reason: string; tier: "environment" | "ambiguous" } | null {
  if (text === "") return null;
  for (const [reason, tier, pattern] of SIGNATURES) if (pattern.test(text)) return { reason, tier };
  return null;
}

/**
 * Whether upstream would have written the instance's report.json: the change applied, the tests
 * ran to the end, and no infrastructure error stopped the grade. Without it, upstream counts
 * the instance an error.
 */
function isCompleted(result: TrialResult): boolean {
  return (
    result.outcome.kind !== "infra_error" &&
    result.grade !== null &&
    result.grade.patchApplied &&
    !result.grade.testsTimedOut
  );
}

/**
 * A run's first trials as upstream's run report. Each task's first trial is its prediction (an
 * empty change is upstream's empty model_patch); the dataset is the suite's tasks and the run's;
 * an instance without a prediction is incomplete, one whose grade did not run to a verdict an
 * error; `logs` (task id to its grader log) feeds upstream's advisory failure classification.
 */
export function renderSwebenchReport(
  record: RunRecord,
  results: readonly TrialResult[],
  suiteTaskIds: readonly string[],
  logs: ReadonlyMap<string, string> = new Map(),
): SwebenchRunReport {
  const sorted = (ids: Iterable<string>): string[] => [...new Set(ids)].sort();
  const predictions = new Map<string, TrialResult>();
  for (const result of results) if (result.trial === 1) predictions.set(result.taskId, result);
  const dataset = sorted([...suiteTaskIds, ...record.taskIds]);
  const incomplete: string[] = [];
  const empty: string[] = [];
  const completed: string[] = [];
  const resolved: string[] = [];
  const unresolved: string[] = [];
  const errors: string[] = [];
  for (const id of dataset) {
    const prediction = predictions.get(id);
    if (prediction === undefined) {
      incomplete.push(id);
      continue;
    }
    if (prediction.patchEmpty === true) {
      empty.push(id);
      continue;
    }
    if (!isCompleted(prediction)) {
      errors.push(id);
      continue;
    }
    completed.push(id);
    (prediction.resolved === true ? resolved : unresolved).push(id);
  }
  const infra: string[] = [];
  const ambiguous: string[] = [];
  const reasons: Record<string, string> = {};
  for (const id of sorted([...unresolved, ...errors])) {
    const found = classifyInfraFailure(logs.get(id) ?? "");
    if (found === null) continue;
    reasons[id] = found.reason;
    (found.tier === "environment" ? infra : ambiguous).push(id);
  }
  return {
    total_instances: dataset.length,
    submitted_instances: predictions.size,
    completed_instances: completed.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    infra_failure_instances: infra.length,
    ambiguous_failure_instances: ambiguous.length,
    empty_patch_instances: empty.length,
    error_instances: errors.length,
    completed_ids: sorted(completed),
    incomplete_ids: sorted(incomplete),
    empty_patch_ids: sorted(empty),
    submitted_ids: sorted(predictions.keys()),
    resolved_ids: sorted(resolved),
    unresolved_ids: sorted(unresolved),
    infra_failure_ids: sorted(infra),
    ambiguous_failure_ids: sorted(ambiguous),
    failure_reasons: reasons,
    error_ids: sorted(errors),
    schema_version: 2,
  };
}
