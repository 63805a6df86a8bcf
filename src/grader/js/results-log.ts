/**
 * A JS runner's results file copied into the grading log, so the log alone holds what a grade
 * was judged by (as a Python grade's log holds pytest's summary) and `lab regrade` can judge it
 * again. The block is appended after the test run has ended, so the last block in the log is
 * lab's: a test that prints a block of its own prints it earlier.
 */
import { LabError, type NodeTestRunner, type TestStatus } from "../../core/index.js";
import { parseJsResults } from "./results.js";

/** Opens the block; followed on the same line by `{"runner":...,"root":...}`. */
export const JS_RESULTS_START = ">>>>> lab: JS results";

/** Closes the block. */
export const JS_RESULTS_END = ">>>>> lab: end of JS results";

/** The block for the log: the runner, the root it saw, and the results file's text (or none). */
export function jsResultsBlock(runner: NodeTestRunner, root: string, text: string | null): string {
  const header = JSON.stringify({ runner, root, ...(text === null ? { missing: true } : {}) });
  const body = text === null || text === "" ? "" : text.endsWith("\n") ? text : `${text}\n`;
  return `${JS_RESULTS_START} ${header}\n${body}${JS_RESULTS_END}\n`;
}

/**
 * The statuses of the log's last JS results block, or why there are none: no block, a runner
 * that wrote no results, or results lab cannot read (TEST_RESULTS_INVALID's message).
 */
export function readJsResultsLog(
  log: string,
): { statuses: Record<string, TestStatus> } | { problem: string } {
  const start = log.lastIndexOf(`${JS_RESULTS_START} `);
  if (start === -1 || (start > 0 && log[start - 1] !== "\n"))
    return { problem: "the log holds no JS results" };
  const headerEnd = log.indexOf("\n", start);
  const end = log.indexOf(`\n${JS_RESULTS_END}`, headerEnd - 1);
  if (headerEnd === -1 || end === -1) return { problem: "the log's JS results are cut short" };
  let header: { runner?: unknown; root?: unknown; missing?: unknown };
  try {
    header = JSON.parse(log.slice(start + JS_RESULTS_START.length + 1, headerEnd)) as typeof header;
  } catch {
    return { problem: "the log's JS results have no readable header" };
  }
  const { runner, root } = header;
  if (typeof runner !== "string" || typeof root !== "string")
    return { problem: "the log's JS results have no readable header" };
  if (header.missing === true) return { problem: `${runner} wrote no results file` };
  try {
    const text = log.slice(headerEnd + 1, end + 1);
    return { statuses: parseJsResults(runner as NodeTestRunner, text, root) };
  } catch (error) {
    if (error instanceof LabError) return { problem: error.message };
    throw error;
  }
}

/** The statuses of the log's last JS results block; none when it has none or they are unreadable. */
export function parseJsResultsLog(log: string): Record<string, TestStatus> {
  const read = readJsResultsLog(log);
  return "statuses" in read ? read.statuses : {};
}
