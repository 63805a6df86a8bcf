/**
 * Turns a test log into a status per test id, the way upstream SWE-bench does.
 *
 * A line-for-line port of `parse_log_pytest`, `parse_log_pytest_options`, `parse_log_pytest_v2`,
 * `parse_log_matplotlib` and `parse_log_seaborn` in SWE-bench/SWE-bench
 * `swebench/harness/log_parsers/python.py`, and of the marker slicing in `get_logs_eval`
 * (`swebench/harness/grading.py`), both at 7a21e05 (release 5.0.2); Django's and SymPy's are in
 * parse-log-runners.ts, and SWE-bench Multilingual's JavaScript ones in parse-log-js.ts. The
 * dataset's FAIL_TO_PASS and PASS_TO_PASS ids were made by these parsers, so every quirk below is
 * kept on purpose: "fixing" one makes gold patches fail to match.
 */
import {
  JS_LOG_PARSERS,
  type JsLogParser,
  type LogParser,
  type TestStatus,
} from "../core/index.js";
import { parseJsResultsLog } from "./js/index.js";
import { JS_RAW_PARSERS } from "./parse-log-js.js";
import { parseDjango, parseSympy } from "./parse-log-runners.js";
import { splitOnWhitespace } from "./python-text.js";

export type { JsLogParser, LogParser } from "../core/index.js";

/**
 * What reads a grade's test log: one of upstream's Python parsers, "js-results", lab's copy of
 * a JS runner's results file in the log (`js/results-log.ts`), for the Node tasks lab makes, or
 * one of upstream's JS parsers, for a Node task graded by upstream's own commands.
 */
export type TestLogParser = LogParser | "js-results" | Exclude<JsLogParser, "immutable_js">;

/** Logged just before the test command runs; upstream's eval script prints it via xtrace. */
export const TEST_OUTPUT_START = ">>>>> Start Test Output";

/** Logged just after the test command ends, before the recorded exit code. */
export const TEST_OUTPUT_END = ">>>>> End Test Output";

/** The part of a log the parsers read first, and which markers the log holds. */
export interface TestOutput {
  /** The text between the markers (see extractTestOutput for the missing-marker cases). */
  readonly text: string;
  /** The log contains TEST_OUTPUT_START. */
  readonly hasStartMarker: boolean;
  /** The log contains TEST_OUTPUT_END. */
  readonly hasEndMarker: boolean;
}

/** Upstream's TestStatus enum, in its declaration order. XPASS is deliberately not one. */
const STATUS_WORDS: readonly TestStatus[] = ["FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL"];

/** `^\[\d+\]$`: the `[N]` count of a `SKIPPED [N] path:line: reason` summary line. */
const SKIP_SUMMARY_COUNT = /^\[\p{Nd}+\]$/u;

/** `(.*?)\[(.*)\]`: a test name and its bracketed parameter, up to the LAST "]". */
const OPTION_PATTERN = /(.*?)\[(.*)\]/su;

/** U+0001..U+001F, which upstream's v2 parser deletes from every line. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL_CHARACTERS = /[\u0001-\u001f]/g;

/** `\[(\d+)m`: the remains of an SGR code, matched with or without its ESC, as upstream does. */
const SGR_REMAINS = /\[\p{Nd}+m/gu;

/**
 * Returns the region upstream parses: `log.split(START)[1].split(END)[0]`.
 *
 * Like Python's split, the region also stops at a second start marker. Upstream rejects a log
 * missing either marker before slicing (see checkSuspiciousOutput); here a missing start marker
 * means "from the beginning" and a missing end marker "to the end", so the caller decides.
 */
export function extractTestOutput(log: string): TestOutput {
  const hasStartMarker = log.includes(TEST_OUTPUT_START);
  const hasEndMarker = log.includes(TEST_OUTPUT_END);
  const afterStart = hasStartMarker ? (log.split(TEST_OUTPUT_START)[1] ?? "") : log;
  const text = afterStart.split(TEST_OUTPUT_END)[0] ?? "";
  return { text, hasStartMarker, hasEndMarker };
}

/**
 * Parses a test log into test id -> status with the named upstream parser.
 *
 * Only the marker region is read; when it yields nothing the whole log is parsed instead, as
 * upstream does for runners whose output lands outside the markers. Later lines overwrite
 * earlier ones for the same id.
 *
 * One unavoidable departure: upstream stores whatever token starts with a status word
 * ("ERROR:" from `ERROR: file not found: x`), and such a status grades as neither success nor
 * failure. TestStatus cannot hold it, so those ids are dropped at the end and grade as missing.
 * The fallback decision still sees them, as upstream's does.
 *
 * A JavaScript parser is named the same way (upstream's function without `parse_log_`);
 * `instanceId` is read only by "immutable_js", which picks its runner by it, as upstream's does.
 */
export function parseTestLog(
  log: string,
  parser: TestLogParser | JsLogParser,
  options: { readonly instanceId?: string } = {},
): Record<string, TestStatus> {
  if (parser === "js-results") return parseJsResultsLog(log);
  const parse = isJsLogParser(parser)
    ? (text: string) => JS_RAW_PARSERS[parser](text, options.instanceId)
    : RAW_PARSERS[parser];
  let raw = parse(extractTestOutput(log).text);
  if (raw.size === 0) raw = parse(log);
  // fromEntries defines own properties, so an id such as "__proto__" stays an ordinary key.
  return Object.fromEntries(
    [...raw].filter((entry): entry is [string, TestStatus] => isTestStatus(entry[1])),
  );
}

/** The raw parsers, keeping upstream's status token whatever it is, in first-seen id order. */
const RAW_PARSERS: Readonly<Record<LogParser, (text: string) => Map<string, string>>> = {
  pytest: (text) => parsePytest(text, false),
  pytest_options: (text) => parsePytest(text, true),
  pytest_v2: parsePytestV2,
  matplotlib: (text) => parsePytest(text, false, renameMouseButtons),
  seaborn: parseSeaborn,
  django: parseDjango,
  sympy: parseSympy,
};

/**
 * `parse_log_pytest`, with `rewritesOptions` `parse_log_pytest_options`, and with matplotlib's
 * line rewrite `parse_log_matplotlib`.
 *
 * The id is the second whitespace token, so it ends at its first space: `test_x[a b]` becomes
 * `test_x[a`. The dataset ids were cut the same way. On FAILED lines every " - " is first
 * turned into " ", which also shortens a parameter containing " - ".
 */
function parsePytest(
  text: string,
  rewritesOptions: boolean,
  rewriteLine: (line: string) => string = (line) => line,
): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const rawLine of text.split("\n")) {
    let line = rewriteLine(rawLine);
    if (!startsWithStatus(line)) continue;
    if (line.startsWith("FAILED")) line = line.replaceAll(" - ", " ");
    const [status, name] = splitOnWhitespace(line);
    if (status === undefined || name === undefined) continue;
    if (isSkipSummary(status, name)) continue;
    statuses.set(rewritesOptions ? rewriteOption(name) : name, status);
  }
  return statuses;
}

/**
 * The options variant's id rewrite: a parameter that is an absolute path keeps only its last
 * segment, so machine-specific temp paths match (`test_x[/tmp/a/b.txt]` -> `test_x[/b.txt]`).
 *
 * Upstream rebuilds every bracketed name as `main[option]`, so anything after the last "]" is
 * dropped, even when the option is left alone.
 */
function rewriteOption(name: string): string {
  const match = OPTION_PATTERN.exec(name);
  if (match === null) return name;
  const main = match[1] ?? "";
  let option = match[2] ?? "";
  if (option.startsWith("/") && !option.startsWith("//") && !option.includes("*")) {
    option = "/" + (option.split("/").at(-1) ?? "");
  }
  return `${main}[${option}]`;
}

/**
 * `parse_log_pytest_v2`: strips SGR remains and control characters, then keeps the whole rest of
 * the line as the id, spaces included (runs of whitespace become one space).
 *
 * Only FAILED lines are cut at the first " - ", so ERROR and XFAIL ids keep their message
 * (`ERROR t.py::test_e - RuntimeError: boom` gives `t.py::test_e - RuntimeError: boom`), and a
 * FAILED id whose parameter contains " - " is cut inside the brackets. Lines that do not start
 * with a status word but end with one are the older `path::test PASSED` form.
 */
function parsePytestV2(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const rawLine of text.split("\n")) {
    let line = removeControlCharacters(rawLine.replace(SGR_REMAINS, ""));
    if (startsWithStatus(line)) {
      if (line.startsWith("FAILED")) line = line.split(" - ")[0] ?? "";
      const tokens = splitOnWhitespace(line);
      const [status, name] = tokens;
      if (status !== undefined && name !== undefined && !isSkipSummary(status, name)) {
        statuses.set(tokens.slice(1).join(" "), status);
      }
    } else if (STATUS_WORDS.some((word) => line.endsWith(word))) {
      const tokens = splitOnWhitespace(line);
      const status = tokens.at(-1);
      if (tokens.length >= 2 && status !== undefined) {
        statuses.set(tokens.slice(0, -1).join(" "), status);
      }
    }
  }
  return statuses;
}

/**
 * matplotlib's rewrite of every line before the pytest reading: mouse-button enum members in
 * parametrized ids become the numbers older matplotlib printed, so ids match across versions
 * (`test_x[MouseButton.LEFT]` -> `test_x[1]`). Every occurrence on the line, anywhere.
 */
function renameMouseButtons(line: string): string {
  return line.replaceAll("MouseButton.LEFT", "1").replaceAll("MouseButton.RIGHT", "3");
}

/**
 * `parse_log_seaborn`: only FAILED and PASSED count. A line starting with FAILED records its second
 * word as failed, with no " - " handling (the message after it is simply not read); a line with
 * " PASSED " inside records its first word when PASSED is the second (pytest -v's
 * `path::test PASSED [ 5%]`); otherwise a line starting with PASSED records its second word.
 * Lines of fewer than two words are skipped. SKIPPED, ERROR and XFAIL tests stay missing.
 */
function parseSeaborn(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of text.split("\n")) {
    const parts = splitOnWhitespace(line);
    const [first, second] = parts;
    if (first === undefined || second === undefined) continue;
    if (line.startsWith("FAILED")) {
      statuses.set(second, "FAILED");
    } else if (line.includes(" PASSED ")) {
      if (second === "PASSED") statuses.set(first, "PASSED");
    } else if (line.startsWith("PASSED")) {
      statuses.set(second, "PASSED");
    }
  }
  return statuses;
}

/** Whether a parser name is one of the JavaScript parsers. */
function isJsLogParser(parser: TestLogParser | JsLogParser): parser is JsLogParser {
  return (JS_LOG_PARSERS as readonly string[]).includes(parser);
}

/** Upstream's line filter: `any(line.startswith(x.value) for x in TestStatus)`. */
function startsWithStatus(line: string): boolean {
  return STATUS_WORDS.some((word) => line.startsWith(word));
}

/**
 * Upstream's `_is_skip_summary`. Scoped to SKIPPED: a wrapped `PASSED [100%]` line still yields
 * the id "[100%]", which two pytest PASS_TO_PASS lists in the dataset literally expect.
 */
function isSkipSummary(status: string, name: string): boolean {
  return status === "SKIPPED" && SKIP_SUMMARY_COUNT.test(name);
}

/** Narrows a raw status token to a TestStatus (it may be, e.g., "ERROR:"). */
function isTestStatus(token: string): token is TestStatus {
  return (STATUS_WORDS as readonly string[]).includes(token);
}

/**
 * Deletes U+0001..U+001F, as upstream's `str.translate` does. That includes tab and ESC, so
 * "a\tb" becomes "ab" and an SGR code the regex missed ("\x1b[1;31m") leaves "[1;31m" behind.
 */
function removeControlCharacters(line: string): string {
  return line.replace(CONTROL_CHARACTERS, "");
}
