/**
 * The Python side of canary tests (`canaries.ts`): where a test module can take a new test
 * function, and the functions themselves. Pure: text in, text out, with the randomness given.
 * The code written is Python 2 and 3 alike (no annotations, no f-strings), since a task's era
 * may be either.
 */

/** A source of numbers in [0, 1). */
export type Random = () => number;

/** One canary as written into a test module. */
export interface CanaryFunction {
  /** The function's name, which is also the last part of its test id. */
  readonly name: string;
  /** Whether its body fails (an assertion or an exception) or passes. */
  readonly mustFail: boolean;
  /** Whether it registers the end-of-process sentinel. */
  readonly carriesSentinel: boolean;
}

/** What a canary function needs said about it before its text is made. */
export type CanaryRequest = Omit<CanaryFunction, "name">;

/** A seeded generator (mulberry32): the same seed, the same canaries, for tests. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [low, high]. */
export function randomInt(random: Random, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/**
 * The 0-based line numbers of a module's top-level statements where a function can be put
 * before: a `def`, `async def`, `class` or the first decorator above one, at column 0 and
 * outside any string, bracket or continued line. A scan of Python's lexical rules rather than
 * a parse, so it runs in lab without the era's interpreter; it errs towards fewer places.
 */
export function findInsertionLines(source: string): number[] {
  const lines = source.split("\n");
  const places: number[] = [];
  let quote: string | null = null;
  let depth = 0;
  let continued = false;
  let previousTopLevel = "";
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const startsStatement = quote === null && depth === 0 && !continued;
    if (startsStatement && /^[^\s#]/.test(line)) {
      const opensDefinition = /^(def |async def |class |@)/.test(line);
      if (opensDefinition && !previousTopLevel.startsWith("@")) places.push(index);
      previousTopLevel = line;
    }
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
  return places;
}

/** Words a canary's name is made of, beside those of the module's own tests. */
const WORDS = [
  "value", "empty", "default", "items", "mapping", "order", "format", "parse", "round", "trip",
  "basic", "nested", "unicode", "result", "keys", "update", "merge", "copy", "repr", "equal",
  "length", "prefix", "suffix", "split", "join", "limit", "index", "count", "reverse", "call",
  "args", "kwargs", "attribute", "missing", "extra", "multiple", "single", "case", "path",
  "name", "text", "data", "option", "flag", "state", "compare", "convert", "handle", "return",
] as const; // prettier-ignore

/** The words of a module's own test names (`def test_parse_url` gives parse, url). */
export function wordsOf(source: string): string[] {
  const words = new Set<string>();
  for (const match of source.matchAll(/^\s*def test_(\w+)\s*\(/gm)) {
    for (const word of (match[1] ?? "").split("_"))
      if (/^[a-z][a-z0-9]{1,14}$/.test(word)) words.add(word);
  }
  return [...words];
}

/** A test name not yet used in `source` nor in `taken`, looking like the module's own. */
export function canaryName(random: Random, source: string, taken: Set<string>): string {
  const own = wordsOf(source);
  for (;;) {
    const count = randomInt(random, 2, 3);
    const words: string[] = [];
    while (words.length < count) {
      const word = own.length > 0 && random() < 0.5 ? pick(random, own) : pick(random, WORDS);
      if (!words.includes(word)) words.push(word);
    }
    const name = `test_${words.join("_")}`;
    const free = (word: string): boolean => !new RegExp(`\\b${word}\\b`).test(source);
    if (!taken.has(name) && free(name) && free(className(name))) {
      taken.add(name);
      return name;
    }
  }
}

/** One statement body, passing or failing: the two differ only in a value. */
function body(random: Random, mustFail: boolean): string[] {
  const a = randomInt(random, 2, 60);
  const b = randomInt(random, 61, 99);
  const c = randomInt(random, 0, a - 1);
  const w1 = pick(random, WORDS);
  const w2 = pick(
    random,
    WORDS.filter((word) => word !== w1),
  );
  const templates: (() => string[])[] = [
    () => [
      `items = [${String(b)}, ${String(a)}, ${String(c)}]`,
      `assert sorted(items) == [${mustFail ? [a, c, b].join(", ") : [c, a, b].join(", ")}]`,
    ],
    () => [
      `parts = ["${w1}", "${w2}"]`,
      `assert "-".join(parts) == "${w1}${mustFail ? "_" : "-"}${w2}"`,
    ],
    () => [
      `mapping = {"${w1}": ${String(a)}}`,
      mustFail
        ? `assert mapping["${w2}"] == ${String(a)}`
        : `assert mapping.get("${w1}") == ${String(a)}`,
    ],
    () => [
      `values = [${String(a)}, ${String(b)}]`,
      `assert sum(values) == ${String(a + b + (mustFail ? 1 : 0))}`,
    ],
    () => [
      `text = "${w1} ${w2}"`,
      mustFail ? `assert int(text.split()[0]) == ${String(a)}` : `assert len(text.split()) == 2`,
    ],
  ];
  return pick(random, templates)();
}

/**
 * How canaries are written: module-level functions (pytest, SymPy's bin/test) or, for unittest
 * runners (Django's runtests.py), each in a TestCase class of its own.
 */
export type CanaryStyle = "functions" | "unittest";

/** The lines of one canary: a function, or a TestCase class holding it as its one method. */
export function canaryLines(
  random: Random,
  canary: CanaryFunction,
  sentinel: string,
  style: CanaryStyle = "functions",
): string[] {
  const inner: string[] = [];
  if (canary.carriesSentinel) {
    // Registered while the tests run, so it runs before any exit handler registered earlier
    // (at import, by the change's code): whatever those print comes after the sentinel.
    inner.push(
      "import atexit",
      "import sys",
      "",
      "def _done():",
      '    stream = getattr(sys, "__stdout__", None) or sys.stdout',
      `    stream.write("\\n${sentinel}\\n")`,
      "    stream.flush()",
      "",
      "atexit.register(_done)",
    );
  }
  inner.push(...body(random, canary.mustFail));
  const indent = (lines: readonly string[], by: string): string[] =>
    lines.map((line) => (line === "" ? "" : `${by}${line}`));
  if (style === "functions") return [`def ${canary.name}():`, ...indent(inner, "    ")];
  // No import at the module's top: the class names unittest itself.
  return [
    `class ${className(canary.name)}(__import__("unittest").TestCase):`,
    `    def ${canary.name}(self):`,
    ...indent(inner, "        "),
  ];
}

/** `test_parse_default_value` -> `TestParseDefaultValue`. */
export function className(name: string): string {
  return name
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/**
 * The places of `insertCanaries` up to the module's last test function (`def test_...`, or the
 * decorators above it), or null when it has none. SymPy's bin/test runs a module's functions in
 * the order of their lines and writes its `[OK]`/`[FAIL]` mark on the last one's line, which
 * SWE-bench's parser then cannot read: a canary after the module's last test would take that
 * place, hiding the canary and showing the test.
 */
function placesUpToLastTest(lines: readonly string[], places: readonly number[]): number[] | null {
  const isTest = (place: number): boolean => {
    for (let index = place; index < lines.length; index++) {
      const line = lines[index] ?? "";
      if (/^(async\s+)?def\s/.test(line)) return /^(async\s+)?def\s+test_/.test(line);
      if (/^class\s/.test(line)) return false;
    }
    return false;
  };
  const last = places.filter(isTest).at(-1);
  return last === undefined ? null : places.filter((place) => place <= last);
}

/**
 * `source` with each canary put before a randomly chosen top-level definition (or at the end),
 * two blank lines around it as PEP 8 spaces functions. Returns the new text and the canaries.
 * With `beforeLastTest` (SymPy's bin/test) every canary goes before the module's last test
 * function, which stays the last test run.
 */
export function insertCanaries(
  source: string,
  requests: readonly CanaryRequest[],
  random: Random,
  sentinel: string,
  style: CanaryStyle = "functions",
  options: { readonly beforeLastTest?: boolean } = {},
): { text: string; canaries: CanaryFunction[] } {
  const newline = source.includes("\r\n") ? "\r\n" : "\n";
  const lines = source.split(newline);
  if (lines.at(-1) === "") lines.pop();
  const definitions = findInsertionLines(source).filter((line) => line < lines.length);
  const places = (options.beforeLastTest === true
    ? placesUpToLastTest(lines, definitions)
    : null) ?? [...definitions, lines.length];
  const taken = new Set<string>();
  const byPlace = new Map<number, string[]>();
  const canaries: CanaryFunction[] = [];
  for (const request of requests) {
    const canary = { ...request, name: canaryName(random, source, taken) };
    canaries.push(canary);
    const place = pick(random, places);
    const text = canaryLines(random, canary, sentinel, style);
    byPlace.set(place, [...(byPlace.get(place) ?? []), ...text, "", ""]);
  }
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    out.push(...(byPlace.get(index) ?? []), lines[index] as string);
  }
  const atEnd = byPlace.get(lines.length);
  if (atEnd !== undefined) out.push("", "", ...atEnd.slice(0, -2));
  return { text: `${out.join(newline)}${newline}`, canaries };
}
