/**
 * The verdict on a test log: upstream's parser and grading rules, and lab's checks that the
 * log is the run's own. One function for a grade as it happens (`grade.ts`) and for a stored
 * grade judged again from its grader.log (`rejudgeGrade`, `lab regrade`), so both give the
 * same verdict on the same log. See docs/design/runs-and-resume.md ("Regrade").
 */
import {
  NODE_UPSTREAM_LOG_PARSERS,
  type Grade,
  type GradeCanaries,
  type GradeTestEnd,
  type SandboxExecResult,
  type TestStatus,
} from "../core/index.js";
import { checkCanaries, type PlantedCanaries } from "./canaries.js";
import { checkSuspiciousOutput, evaluateTests } from "./evaluate.js";
import { parseTestLog, type TestLogParser } from "./parse-log.js";

/** How the test process ended: its exit code and the facts a Grade keeps in testEnd. */
export interface TestRunEnd extends GradeTestEnd {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
}

/** What a test log is judged with. */
export interface JudgeInput {
  readonly parser: TestLogParser;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  readonly testRun: TestRunEnd;
  /** The whole grader log. */
  readonly log: string;
  /** What the scan of the change found (tamper.ts). */
  readonly changeTampering: readonly string[];
  readonly canaries: PlantedCanaries | null;
}

/** The verdict on a test log. */
export interface Verdict {
  readonly resolved: boolean;
  readonly reason: string | null;
  readonly statuses: Record<string, TestStatus>;
  readonly failToPass: Readonly<Record<string, boolean>>;
  readonly passToPass: Readonly<Record<string, boolean>>;
  readonly tampering: readonly string[];
}

/** How a test run ended, as the judge reads it. */
export function testEndOf(testRun: SandboxExecResult, timeoutMs: number): TestRunEnd {
  return {
    ...storedTestEnd(testRun, timeoutMs),
    exitCode: testRun.exitCode,
    timedOut: testRun.timedOut,
  };
}

/** What a grade keeps in testEnd (its exit code and timeout are fields of their own). */
export function storedTestEnd(testRun: SandboxExecResult, timeoutMs: number): GradeTestEnd {
  return { signal: testRun.signal, limit: testRun.limitExceeded, timeoutMs };
}

/**
 * The verdict on a test run: upstream's parser and grading rules over the log, and lab's
 * checks that the log is the run's own (time and sandbox limits, a log a change forged, a
 * change that tampers with the test run). The first reason that applies is the one given.
 */
export function judgeTestLog(input: JudgeInput): Verdict {
  const { testRun, log, changeTampering, canaries } = input;
  const parse = (text: string): Record<string, TestStatus> => parseTestLog(text, input.parser);
  // The canaries' own statuses are left out of everything but their check; with them in, a
  // failing canary explains a non-zero exit status (checkSuspiciousOutput's last rule).
  const withCanaries = parse(log);
  const canaryVerdict =
    canaries === null
      ? null
      : checkCanaries(
          canaries,
          log,
          parse,
          { exitCode: testRun.exitCode, timedOut: testRun.timedOut, limitExceeded: testRun.limit },
          withCanaries,
          input.parser,
        );
  const statuses = canaryVerdict?.statuses ?? withCanaries;
  const forged = canaryVerdict?.findings ?? [];
  const tampering = [...changeTampering, ...forged];
  const verdicts = evaluateTests({
    statuses,
    failToPass: input.failToPass,
    passToPass: input.passToPass,
  });
  // A limit of the sandbox ended some of the test run (the log says which, and how).
  const overLimit =
    testRun.limit === null ? null : `the tests went over the sandbox's ${testRun.limit} limit`;
  const suspicious = testRun.timedOut
    ? null
    : testRun.exitCode === null
      ? `the test process was killed by ${String(testRun.signal)}`
      : checkSuspiciousOutput({
          statuses: withCanaries,
          // Upstream's JS commands are wrapped (`timeout 10s npx mocha`, `| cat`), so their exit
          // status is not the runner's verdict: axios-4738's mocha hangs after its last test and
          // `timeout` ends it with 124. Upstream never reads it; nor does lab for these parsers.
          testExitCode: isUpstreamJsParser(input.parser) ? null : testRun.exitCode,
          log,
        });
  const reason = testRun.timedOut
    ? `the tests timed out after ${String(Math.round(testRun.timeoutMs / 1000))} s`
    : overLimit !== null
      ? overLimit
      : suspicious !== null
        ? `the test log was rejected: ${suspicious}`
        : forged.length > 0
          ? `the test log is not the test run's own: ${forged.join("; ")}`
          : changeTampering.length > 0
            ? `the change tampers with the test run: ${changeTampering.join("; ")}`
            : verdicts.reason;
  const resolved =
    !testRun.timedOut &&
    overLimit === null &&
    suspicious === null &&
    tampering.length === 0 &&
    verdicts.resolved;
  return {
    resolved,
    reason,
    statuses,
    failToPass: verdicts.failToPass,
    passToPass: verdicts.passToPass,
    tampering,
  };
}

/** Whether a parser is one of upstream's JS parsers: a grade by upstream's own commands. */
function isUpstreamJsParser(parser: TestLogParser): boolean {
  return (NODE_UPSTREAM_LOG_PARSERS as readonly string[]).includes(parser);
}

/** An unresolved grade's reason, naming what the work tree held that the change left out. */
export function withLeftOut(reason: string, leftOut: readonly string[]): string {
  return leftOut.length === 0
    ? reason
    : `${reason} (left out of the change: ${leftOut.join("; ")})`;
}

/** A grade's record of its canaries: counts, and each as planted (for `lab regrade`). */
export function countCanaries(planted: PlantedCanaries): GradeCanaries {
  const mustFail = planted.canaries.filter((canary) => canary.mustFail).length;
  return {
    mustPass: planted.canaries.length - mustFail,
    mustFail,
    files: new Set(planted.canaries.map((canary) => canary.file)).size,
    planted: planted.canaries.map(({ name, file, mustFail: fails, carriesSentinel, model }) => ({
      name,
      file,
      mustFail: fails,
      carriesSentinel,
      ...(model === undefined ? {} : { model }),
    })),
    sentinel: planted.sentinel,
    guard: planted.guard,
  };
}

/** The prefixes of the log checks' findings in `grade.tampering`: the canaries' and the runner guard's. */
const LOG_FINDINGS = ["canaries: ", "runner: "];

/** What a stored grade is judged again with: the task's lists and parser as they are today. */
export interface RejudgeInput {
  readonly parser: TestLogParser;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
}

/**
 * A stored grade judged again from its grader.log with today's parser, grading rules and canary
 * checks; nothing runs. Only a grade whose tests ran can be (the others' verdicts come from
 * earlier steps: the change did not apply, ...), and only one whose log lab read whole. A grade
 * whose canaries lab did not record keeps what their check found then. How the test run ended
 * comes from `grade.testEnd`, or for an older grade from its reason's words.
 */
export function rejudgeGrade(
  grade: Grade,
  log: { readonly text: string } | { readonly tooLong: string },
  input: RejudgeInput,
): { readonly grade: Grade } | { readonly skipped: string } {
  if (grade.phaseMs.tests === undefined) return { skipped: "its grade ended before the tests ran" };
  if ("tooLong" in log) return { skipped: log.tooLong };
  const { canaries } = grade;
  // A grade made before lab recorded its canaries: their check cannot be made again, so what it
  // found then stands (its findings are kept), and the log is judged again without them; the
  // canaries' results, whose names are unknown, stay out of the statuses as they were.
  const unrecorded =
    canaries !== undefined && (canaries.planted === undefined || canaries.sentinel === undefined);
  const reason = grade.reason ?? "";
  const testEnd = grade.testEnd ?? {
    signal: /the test process was killed by (\S+)$/.exec(reason)?.[1] ?? null,
    limit:
      (/the tests went over the sandbox's (memory|disk|processes) limit/.exec(reason)?.[1] as
        GradeTestEnd["limit"] | undefined) ?? null,
    timeoutMs: Number(/the tests timed out after (\d+) s/.exec(reason)?.[1] ?? 0) * 1000,
  };
  const verdict = judgeTestLog({
    ...input,
    testRun: { ...testEnd, exitCode: grade.testExitCode, timedOut: grade.testsTimedOut },
    log: log.text,
    changeTampering: unrecorded
      ? grade.tampering
      : grade.tampering.filter((finding) => !LOG_FINDINGS.some((kind) => finding.startsWith(kind))),
    canaries:
      canaries?.planted === undefined || canaries.sentinel === undefined
        ? null
        : {
            canaries: canaries.planted,
            sentinel: canaries.sentinel,
            guard: canaries.guard ?? null,
          },
  });
  const known = new Set([...Object.keys(grade.statuses), ...input.failToPass, ...input.passToPass]);
  const statuses = unrecorded
    ? Object.fromEntries(Object.entries(verdict.statuses).filter(([id]) => known.has(id)))
    : verdict.statuses;
  return {
    grade: {
      ...grade,
      resolved: verdict.resolved,
      failToPass: verdict.failToPass,
      passToPass: verdict.passToPass,
      statuses,
      reason: verdict.resolved ? null : withLeftOut(verdict.reason ?? "", grade.leftOut ?? []),
      tampering: verdict.tampering,
    },
  };
}
