/**
 * Grading decisions over a parsed status map, as upstream SWE-bench makes them.
 *
 * A port of `_resolve_case`, `test_passed`, `test_maintained`, `test_failed`,
 * `get_eval_tests_report`, `get_resolution_status` and the log checks of `get_logs_eval` in
 * SWE-bench/SWE-bench `swebench/harness/grading.py` at 7a21e05 (release 5.0.2), for the
 * `pass_and_fail` eval type that every in-scope task uses.
 */
import type { TestStatus } from "../core/index.js";
import { extractTestOutput } from "./parse-log.js";

/** Per-test outcomes and the resolution of one graded change. */
export interface TestVerdicts {
  /** FAIL_TO_PASS test id -> it succeeded (PASSED or XFAIL). */
  failToPass: Record<string, boolean>;
  /** PASS_TO_PASS test id -> it succeeded (PASSED, XFAIL or SKIPPED). */
  passToPass: Record<string, boolean>;
  /** True only when resolution is FULL. */
  resolved: boolean;
  /** Upstream's RESOLVED_FULL / RESOLVED_PARTIAL / RESOLVED_NO. */
  resolution: "FULL" | "PARTIAL" | "NO";
  /** Why it is not resolved, naming the first failing tests; null when resolved. */
  reason: string | null;
}

/** What evaluateTests grades: a parsed status map against the task's two test lists. */
export interface TestsToEvaluate {
  /** Test id -> status, as parseTestLog returns it. */
  statuses: Readonly<Record<string, TestStatus>>;
  /** Tests that must go from failing to passing. */
  failToPass: readonly string[];
  /** Tests that must keep passing. */
  passToPass: readonly string[];
}

/** What checkSuspiciousOutput inspects. */
export interface TestRunEvidence {
  /** The statuses parsed from the log. */
  statuses: Readonly<Record<string, TestStatus>>;
  /** The test command's own exit code; null when it was not recorded. */
  testExitCode: number | null;
  /** The whole test log. */
  log: string;
}

/** How many failing tests a reason names before summarising the rest. */
const REASON_TEST_LIMIT = 3;

/** Statuses that count as passing, and that the prefix fallback's candidates must agree on. */
const PASSING: readonly TestStatus[] = ["PASSED", "XFAIL"];

/**
 * Markers upstream's harness writes when it gives up on an instance; a log containing any of
 * them is rejected whoever printed it.
 */
const HARNESS_FAILURE_MARKERS = [
  ">>>>> Patch Apply Failed",
  ">>>>> Reset Failed",
  ">>>>> Tests Errored",
  ">>>>> Tests Timed Out",
] as const;

/**
 * Upstream's SUITE_RAN: evidence that a runner executed although nothing was parsed. Its
 * alternatives are for JavaScript runners; ported anyway so a log is rejected exactly when
 * upstream rejects it. Python's `^`/`$` under re.M become the lookarounds, because
 * JavaScript's `$` would also match before "\r".
 */
const SUITE_RAN = new RegExp(
  [
    String.raw`Executed [1-9]\p{Nd}* of \p{Nd}+`,
    String.raw`TOTAL: [1-9]\p{Nd}* (?:SUCCESS|FAILED)`,
    String.raw`[1-9]\p{Nd}* passing`,
    String.raw`Tests:[\s\u001c-\u001f\u0085]+[1-9]\p{Nd}*`,
    String.raw`Test Suites:[\s\u001c-\u001f\u0085]+(?:\p{Nd}+ [\p{L}\p{N}_]+, )*[1-9]\p{Nd}* total`,
    String.raw`(?<![^\n])# tests [1-9]\p{Nd}*`,
    String.raw`[1-9]\p{Nd}* specs?, \p{Nd}+ failures?`,
    String.raw`': ok(?![^\n])`,
  ].join("|"),
  "u",
);

/** How one expected test id was found in the status map. */
interface TestLookup {
  /** The status of the matched id, or null when none matched. */
  readonly status: TestStatus | null;
  /** A truncated id matched several parsed ids that disagree on pass versus fail. */
  readonly isAmbiguous: boolean;
}

/**
 * Grades a status map against FAIL_TO_PASS and PASS_TO_PASS with upstream 5.0 semantics.
 *
 * FAIL_TO_PASS succeeds on PASSED or XFAIL; missing, FAILED, ERROR and SKIPPED fail it.
 * PASS_TO_PASS also accepts SKIPPED (a skip is not a regression). Resolution is FULL when both
 * success ratios are 1 (an empty list counts as 1), PARTIAL when 0 < FAIL_TO_PASS < 1 and
 * PASS_TO_PASS is 1, otherwise NO. Ratios count list entries, so a duplicated id counts twice.
 */
export function evaluateTests(input: TestsToEvaluate): TestVerdicts {
  const f2p = gradeList(input.failToPass, input.statuses, ["PASSED", "XFAIL"]);
  const p2p = gradeList(input.passToPass, input.statuses, ["PASSED", "XFAIL", "SKIPPED"]);
  const f2pRatio = successRatio(f2p.failures.length, input.failToPass.length);
  const p2pRatio = successRatio(p2p.failures.length, input.passToPass.length);
  let resolution: TestVerdicts["resolution"] = "NO";
  if (f2pRatio === 1 && p2pRatio === 1) resolution = "FULL";
  else if (f2pRatio > 0 && f2pRatio < 1 && p2pRatio === 1) resolution = "PARTIAL";
  const reasons = [
    describeFailures("FAIL_TO_PASS", f2p.failures, input.failToPass.length),
    describeFailures("PASS_TO_PASS", p2p.failures, input.passToPass.length),
  ].filter((part) => part !== null);
  return {
    failToPass: f2p.verdicts,
    passToPass: p2p.verdicts,
    resolved: resolution === "FULL",
    resolution,
    reason: resolution === "FULL" ? null : reasons.join("; "),
  };
}

/**
 * Returns why a test log must not be graded, or null when it may be. The rules, in upstream's
 * order (`get_logs_eval`):
 *
 * 1. It contains a harness failure marker (patch apply, reset, errored or timed-out tests).
 * 2. It lacks the start or the end output marker, so the test command's output is not framed.
 * 3. Nothing was parsed and nothing shows the suite ran: an empty map is not a pass.
 * 4. The test command exited non-zero, yet no parsed test is FAILED or ERROR: the log is not
 *    describing the run that happened, e.g. a patch printing its own PASSED lines (new in 5.0).
 */
export function checkSuspiciousOutput(input: TestRunEvidence): string | null {
  const marker = HARNESS_FAILURE_MARKERS.find((text) => input.log.includes(text));
  if (marker !== undefined) return `the log contains the harness failure marker "${marker}"`;
  const output = extractTestOutput(input.log);
  if (!output.hasStartMarker || !output.hasEndMarker) {
    return "the log lacks the start or end test output marker";
  }
  const statuses = Object.values(input.statuses);
  if (statuses.length === 0 && !SUITE_RAN.test(input.log)) {
    return "no test results could be parsed from the log";
  }
  const { testExitCode } = input;
  if (
    testExitCode !== null &&
    testExitCode !== 0 &&
    statuses.length > 0 &&
    !statuses.some((status) => status === "FAILED" || status === "ERROR")
  ) {
    return `the tests exited with code ${testExitCode} but the log reports no FAILED or ERROR test`;
  }
  return null;
}

/** Grades each id of one list; `successes` are the statuses that count as success for it. */
function gradeList(
  ids: readonly string[],
  statuses: Readonly<Record<string, TestStatus>>,
  successes: readonly TestStatus[],
): { verdicts: Record<string, boolean>; failures: string[] } {
  const verdicts = new Map<string, boolean>();
  const failures: string[] = [];
  for (const id of ids) {
    const lookup = lookUpTest(id, statuses);
    const succeeded = lookup.status !== null && successes.includes(lookup.status);
    verdicts.set(id, succeeded);
    if (!succeeded) failures.push(`${id} (${describeLookup(lookup)})`);
  }
  // fromEntries defines own properties, so an id such as "__proto__" stays an ordinary key.
  return { verdicts: Object.fromEntries(verdicts), failures };
}

/**
 * Upstream's `_resolve_case`: an exact match, or for an id with more "[" than "]" (truncated
 * mid-parameter when the dataset was made) every parsed id it prefixes, accepted only when they
 * all agree on passing (PASSED or XFAIL) versus not.
 *
 * The first candidate's status is then used, so with candidates SKIPPED and FAILED (they agree:
 * neither passes) a PASS_TO_PASS id is maintained or failed depending on which came first.
 * Candidate order is the status map's key order, which for parseTestLog is first-seen order
 * except that integer-like ids ("7") sort first, as in any JavaScript object.
 */
function lookUpTest(id: string, statuses: Readonly<Record<string, TestStatus>>): TestLookup {
  if (Object.hasOwn(statuses, id)) return { status: statuses[id] ?? null, isAmbiguous: false };
  if (countOf(id, "[") <= countOf(id, "]")) return { status: null, isAmbiguous: false };
  const candidates = Object.entries(statuses).filter(([parsed]) => parsed.startsWith(id));
  const first = candidates[0];
  if (first === undefined) return { status: null, isAmbiguous: false };
  const outcomes = new Set(candidates.map(([, status]) => PASSING.includes(status)));
  if (outcomes.size !== 1) return { status: null, isAmbiguous: true };
  return { status: first[1], isAmbiguous: false };
}

/** A failed test's status in a reason: the status word, "missing", or why it is unmatched. */
function describeLookup(lookup: TestLookup): string {
  if (lookup.status !== null) return lookup.status;
  return lookup.isAmbiguous ? "prefix matches disagree" : "missing";
}

/** Upstream's ratio: successes over the list's length, 1 for an empty list. */
function successRatio(failureCount: number, total: number): number {
  return total === 0 ? 1 : (total - failureCount) / total;
}

/** One list's part of the reason, or null when nothing in it failed. */
function describeFailures(list: string, failures: readonly string[], total: number): string | null {
  if (failures.length === 0) return null;
  const named = failures.slice(0, REASON_TEST_LIMIT).join(", ");
  const rest = failures.length - REASON_TEST_LIMIT;
  const more = rest > 0 ? ` and ${rest} more` : "";
  return `${failures.length} of ${total} ${list} tests failed: ${named}${more}`;
}

/** How many times `char` occurs in `text`. */
function countOf(text: string, char: string): number {
  return text.split(char).length - 1;
}
