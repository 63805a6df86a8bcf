/**
 * What the readers of each runner's results (results-jest.ts, results-lines.ts, results-tap.ts)
 * produce and share: outcomes before they become ids (results.ts), paths, and the error for a
 * results file lab cannot read.
 */
import { LabError, type TestStatus } from "../../core/index.js";
import type { JsTestRunner } from "./runners.js";

/** The title lab gives a file's own outcome, in place of a test's. */
export const FILE_TITLE = "(file)";

/** One outcome before ids are made: the file it belongs to and the titles down to the test. */
export interface JsOutcome {
  /** The file, relative to the root with `/` separators (or absolute when outside the root). */
  readonly file: string;
  /** Describe titles then the test's title; `[FILE_TITLE]` for the file's own outcome. */
  readonly titles: readonly string[];
  readonly status: TestStatus;
  /** Outcomes of one group are deduplicated together (one file's run); ids of later groups replace earlier ones. */
  readonly group: number;
}

/** One outcome as lab's mocha or node:test reporter (or the TAP reader) states it. */
export interface ReporterRecord {
  /** Suite titles down to the test's (node:test's file-level test: the file's absolute path). */
  readonly titles: readonly string[];
  /** The test's file as the runner names it (absolute), when it does. */
  readonly file?: string | undefined;
  readonly state: "passed" | "failed" | "skipped";
  /** mocha's number for the test within the run: a second line for it replaces the first. */
  readonly uid?: number | undefined;
  /** A mocha hook, not a test. */
  readonly hook?: boolean | undefined;
  /** A node:test suite (describe), not a test. */
  readonly suite?: boolean | undefined;
}

/**
 * A runner's file path relative to `root` with `/` separators; a relative path stays as it is
 * (less a leading `./`), and a path outside the root stays absolute.
 */
export function relativePath(file: string, root: string): string {
  const slashed = file.replaceAll("\\", "/");
  const base = root.replaceAll("\\", "/").replace(/\/+$/, "");
  if (slashed.startsWith(`${base}/`)) return slashed.slice(base.length + 1);
  return slashed.replace(/^(\.\/)+/, "");
}

/** The error for a results file lab cannot read. */
export function invalidResults(runner: JsTestRunner, what: string, why?: string): LabError {
  return new LabError("TEST_RESULTS_INVALID", `Cannot read ${runner}'s test results: ${what}.`, {
    hint:
      (why === undefined ? "" : `Most likely ${why}. `) +
      "The test log above the results shows what the runner printed; a run that was killed or timed out leaves results cut short.",
  });
}
