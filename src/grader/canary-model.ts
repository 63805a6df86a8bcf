/**
 * What a test module's own tests look like, for canaries made from them (`canary-source.ts`):
 * its test functions and methods with their decorators, signatures and bodies, the places a
 * body can be cut at, the names it imports and the words it is written in. A scan of Python's
 * lexical rules rather than a parse, so it runs in lab without the era's interpreter (Python 2
 * modules included); it errs towards fewer tests and fewer places.
 */

/** One test function or method of a module, by 0-based line numbers. */
export interface ModelTest {
  readonly name: string;
  /** Its first line: the first decorator, or the `def`. */
  readonly start: number;
  /** The `def` line. */
  readonly def: number;
  /** One past its last line of code (trailing blank and comment lines left out). */
  readonly end: number;
  /** The line of the class it is a method of, or null for a module-level function. */
  readonly container: number | null;
  /** Whether it has decorators. */
  readonly decorated: boolean;
  /** The indentation of its body's statements. */
  readonly bodyIndent: string;
  /**
   * Where its body can end: lines of its body-level statements after the first (never an
   * `else`, `except` or the like, never after a decorator), and `end`. The lines from `def + 1`
   * up to a cut are a valid body.
   */
  readonly cuts: readonly number[];
  /**
   * Its body-level statements that can be replaced by another of one line: [first line, one
   * past the last], never an `else`, `except` or the like, a decorator, or one followed by such.
   */
  readonly replaceable: readonly (readonly [number, number])[];
  /** Its body-level statements in order, each [first line, one past the last]. */
  readonly statements: readonly (readonly [number, number])[];
}

/** A module as canaries see it. */
export interface ModelModule {
  readonly lines: readonly string[];
  readonly tests: readonly ModelTest[];
  /** Names its top-level imports bind from modules other than the standard library's and test tools'. */
  readonly projectNames: readonly string[];
  /** The words of its identifiers (`parse_url`, `parseUrl` give parse, url), most used first. */
  readonly vocabulary: readonly string[];
  /** The words that stand as whole names in it outside its tests' `def` lines (`standaloneWords`). */
  readonly standalone: ReadonlySet<string>;
}

/**
 * Which lines start a logical statement: outside any string, bracket or continued line, and
 * neither blank nor a comment.
 */
export function statementStarts(lines: readonly string[]): boolean[] {
  const starts: boolean[] = [];
  let quote: string | null = null;
  let depth = 0;
  let continued = false;
  for (const line of lines) {
    starts.push(quote === null && depth === 0 && !continued && /^\s*[^\s#]/.test(line));
    continued = false;
    let at = 0;
    while (at < line.length) {
      const char = line[at] as string;
      if (quote !== null) {
        if (char === "\\") at += 2;
        else if (line.startsWith(quote, at)) {
          at += quote.length;
          quote = null;
        } else at += 1;
        continue;
      }
      if (char === "#") break;
      if (char === "'" || char === '"') {
        const triple = line.startsWith(char.repeat(3), at);
        quote = triple ? char.repeat(3) : char;
        at += quote.length;
        continue;
      }
      if ("([{".includes(char)) depth++;
      else if (")]}".includes(char)) depth = Math.max(0, depth - 1);
      else if (char === "\\" && at === line.replace(/\r$/, "").length - 1) continued = true;
      at += 1;
    }
    // A one-quote string cannot span lines (without a backslash, which the scan skips over).
    if (quote !== null && quote.length === 1 && !line.endsWith("\\")) quote = null;
  }
  return starts;
}

const indentOf = (line: string): string => /^\s*/.exec(line)?.[0] ?? "";

/** Statements that continue the one before them: a body cannot end just before one. */
const CONTINUATION = /^\s*(else|elif|except|finally)\b/;

/**
 * The module's test functions (`def test...` at the top level) and methods (in a top-level
 * class whose line names a test: `class TestX`, `class XTests(TestCase)`), with the places
 * their bodies can be cut at.
 */
export function findModelTests(lines: readonly string[]): ModelTest[] {
  const starts = statementStarts(lines);
  const at = (index: number): string => lines[index] ?? "";
  const statements = lines.map((_, index) => index).filter((index) => starts[index]);
  const tests: ModelTest[] = [];
  let container: number | null = null;
  // The indentation of the class body's statements, from its first one.
  let containerIndent: string | null = null;
  for (const [position, index] of statements.entries()) {
    const line = at(index);
    const indent = indentOf(line);
    if (indent === "") {
      container = /^class\s.*Test/.test(line) ? index : null;
      const next = statements[position + 1];
      containerIndent = container === null || next === undefined ? null : indentOf(at(next));
    }
    const def = /^(\s*)def\s+(test\w*)\s*\(/.exec(line);
    if (def === null) continue;
    if (indent !== "" && (container === null || indent !== containerIndent)) continue;
    // The statements of its body: those after it, up to one indented no deeper than it.
    let stop = position + 1;
    while (
      stop < statements.length &&
      indentOf(at(statements[stop] as number)).length > indent.length
    )
      stop++;
    const body = statements.slice(position + 1, stop);
    const first = body[0];
    if (first === undefined) continue;
    const bodyIndent = indentOf(at(first));
    let end = statements[stop] ?? lines.length;
    while (end > first + 1 && /^\s*(#.*)?$/.test(at(end - 1))) end--;
    const own = body.filter((next) => next < end && indentOf(at(next)) === bodyIndent);
    const cuts = own
      .filter(
        (next, k) =>
          k > 0 && !CONTINUATION.test(at(next)) && !/^\s*@/.test(at(own[k - 1] as number)),
      )
      .concat(end);
    const replaceable = own.flatMap((next, k): [number, number][] => {
      const following = own[k + 1] ?? end;
      const continues = k + 1 < own.length && CONTINUATION.test(at(following));
      const decorated = k > 0 && /^\s*@/.test(at(own[k - 1] as number));
      return CONTINUATION.test(at(next)) || /^\s*@/.test(at(next)) || continues || decorated
        ? []
        : [[next, following]];
    });
    const spans = own.map((next, k): [number, number] => [next, own[k + 1] ?? end]);
    let start = index;
    for (let back = position - 1; back >= 0; back--) {
      const previous = statements[back] as number;
      if (indentOf(at(previous)) !== indent || !/^\s*@/.test(at(previous))) break;
      start = previous;
    }
    tests.push({
      name: def[2] as string,
      start,
      def: index,
      end,
      container: indent === "" ? null : container,
      decorated: start !== index,
      bodyIndent,
      cuts,
      replaceable,
      statements: spans,
    });
  }
  return tests;
}

/** Modules whose names are not the project's: the standard library's most used, test tools. */
const NOT_PROJECT = new Set([
  "__future__", "_pytest", "abc", "collections", "contextlib", "copy", "dataclasses", "datetime",
  "decimal", "doctest", "enum", "fractions", "functools", "gc", "hypothesis", "importlib",
  "inspect", "io", "itertools", "json", "logging", "math", "mock", "operator", "os", "pathlib",
  "pickle", "platform", "pytest", "random", "re", "shutil", "six", "string", "subprocess", "sys",
  "tempfile", "textwrap", "threading", "time", "types", "typing", "unittest", "warnings", "weakref",
]); // prettier-ignore

/** The names a module's top-level imports bind from modules that may be the project's. */
export function projectNamesOf(lines: readonly string[]): string[] {
  const names = new Set<string>();
  const text = lines.join("\n");
  for (const match of text.matchAll(/^from\s+([.\w]+)\s+import\s+(\([^)]*\)|[^\n#;]+)/gm)) {
    const from = match[1] ?? "";
    if (NOT_PROJECT.has(from.split(".")[0] ?? "")) continue;
    for (const part of (match[2] ?? "").replace(/[()\\]/g, " ").split(",")) {
      const bound = /(\w+)\s*$/.exec(part.trim())?.[1];
      if (bound !== undefined && bound !== "import" && !part.includes("*")) names.add(bound);
    }
  }
  for (const match of text.matchAll(/^import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$/gm)) {
    const module = match[1] ?? "";
    if (NOT_PROJECT.has(module.split(".")[0] ?? "")) continue;
    names.add(match[2] ?? (module.split(".")[0] as string));
  }
  return [...names].filter((name) => /^[A-Za-z_]\w*$/.test(name));
}

const KEYWORDS = new Set(
  "and as assert async await break class continue def del elif else except false finally for from global if import in is lambda none nonlocal not or pass print raise return self true try while with yield test tests".split(
    " ",
  ),
);

/** The words of a module's identifiers, most used first. */
export function vocabularyOf(lines: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    for (const identifier of line.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
      const words = identifier[0]
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .toLowerCase()
        .split("_");
      for (const word of words)
        if (/^[a-z][a-z0-9]{1,13}$/.test(word) && !KEYWORDS.has(word))
          counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([word]) => word);
}

/**
 * The words a canary's name may use: those that stand as whole names in the module outside its
 * test functions' `def` lines (`parse` of `value = parse(text)`, not of `parse_url` alone), so no
 * word of a canary's name is found in the module only in that name.
 */
export function standaloneWords(lines: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const line of lines) {
    if (/^\s*def\s+test/.test(line)) continue;
    for (const match of line.matchAll(/\w+/g)) words.add(match[0]);
  }
  return words;
}

/** What skips a test at run time: a skip mark or decorator, importorskip, skipTest, SkipTest. */
const SKIPS = /\b(?:importorskip|skipTest|SkipTest)\b|\bskip\s*\(|\bmark\.skip/;
const SKIP_DECORATOR = /^\s*@.*\bskip/i;

/**
 * Whether a test may be skipped as it runs: by its decorators, by a statement of its body, or
 * with its whole class (a class decorator, or a statement of the class outside its tests: a
 * `setup_class` that calls importorskip, a `pytestmark`). A skipped test's result has no id in
 * pytest's `-rA` summary (`SKIPPED [8] testing/test_unittest.py:416: could not import
 * 'twisted...'`), so a canary copied from it or put in its class would look missing from the log
 * while its module ran; gold was flagged so on four of pytest's Verified tasks.
 */
function maySkip(lines: readonly string[], test: ModelTest, tests: readonly ModelTest[]): boolean {
  const span = (from: number, to: number): string[] => lines.slice(from, to);
  if (span(test.start, test.def).some((line) => SKIP_DECORATOR.test(line))) return true;
  if (span(test.def + 1, test.end).some((line) => SKIPS.test(line))) return true;
  if (test.container === null) return false;
  const container = test.container;
  let before = container - 1;
  while (before >= 0 && /^@/.test(lines[before] ?? "")) {
    if (SKIP_DECORATOR.test(lines[before] ?? "")) return true;
    before--;
  }
  let classEnd = container + 1;
  while (classEnd < lines.length && !/^\S/.test(lines[classEnd] ?? "")) classEnd++;
  const inTests = (index: number): boolean =>
    tests.some(
      (other) => other.container === container && index >= other.start && index < other.end,
    );
  for (let index = container + 1; index < classEnd; index++)
    if (!inTests(index) && SKIPS.test(lines[index] ?? "")) return true;
  return false;
}

/** The module's tests, imports and words. */
export function readModelModule(lines: readonly string[]): ModelModule {
  const all = findModelTests(lines);
  return {
    lines,
    // Tests that may be skipped neither give canaries nor hold them.
    tests: all.filter((test) => !maySkip(lines, test, all)),
    projectNames: projectNamesOf(lines),
    vocabulary: vocabularyOf(lines),
    standalone: standaloneWords(lines),
  };
}
