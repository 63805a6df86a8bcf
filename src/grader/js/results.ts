/**
 * Reads a JavaScript runner's results file (written by jsTestCommand's command) into test id ->
 * status, the form the grader compares with a task's FAIL_TO_PASS and PASS_TO_PASS lists.
 *
 * A test's id is `path > describe > ... > test`: the file's path relative to the repository's
 * root with `/` separators, then every enclosing describe (suite) title, then the test's title,
 * joined with " > " (titles are kept whole, so a title holding " > " makes an id that cannot be
 * split back; ids are compared whole, never split). A file that failed as a whole (it did not
 * load, its process died, a hook outside every test failed) is `path > (file)`, ERROR; a file
 * that ran cleanly has no such id. Two tests of one name in one file are told apart by report
 * order, which is definition order in all four runners: the second is `... > name (2)`, the
 * third `(3)`, and so on; a real test whose name such a suffix already took gets one in turn.
 */
import type { TestStatus } from "../../core/index.js";
import { invalidResults, type JsOutcome } from "./outcomes.js";
import { jestOutcomes } from "./results-jest.js";
import { reporterOutcomes } from "./results-lines.js";
import type { JsTestRunner } from "./runners.js";

/**
 * The statuses in `text`, a results file `runner`'s command wrote, by test id (see the module's
 * comment for the id form). `root` is the repository's root as the runner saw it: the runners
 * write absolute paths, made relative to it here. A file that is empty, malformed or cut short
 * throws a TEST_RESULTS_INVALID LabError naming what is wrong.
 */
export function parseJsResults(
  runner: JsTestRunner,
  text: string,
  root: string,
): Record<string, TestStatus> {
  if (text.trim() === "") {
    throw invalidResults(runner, "the results file is empty", "the runner wrote no results");
  }
  const outcomes =
    runner === "jest" || runner === "vitest"
      ? jestOutcomes(runner, text, root)
      : reporterOutcomes(runner, text, root);
  return idsOf(outcomes);
}

/** Ids from outcomes: duplicates within a group get ` (2)`, ` (3)`...; a later group's id replaces. */
function idsOf(outcomes: readonly JsOutcome[]): Record<string, TestStatus> {
  const statuses = new Map<string, TestStatus>();
  let group: number | null = null;
  let taken = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.group !== group) {
      group = outcome.group;
      taken = new Set();
    }
    const base = [outcome.file, ...outcome.titles].join(" > ");
    let id = base;
    for (let copy = 2; taken.has(id); copy++) id = `${base} (${copy})`;
    taken.add(id);
    statuses.set(id, outcome.status);
  }
  // fromEntries defines own properties, so an id such as "__proto__" stays an ordinary key.
  return Object.fromEntries(statuses);
}
