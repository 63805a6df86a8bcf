/**
 * The log parsers of SWE-bench Multilingual's JavaScript/TypeScript repositories.
 *
 * A line-for-line port of `parse_log_jest`, `parse_log_jest_json`, `parse_log_vitest`,
 * `parse_log_karma`, `parse_log_tap` and `parse_log_immutable_js` in SWE-bench/SWE-bench
 * `swebench/harness/log_parsers/javascript.py` at a62387d, the commit whose
 * `constants/javascript.py` lab's specs come from (data/swebench/multilingual/). The dataset's
 * FAIL_TO_PASS and PASS_TO_PASS ids were made by these parsers, so their quirks are kept and named.
 * Upstream's regexes are Python's; each is rebuilt with Python's `\s` and `.` (see below).
 * The marker slicing and the whole-log fallback are parseTestLog's, as for every language upstream.
 */
import { LabError, type JsLogParser } from "../core/index.js";
import { PYTHON_SPACE_CLASS, stripPython } from "./python-text.js";

/** Python `\s`: the whitespace `str` patterns know (JavaScript's `\s` is a different set). */
const S = `[${PYTHON_SPACE_CLASS}]`;
/** Python's `.` without DOTALL: anything but "\n" (JavaScript's also refuses "\r", U+2028, U+2029). */
const DOT = "[^\\n]";
/** Python `\d` in a `str` pattern: any Unicode decimal digit. */
const DIGIT = "\\p{Nd}";

/** `^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$`: Jest's --verbose line, its duration optional. */
const JEST_LINE = new RegExp(`^${S}*(✓|✕|○)${S}(${DOT}+?)(?:${S}\\((${DIGIT}+${S}*m?s)\\))?$`, "u");

/** `^\[(PASSED|FAILED)\]\s(.+)$`: a line of upstream's jq transform of `jest --json`. */
const JEST_JSON_LINE = new RegExp(`^\\[(PASSED|FAILED)\\]${S}(${DOT}+)$`, "u");

/** `^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$`: vitest's verbose reporter line. */
const VITEST_LINE = new RegExp(
  `^${S}*(✓|×|↓)${S}(${DOT}+?)(?:${S}(${DIGIT}+${S}*m?s?|\\[skipped\\]))?$`,
  "u",
);

/** `^(\s*)?([✔✖])?\s(.*)$`: a line of karma-mocha-reporter's tree, a suite or a test. */
const KARMA_LINE = new RegExp(`^(${S}*)?([✔✖])?${S}(${DOT}*)$`, "u");

/** `^(ok|not ok) (\d+) (.+)$`: a TAP result line (mocha's `-R tap`, QUnit's CLI). */
const TAP_LINE = new RegExp(`^(ok|not ok) (${DIGIT}+) (${DOT}+)$`, "u");

/**
 * `parse_log_jest` (babel, docusaurus, immutable-js 2006): `✓` passed, `✕` failed, `○` skipped
 * (Jest's skipped and todo tests alike). The id is the test's title alone, without its describe
 * blocks, so same-named tests in two blocks share one id (the last line wins).
 *
 * Quirk kept: the name is not stripped, so a title followed by two spaces before its duration
 * keeps a trailing space. Upstream's main strips it since a3ce3a9 (#616), after a62387d.
 */
export function parseJest(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = JEST_LINE.exec(stripPython(line));
    if (match === null) continue;
    const name = match[2] ?? "";
    if (match[1] === "✓") statuses.set(name, "PASSED");
    else if (match[1] === "✕") statuses.set(name, "FAILED");
    else statuses.set(name, "SKIPPED");
  }
  return statuses;
}

/**
 * `parse_log_jest_json` (immutable-js 2005): the lines upstream's `JEST_JSON_JQ_TRANSFORM` makes of
 * `jest --json`, `[STATUS] ancestor > ... > title`. Only PASSED and FAILED count: Jest's other
 * statuses (pending, todo, skipped, disabled) come out as `[PENDING] ...` and the like, so such
 * tests are missing from the map.
 */
export function parseJestJson(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = JEST_JSON_LINE.exec(stripPython(line));
    if (match === null) continue;
    statuses.set(match[2] ?? "", match[1] === "PASSED" ? "PASSED" : "FAILED");
  }
  return statuses;
}

/**
 * `parse_log_vitest` (vuejs/core, `--reporter=verbose`): `✓` passed, `×` failed, `↓` skipped; the
 * id is the whole `file > describe > test` path as vitest prints it.
 *
 * Quirk kept: the optional duration is `\d+\s*m?s?`, so a bare number ends it too: a title that
 * ends in " 2" with no duration after it loses that number (`✓ f > adds 1 and 2` gives
 * `f > adds 1 and`).
 */
export function parseVitest(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = VITEST_LINE.exec(stripPython(line));
    if (match === null) continue;
    const name = match[2] ?? "";
    if (match[1] === "✓") statuses.set(name, "PASSED");
    else if (match[1] === "×") statuses.set(name, "FAILED");
    else statuses.set(name, "SKIPPED");
  }
  return statuses;
}

/**
 * `parse_log_karma` (preact): karma-mocha-reporter's tree after "Starting browser", up to the
 * "SUMMARY:" line. An indented line without a mark is a describe block; a `✔` or `✖` line is a test,
 * whose id is the open blocks and its title joined by " > ".
 *
 * Upstream calls it brittle, and the quirks are kept: the indent is the leading whitespace less
 * one character (the pattern's `\s` takes the last); a deeper block is pushed, a shallower one only
 * pops one block (however many levels it closes) and is not itself pushed, and one at the same
 * depth changes nothing, so its tests are filed under the block before it. A skipped test has no
 * mark (the reporter prints `title (skipped)`), so it is read as a block: it gets no status, and
 * the tests printed after it are filed under it. One departure: upstream's pop of an empty list
 * raises IndexError, which ends the grade; here it pops nothing.
 */
export function parseKarma(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  let currentIndent = -1;
  const currentSuite: string[] = [];
  let started = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("SUMMARY:")) return statuses;
    if (line.includes("Starting browser")) {
      started = true;
      continue;
    }
    if (!started) continue;
    const match = KARMA_LINE.exec(line);
    if (match === null) continue;
    const [, indent, status, name = ""] = match;
    // Python's `if indent`: the empty string (here also undefined) is false.
    if (indent !== undefined && indent !== "" && status === undefined) {
      const newIndent = indent.length;
      if (newIndent > currentIndent) {
        currentIndent = newIndent;
        currentSuite.push(name);
      } else if (newIndent < currentIndent) {
        currentIndent = newIndent;
        currentSuite.pop();
        continue;
      }
    }
    if (status === "✔" || status === "✖") {
      statuses.set([...currentSuite, name].join(" > "), status === "✔" ? "PASSED" : "FAILED");
    }
  }
  return statuses;
}

/**
 * `parse_log_tap` (axios's `mocha -R tap`, three.js's `qunit`): `ok N title` passed, `not ok N
 * title` failed. TAP's directives are not read, so a skipped test is `ok` and counts as passed,
 * under an id that keeps the directive: mocha prints `ok 3 title # SKIP -`, QUnit
 * `ok 3 # SKIP title`.
 */
export function parseTap(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = TAP_LINE.exec(stripPython(line));
    if (match === null) continue;
    statuses.set(match[3] ?? "", match[1] === "ok" ? "PASSED" : "FAILED");
  }
  return statuses;
}

/**
 * `parse_log_immutable_js`: immutable-js's two instances use different runners, so the parser is
 * chosen by the instance id's last "-" part: 2006 `jest --verbose`, 2005 `jest --json` through jq.
 * Upstream raises ValueError for any other id; here that is a LabError.
 */
export function immutableJsParser(instanceId: string | undefined): "jest" | "jest_json" {
  const number = instanceId?.split("-").at(-1);
  if (number === "2006") return "jest";
  if (number === "2005") return "jest_json";
  throw new LabError(
    "TASK_INVALID",
    `immutable-js's log parser has no runner for instance ${instanceId ?? "(none given)"}.`,
    {
      hint: "Upstream's parse_log_immutable_js knows only immutable-js__immutable-js-2005 and -2006; give the instance id when parsing.",
    },
  );
}

/** The JavaScript parsers by lab's name (upstream's without `parse_log_`); the instance id picks immutable-js's. */
export const JS_RAW_PARSERS: Readonly<
  Record<JsLogParser, (text: string, instanceId: string | undefined) => Map<string, string>>
> = {
  jest: parseJest,
  jest_json: parseJestJson,
  vitest: parseVitest,
  karma: parseKarma,
  tap: parseTap,
  immutable_js: (text, instanceId) =>
    immutableJsParser(instanceId) === "jest" ? parseJest(text) : parseJestJson(text),
};
