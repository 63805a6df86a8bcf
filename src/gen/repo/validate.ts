import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  isLabError,
  selectTestDirectives,
  type Grade,
  type Oracle,
  type Task,
  type TestStatus,
} from "../../core/index.js";
import { summarizeUvFailure, type EnvironmentOptions } from "../../environment/index.js";
import { checkSuspiciousOutput, TEST_OUTPUT_START } from "../../grader/index.js";
import { gradeInScratch } from "../prove.js";

/** Why validation dropped a candidate. */
export type ValidationDrop =
  | "install"
  | "no_tests_ran"
  | "passes_without_fix"
  | "fails_after_fix"
  | "flaky"
  | "timeout"
  | "gold_rejected"
  | "infrastructure";

/** One proof run: the test files run after the gold patch and with no change. */
export interface ProofRun {
  /** Statuses with the gold patch applied (the tests as the change left them). */
  readonly gold: Readonly<Record<string, TestStatus>>;
  /** Statuses with the hidden tests only: before the fix. */
  readonly before: Readonly<Record<string, TestStatus>>;
  readonly goldTimedOut: boolean;
  readonly beforeTimedOut: boolean;
  /** Environment cache key used. */
  readonly environmentKey: string | null;
  /** Milliseconds of the two grades. */
  readonly durationMs: number;
}

/** What validation concluded. */
export type Verdict =
  | {
      readonly kept: true;
      readonly failToPass: string[];
      readonly passToPass: string[];
      /** Tests that fail with and without the fix; left out of both lists. */
      readonly failing: string[];
    }
  | { readonly kept: false; readonly category: ValidationDrop; readonly reason: string };

const PASS: readonly TestStatus[] = ["PASSED", "XFAIL"];
const isPass = (status: TestStatus | undefined): boolean =>
  status !== undefined && PASS.includes(status);
const isFail = (status: TestStatus | undefined): boolean =>
  status === "FAILED" || status === "ERROR" || status === undefined;

/** Names up to three tests and counts the rest. */
export function nameTests(
  ids: readonly string[],
  status?: Readonly<Record<string, TestStatus>>,
): string {
  const shown = ids
    .slice(0, 3)
    .map((id) => (status === undefined ? id : `${id} (${status[id] ?? "missing"})`));
  return `${shown.join(", ")}${ids.length > 3 ? ` and ${String(ids.length - 3)} more` : ""}`;
}

/**
 * Derives FAIL_TO_PASS and PASS_TO_PASS from one run, as SWE-bench's validation does:
 * FAIL_TO_PASS passes with the fix and did not before; PASS_TO_PASS passes both times. A test
 * that passed before and fails with the fix, or a fix that makes none of its tests pass, drops
 * the candidate; tests failing both times are left out.
 */
export function judgeRun(run: ProofRun): Verdict {
  if (run.goldTimedOut || run.beforeTimedOut)
    return {
      kept: false,
      category: "timeout",
      reason: `the tests timed out ${run.goldTimedOut ? "with the fix" : "before the fix"}`,
    };
  const ids = Object.keys(run.gold);
  if (ids.length === 0)
    return { kept: false, category: "no_tests_ran", reason: "no test ran with the fix" };
  const failToPass = ids.filter((id) => run.gold[id] === "PASSED" && !isPass(run.before[id]));
  const passToPass = ids.filter((id) => run.gold[id] === "PASSED" && run.before[id] === "PASSED");
  const broken = Object.keys(run.before).filter(
    (id) => run.before[id] === "PASSED" && isFail(run.gold[id]),
  );
  const failing = ids.filter((id) => isFail(run.gold[id]) && !broken.includes(id));
  if (broken.length > 0)
    return {
      kept: false,
      category: "fails_after_fix",
      reason: `tests fail after the fix that passed before it: ${nameTests(broken, run.gold)}`,
    };
  if (failToPass.length === 0) {
    if (failing.length > 0)
      return {
        kept: false,
        category: "fails_after_fix",
        reason: `tests fail after the fix: ${nameTests(failing, run.gold)}; none goes from failing to passing`,
      };
    return {
      kept: false,
      category: "passes_without_fix",
      reason: `no test fails before the fix: ${nameTests(passToPass)} pass${passToPass.length === 1 ? "es" : ""} with and without it`,
    };
  }
  return { kept: true, failToPass, passToPass, failing };
}

/** Tests whose status differs between two runs, on either side. */
export function flips(first: ProofRun, other: ProofRun): string[] {
  const changed = new Set<string>();
  for (const side of ["gold", "before"] as const) {
    const ids = new Set([...Object.keys(first[side]), ...Object.keys(other[side])]);
    for (const id of ids) {
      if (first[side][id] !== other[side][id])
        changed.add(
          `${id} (${side === "gold" ? "with the fix" : "before the fix"}: ${first[side][id] ?? "missing"}, then ${other[side][id] ?? "missing"})`,
        );
    }
  }
  return [...changed].sort();
}

/** Judges every run: kept when the first is and every later run agrees test by test. */
export function judgeRuns(runs: readonly ProofRun[]): Verdict {
  const [first, ...rest] = runs;
  if (first === undefined)
    return { kept: false, category: "infrastructure", reason: "no proof ran" };
  const verdict = judgeRun(first);
  if (!verdict.kept) return verdict;
  for (const [index, run] of rest.entries()) {
    const changed = flips(first, run);
    if (changed.length > 0)
      return {
        kept: false,
        category: "flaky",
        reason: `flaky: ${nameTests(changed)} changed between run 1 and run ${String(index + 2)}`,
      };
  }
  return verdict;
}

/** How to validate. */
export interface ValidateOptions {
  readonly runs: number;
  readonly environment: EnvironmentOptions;
  /** Grading logs go here, `<id>.run<N>.<gold|before>.log`. */
  readonly logDir: string;
  readonly testTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Told each grading step as it starts: "run 1/3 gold: install", ... */
  readonly onPhase?: ((phase: string) => void) | undefined;
}

/** A verdict and the runs behind it. */
export interface Validation {
  readonly verdict: Verdict;
  readonly runs: ProofRun[];
}

/**
 * Runs the test files of a candidate's test patch with its gold patch and with no change, as
 * many times as asked (stopping early once a run drops it), and judges the runs. The task's
 * oracle holds empty test lists: every status comes from the logs.
 */
export async function validateCandidate(
  task: Task,
  oracle: Oracle,
  options: ValidateOptions,
): Promise<Validation> {
  const runs: ProofRun[] = [];
  const files = selectTestDirectives(oracle.testPatch);
  let filtered: boolean | undefined;
  for (let run = 1; run <= options.runs; run++) {
    const started = performance.now();
    let gold: Grade;
    let before: Grade;
    const goldLog = path.join(options.logDir, `${task.info.id}.run${String(run)}.gold.log`);
    try {
      const step = (label: string): ValidateOptions => ({
        ...options,
        onPhase: (phase) =>
          options.onPhase?.(`run ${String(run)}/${String(options.runs)} ${label}: ${phase}`),
      });
      gold = await grade(task, oracle, oracle.goldPatch, goldLog, step("gold"));
      before = await grade(
        task,
        oracle,
        "",
        goldLog.replace(/gold\.log$/, "before.log"),
        step("no change"),
      );
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      const message = (error as Error).message;
      const install = isLabError(error) && error.code === "ENVIRONMENT_FAILED";
      return {
        verdict: {
          kept: false,
          category: install ? "install" : "infrastructure",
          reason: install ? `install failed: ${message}` : message,
        },
        runs,
      };
    }
    const log = existsSync(goldLog) ? await readFile(goldLog, "utf8") : "";
    if (run === 1) {
      const failed = installFailure(log);
      if (failed !== null)
        return { verdict: { kept: false, category: "install", reason: failed }, runs };
      if (!gold.patchApplied && !gold.patchEmpty)
        return {
          verdict: {
            kept: false,
            category: "gold_rejected",
            reason: `the gold patch does not apply: ${gold.reason ?? ""}`,
          },
          runs,
        };
    }
    // Ids are relative to pytest's rootdir; where that is not the repository's root no id
    // starts with a file's path, and the statuses are taken whole.
    filtered ??= Object.keys(ownTests(gold.statuses, files)).length > 0;
    runs.push({
      gold: filtered ? ownTests(gold.statuses, files) : gold.statuses,
      before: filtered ? ownTests(before.statuses, files) : before.statuses,
      goldTimedOut: gold.testsTimedOut,
      beforeTimedOut: before.testsTimedOut,
      environmentKey: gold.environmentKey,
      durationMs: Math.round(performance.now() - started),
    });
    const verdict = judgeRuns(runs);
    if (!verdict.kept) {
      const error = verdict.category === "no_tests_ran" ? testRunError(log) : null;
      const why =
        verdict.category !== "no_tests_ran"
          ? ""
          : error !== null
            ? `: ${error}`
            : gold.reason !== null
              ? `: ${gold.reason}`
              : "";
      return { verdict: { ...verdict, reason: `${verdict.reason}${why}` }, runs };
    }
    if (run === 1) {
      if (gold.tampering.length > 0)
        return {
          verdict: {
            kept: false,
            category: "gold_rejected",
            reason: `the gold patch changes how the tests run: ${gold.tampering.join("; ")}`,
          },
          runs,
        };
      const suspicious = checkSuspiciousOutput({
        statuses: gold.statuses,
        testExitCode: goldExitCodeToCheck(gold),
        log,
      });
      if (suspicious !== null)
        return {
          verdict: {
            kept: false,
            category: "gold_rejected",
            reason: `the gold run's log would be rejected: ${suspicious}`,
          },
          runs,
        };
    }
  }
  return { verdict: judgeRuns(runs), runs };
}

/**
 * The gold run's exit status, as the grader's judge weighs it (judge.ts): a must-fail canary
 * fails in an honest run and explains a non-zero status, so with one planted the status says
 * nothing; with none (a hidden file without a test to copy), a non-zero status with no failing
 * test rejects the log, in the proof as in every later grade. vuejs/core's repo-11959 was kept
 * while every gold run was rejected: its e2e file's browser failed to launch, exit 1, no test failed.
 */
export function goldExitCodeToCheck(gold: Pick<Grade, "canaries" | "testExitCode">): number | null {
  return (gold.canaries?.mustFail ?? 0) > 0 ? null : gold.testExitCode;
}

/** The first error pytest reported in a grading log's test output (an import error, a usage error). */
export function testRunError(log: string): string | null {
  const output = log.slice(Math.max(0, log.indexOf(TEST_OUTPUT_START)));
  const line = /^E\s+(\S.*)$/m.exec(output)?.[1] ?? /^ERROR: (.*)$/m.exec(output)?.[1];
  return line === undefined ? null : line.trim();
}

/**
 * The statuses of tests in the files that were run. The log parser also reads lines that only
 * look like results: captured log records ("ERROR    app:app.py:961 ...", with line numbers
 * that move with the fix) and the output of test sessions a test runs itself (pytest's own
 * tests). Those are no tests of the task's, and would make it look flaky or broken. pytest's
 * ids are `file::test`, the JS runners' `file > describe > test`.
 */
export function ownTests(
  statuses: Readonly<Record<string, TestStatus>>,
  files: readonly string[],
): Record<string, TestStatus> {
  return Object.fromEntries(
    Object.entries(statuses).filter(([id]) =>
      files.some(
        (file) => id === file || id.startsWith(`${file}::`) || id.startsWith(`${file} > `),
      ),
    ),
  );
}

/** Why the project's install failed, from a grading log; null when it did not. */
export function installFailure(log: string): string | null {
  const marker = log.indexOf("lab: install step exited with");
  if (marker < 0) return null;
  const start = log.lastIndexOf("\n+ ", marker);
  const output = log.slice(start < 0 ? 0 : start, marker);
  const command = /^\n?\+ (.*)$/m.exec(output)?.[1] ?? "the install";
  const why = /^(npm|pnpm|yarn) /.test(command)
    ? summarizeNodeInstallFailure(output)
    : summarizeUvFailure(output);
  return `install failed: \`${command}\` failed: ${why}`;
}

/**
 * The line of a JS package manager's failed install that names the cause: npm's first
 * `npm error`/`npm ERR!` line after its code, pnpm's `ERR_PNPM_*`, yarn's `error`, or a Node
 * error; else the last line. (Node's own last line, "Node.js v20.11.1", names nothing.)
 */
export function summarizeNodeInstallFailure(output: string): string {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("+ ") && !/^Node\.js v\d/.test(line));
  const named =
    lines.find((line) => /^npm (error|ERR!) (?!code |errno |A complete log)/.test(line)) ??
    lines.find((line) => /ERR_PNPM_|^error |^YN\d{4}: .*(error|fail)/i.test(line)) ??
    lines.find((line) => /^\w*Error:/.test(line));
  return (named ?? lines.at(-1) ?? "no output").replace(/^npm (error|ERR!) /, "");
}

function grade(
  task: Task,
  oracle: Oracle,
  patch: string,
  logFile: string,
  options: ValidateOptions,
): Promise<Grade> {
  return gradeInScratch(task, oracle, patch, { ...options, logFile });
}
