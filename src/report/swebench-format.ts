import type { RunRecord, TrialResult } from "../core/index.js";

/** A run report in upstream SWE-bench's schema (schema_version 2), for instance-by-instance comparison. */
export interface SwebenchRunReport {
  readonly total_instances: number;
  readonly submitted_instances: number;
  readonly completed_instances: number;
  readonly resolved_instances: number;
  readonly unresolved_instances: number;
  readonly empty_patch_instances: number;
  readonly error_instances: number;
  readonly completed_ids: string[];
  readonly incomplete_ids: string[];
  readonly empty_patch_ids: string[];
  readonly submitted_ids: string[];
  readonly resolved_ids: string[];
  readonly unresolved_ids: string[];
  readonly error_ids: string[];
  readonly schema_version: 2;
}

/**
 * Maps a run's first trials onto upstream's categories: an empty patch is `empty_patch`; a patch
 * that did not apply, tests that timed out, or an infrastructure error is an `error` (upstream
 * writes no report.json for those); the rest are completed, resolved or unresolved.
 */
export function renderSwebenchReport(
  record: RunRecord,
  results: readonly TrialResult[],
  suiteTaskIds: readonly string[],
): SwebenchRunReport {
  const first = results.filter((result) => result.trial === 1);
  const sorted = (ids: string[]): string[] => [...new Set(ids)].sort();
  const submitted = sorted(first.map((result) => result.taskId));
  const empty = sorted(
    first.filter((result) => result.patchEmpty === true).map((result) => result.taskId),
  );
  const errors = sorted(
    first
      .filter((result) => result.patchEmpty !== true)
      .filter(
        (result) =>
          result.outcome.kind === "infra_error" ||
          result.grade?.patchApplied === false ||
          result.grade?.testsTimedOut === true,
      )
      .map((result) => result.taskId),
  );
  const completed = sorted(submitted.filter((id) => !empty.includes(id) && !errors.includes(id)));
  const resolved = sorted(
    first
      .filter((result) => completed.includes(result.taskId) && result.resolved === true)
      .map((result) => result.taskId),
  );
  const unresolved = completed.filter((id) => !resolved.includes(id));
  const total = sorted([...suiteTaskIds, ...record.taskIds]);
  return {
    total_instances: total.length,
    submitted_instances: submitted.length,
    completed_instances: completed.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    empty_patch_instances: empty.length,
    error_instances: errors.length,
    completed_ids: completed,
    incomplete_ids: total.filter((id) => !completed.includes(id)),
    empty_patch_ids: empty,
    submitted_ids: submitted,
    resolved_ids: resolved,
    unresolved_ids: unresolved,
    error_ids: errors,
    schema_version: 2,
  };
}
