/**
 * The parsers of the two repositories that do not test with pytest: Django's
 * `tests/runtests.py --verbosity 2` (unittest's verbose runner) and SymPy's `bin/test -C --verbose`.
 *
 * A line-for-line port of `parse_log_django` and `parse_log_sympy` in SWE-bench/SWE-bench
 * `swebench/harness/log_parsers/python.py` at 7a21e05 (release 5.0.2), which are identical to
 * 6cd91d8's. The dataset's FAIL_TO_PASS and PASS_TO_PASS ids were made by these parsers, so every
 * quirk is kept on purpose, and each is named where it happens.
 */
import {
  beforeFirst,
  beforeLast,
  PYTHON_SPACE_CLASS,
  splitOnWhitespace,
  stripPython,
} from "./python-text.js";

/** Python `\s`: the whitespace `str` patterns know (JavaScript's `\s` is a different set). */
const S = `[${PYTHON_SPACE_CLASS}]`;
/** Python's `.` without DOTALL: anything but "\n" (JavaScript's also refuses "\r", U+2028, U+2029). */
const DOT = "[^\\n]";
/** Python's `^` under MULTILINE: the start, or just after a "\n" (not after "\r" as in JavaScript). */
const LINE_START = "(?<![^\\n])";
/** Python's `$` under MULTILINE: the end, or just before a "\n". */
const LINE_END = "(?![^\\n])";

/**
 * Upstream's three patterns for a test whose "ok" was pushed to the next line by a long message
 * printed in between, run over the whole log. The first one's middle part may span lines
 * (`(?s:.*?)`); each is otherwise Python's pattern with the tokens above.
 */
const DJANGO_SPLIT_OK = [
  `${LINE_START}(${DOT}*?)${S}\\.\\.\\.${S}Testing against Django installed in ([\\s\\S]*?) silenced\\)\\.\\nok${LINE_END}`,
  `${LINE_START}(${DOT}*?)${S}\\.\\.\\.${S}Internal Server Error: \\/(${DOT}*)\\/\\nok${LINE_END}`,
  `${LINE_START}(${DOT}*?)${S}\\.\\.\\.${S}System check identified no issues \\(0 silenced\\)\\nok${LINE_END}`,
].map((source) => new RegExp(source, "g"));

/** The endings that mark a passed test, tried in this order. */
const DJANGO_PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"] as const;

/** Upstream's one-instance fix for django__django-7188, where a migration line and a test share a line. */
const DJANGO_7188_PREFIX = "Applying sites.0002_alter_domain_unique...test_no_migrations";

/** The one id upstream records for a help-text test whose output spans lines. */
const DJANGO_VERSION_ID = "--version is equivalent to version";

/**
 * `parse_log_django`. The id is whatever precedes " ... " on the status line, so a test with a
 * docstring is known by the docstring's first line (unittest prints it on its own line under the
 * name), and the dataset's ids are such lines too.
 *
 * Quirks kept: a line that starts with "ok" marks the last test seen with " ... " as passed, however
 * long ago and whatever its status was (that is how a test whose output pushed "ok" to the next line
 * passes); a `FAIL:` or `ERROR:` line records its second word, so `ERROR: test_x (m.T)` records
 * `test_x` and a bare message records its first word. One departure: upstream raises on a line
 * that is only `FAIL:` or `ERROR:`, which ends the whole grade; here the line is skipped.
 */
export function parseDjango(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  let previousTest: string | null = null;
  for (const rawLine of text.split("\n")) {
    let line = stripPython(rawLine);
    if (line.includes(DJANGO_VERSION_ID)) statuses.set(DJANGO_VERSION_ID, "PASSED");
    if (line.includes(" ... ")) previousTest = beforeFirst(line, " ... ");
    for (const suffix of DJANGO_PASS_SUFFIXES) {
      if (line.endsWith(suffix)) {
        if (line.startsWith(DJANGO_7188_PREFIX)) {
          // Python's split("...", 1)[-1]: the rest of the line after the migration's "...".
          line = stripPython(line.slice(line.indexOf("...") + 3));
        }
        statuses.set(beforeLast(line, suffix), "PASSED");
        break;
      }
    }
    if (line.includes(" ... skipped")) statuses.set(beforeFirst(line, " ... skipped"), "SKIPPED");
    if (line.endsWith(" ... FAIL")) statuses.set(beforeFirst(line, " ... FAIL"), "FAILED");
    if (line.startsWith("FAIL:")) {
      const word = splitOnWhitespace(line)[1];
      if (word !== undefined) statuses.set(word, "FAILED");
    }
    if (line.endsWith(" ... ERROR")) statuses.set(beforeFirst(line, " ... ERROR"), "ERROR");
    if (line.startsWith("ERROR:")) {
      const word = splitOnWhitespace(line)[1];
      if (word !== undefined) statuses.set(word, "ERROR");
    }
    if (line.startsWith("ok") && previousTest !== null) statuses.set(previousTest, "PASSED");
  }
  for (const pattern of DJANGO_SPLIT_OK) {
    for (const match of text.matchAll(pattern)) statuses.set(match[1] ?? "", "PASSED");
  }
  return statuses;
}

/**
 * `(_*) (.*)\.py:(.*) (_*)` over the whole log: the `___ path.py:test_name ___` header SymPy prints
 * above each failure's traceback. Unanchored and with an underscore run that may be empty, so any
 * line holding " something.py:something " matches; the name runs to the line's last space.
 */
const SYMPY_FAILURE_HEADER = new RegExp(`(_*) (${DOT}*)\\.py:(${DOT}*) (_*)`, "g");

/**
 * `parse_log_sympy`. Failure headers mark `path.py:test_name` ids as failed; then every line that
 * starts with "test_" and ends in " E", " F" or " ok" (SymPy's verbose per-test lines) records its
 * first word. Other outcomes (`f` expected failure, `s` skipped, `X`, `w`) are not recorded, so
 * such a test is missing from the map.
 */
export function parseSympy(text: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const match of text.matchAll(SYMPY_FAILURE_HEADER)) {
    statuses.set(`${match[2] ?? ""}.py:${match[3] ?? ""}`, "FAILED");
  }
  for (const rawLine of text.split("\n")) {
    const line = stripPython(rawLine);
    if (!line.startsWith("test_")) continue;
    const name = splitOnWhitespace(line)[0] ?? "";
    if (line.endsWith(" E")) statuses.set(name, "ERROR");
    if (line.endsWith(" F")) statuses.set(name, "FAILED");
    if (line.endsWith(" ok")) statuses.set(name, "PASSED");
  }
  return statuses;
}
