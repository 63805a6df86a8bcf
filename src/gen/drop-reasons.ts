import type { DropCategory, Grade, ValidationProof } from "../core/index.js";

/** Signs in a test log that the tests tried to reach the internet. */
const NETWORK_SIGNS =
  /Name or service not known|Temporary failure in name resolution|Network is unreachable|Max retries exceeded|ConnectionError|Failed to establish a new connection|nodename nor servname/;

/**
 * setuptools' words when an install's own download at build time failed (easy_install,
 * setup_requires, astropy's ah_bootstrap): what it fetched and from where.
 */
const BUILD_DOWNLOAD_FAILED = /Failed to download and\/or install '([^']+)' from '([^']+)'/;

function failing(results: Readonly<Record<string, boolean>>): string[] {
  return Object.entries(results)
    .filter(([, ok]) => !ok)
    .map(([id]) => id);
}

/** The listed tests (FAIL_TO_PASS, then PASS_TO_PASS) a grade failed. */
function failingListed(grade: Grade): string[] {
  return [...failing(grade.failToPass), ...failing(grade.passToPass)];
}

function describeTests(ids: readonly string[], grade: Grade): string {
  const shown = ids.slice(0, 3).map((id) => `${id} (${grade.statuses[id] ?? "missing"})`);
  return `${shown.join(", ")}${ids.length > 3 ? ` and ${String(ids.length - 3)} more` : ""}`;
}

/**
 * Judges an instance by its proof runs: kept (null) only when every run is valid and the runs
 * agree test by test; otherwise the most specific reason, naming the tests.
 */
export function classifyProofs(
  runs: readonly ValidationProof[],
  goldLogs: readonly string[],
): { category: DropCategory; reason: string } | null {
  const first = runs[0];
  if (first === undefined) return { category: "infrastructure", reason: "no proof ran" };
  // Gold resolving in one proof run and failing the same tests in another is the tests' doing
  // (sympy's bin/test randomizes hashes: sympy-13177's test_mod_inverse errors on some seeds).
  const resolvedRuns = runs.filter((run) => run.gold.resolved && !run.gold.testsTimedOut);
  const failedRun = runs.find((run) => !run.gold.resolved && run.gold.patchApplied);
  if (resolvedRuns.length > 0 && failedRun !== undefined) {
    const bad = failingListed(failedRun.gold);
    // sympy-11870: one hash seed has test_tan_rewrite run past the limit, another 94 s.
    const cut = failedRun.gold.testsTimedOut
      ? `${failedRun.gold.reason ?? "the tests ran past their limit"}, leaving `
      : "";
    if (bad.length > 0)
      return {
        category: "flaky",
        reason: `flaky: gold resolves it in ${String(resolvedRuns.length)} of ${String(runs.length)} proof runs; in another ${cut}${describeTests(bad, failedRun.gold)}`,
      };
  }
  for (const [index, run] of runs.entries()) {
    if (run.gold.testsTimedOut)
      return {
        category: "timeout",
        reason: `timed out: ${run.gold.reason ?? "the tests ran past their limit"}`,
      };
    if (!run.gold.resolved) {
      const bad = failingListed(run.gold);
      const download = BUILD_DOWNLOAD_FAILED.exec(goldLogs[index] ?? "");
      if (bad.length > 0 && download !== null)
        return {
          category: "network",
          reason: `the install downloads ${download[1] ?? ""} from ${download[2] ?? ""} at build time, which could not be reached from here; ${describeTests(bad, run.gold)} then fail`,
        };
      if (bad.length > 0 && NETWORK_SIGNS.test(goldLogs[index] ?? ""))
        return {
          category: "network",
          reason: `tests need the network: ${describeTests(bad, run.gold)}`,
        };
      if (!run.gold.patchApplied)
        return {
          category: "gold_fails",
          reason: `the gold patch does not apply: ${run.gold.reason ?? ""}`,
        };
      // Every listed test passed, yet the grade is not resolved: the log was rejected or the
      // change was flagged; the grade's own reason says which.
      if (bad.length === 0)
        return {
          category: "gold_fails",
          reason: `gold is not resolved: ${run.gold.reason ?? "unknown"}`,
        };
      return {
        category: "gold_fails",
        reason: `gold fails ${String(bad.length)} test(s): ${describeTests(bad, run.gold)}`,
      };
    }
    if (!run.valid)
      return {
        category: "passes_without_fix",
        reason: run.reason ?? "FAIL_TO_PASS tests pass without the fix",
      };
  }
  // Only the listed tests decide a verdict, and only by succeeding or not: a test outside
  // FAIL_TO_PASS and PASS_TO_PASS may flip (sympy's bin/test randomizes hashes:
  // test_latex_FourierSeries in sympy-11897), and a listed one may fail one way in one run and
  // another way in the next (ERROR, then FAILED: test_evalf_bugs without sympy-13146's fix),
  // leaving every grade of the task the same.
  const flips = new Set<string>();
  for (const run of runs.slice(1)) {
    for (const side of ["gold", "empty"] as const) {
      for (const list of ["failToPass", "passToPass"] as const) {
        for (const id of Object.keys(first.gold[list])) {
          if (run[side][list][id] !== first[side][list][id]) flips.add(`${id} (${side})`);
        }
      }
    }
  }
  if (flips.size > 0) {
    const list = [...flips].sort();
    return {
      category: "flaky",
      reason: `flaky: ${list.slice(0, 3).join(", ")}${list.length > 3 ? ` and ${String(list.length - 3)} more` : ""} changed outcome between proof runs`,
    };
  }
  return null;
}
