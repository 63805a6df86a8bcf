/**
 * Canaries for JavaScript and TypeScript test files (jest, vitest, mocha, node:test): copies of
 * a file's own `it(...)` / `test(...)` calls, put among them, that must fail or must pass
 * whatever the change did. The Python form is canary-source.ts; docs/design/canaries.md says
 * what both are for and what they cannot catch.
 *
 * A scan of JavaScript's lexical rules (strings, template literals, comments, regular
 * expression literals, brackets), not a parse, so TypeScript reads alike; it errs towards fewer
 * tests copied. A test is copied only in the plain form `it("title", () => { ... });` (or
 * `test`, `async`, `function () {`, a trailing timeout or options), standing on lines of its own
 * in a block (the file's top level, a describe's callback, a loop), its title a string or a
 * template literal. A must-fail copy is its model with a new title and its first assertion at
 * the body's level replaced by one about one of the project's names that cannot hold, spread
 * over as many lines: the statements before it run as the model's do, and none after it lacks a
 * name they bind, so a change that disarms the assertions (node's assert, chai) makes the copy
 * pass wherever it makes its model pass. A must-pass copy is its model's call with one
 * assertion that holds as its body.
 * The assertion is written the way the file writes its own: `expect(...).toEqual(...)` (jest,
 * vitest), chai's `expect(...).to...`, or node's `assert` by the file's own name for it; a file
 * with none of these takes no canaries.
 */
import type { NodeUpstreamLogParser } from "../../core/index.js";
import {
  pick,
  placeCanaries,
  type CanaryFunction,
  type CanaryRequest,
  type Random,
} from "../canary-places.js";

/** One copyable test call of a file, by 0-based line numbers. */
export interface JsModelTest {
  /** The title as written: a string's value, or a template literal's source with its backticks. */
  readonly title: string;
  /** Its first line (the `it(` line) and one past its last. */
  readonly start: number;
  readonly end: number;
  /** The line that opens its callback's body (ending with `{`), and the body's closing line. */
  readonly open: number;
  readonly close: number;
  /** Its body's statements, each [first line, one past the last]; null when not told apart. */
  readonly statements: readonly (readonly [number, number])[] | null;
  /** The offset of the block it stands in (`{`), or -1 at the file's top level. */
  readonly container: number;
  /**
   * For a one-line test whose callback's body is an expression (`() => expect(a).toBe(1)`): that
   * expression's [start, end) columns on its line; null for a block body.
   */
  readonly expression: readonly [number, number] | null;
}

/** How a file asserts: what a canary's assertion is written with. */
type AssertStyle =
  | { readonly kind: "expect" }
  | { readonly kind: "chai" }
  | { readonly kind: "assert"; readonly name: string };

/** Modules whose imports are not the project's: test tools and Node's own. */
const NOT_PROJECT =
  /^(node:|vitest$|@vitest\/|jest$|@jest\/|mocha$|chai$|chai-|sinon$|assert$|assert\/|@testing-library\/|expect$|(fs|path|os|url|util|events|stream|child_process|crypto|http|https|net|zlib|buffer|process|timers|worker_threads|readline|module|perf_hooks|tty|v8|vm|querystring|string_decoder|dns)(\/|$))/;

const KEYWORDS = new Set(
  "async await break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null of return super switch this throw true try typeof undefined var void while with yield expect assert describe it test the and require module exports node vitest jest mocha chai".split(
    " ",
  ),
);

/**
 * The source with what is not code blanked: string, template-literal text, comment and regular
 * expression contents become spaces (newlines kept), so brackets and words found in it are
 * code's. Template literals' `${...}` parts stay code.
 */
export function maskJs(source: string): string {
  const out = source.split("");
  const blank = (at: number): void => {
    if (out[at] !== "\n") out[at] = " ";
  };
  // Per open `${`: the brace depth it closes at.
  const templates: number[] = [];
  let depth = 0;
  let at = 0;
  let last = ""; // the last significant code character, for telling a regex from a division
  let lastWord = "";
  const regexAfter = /[(,=:[!&|?{};+\-*%<>~^]/;
  const inTemplate = (): void => {
    // at is just past a backtick or a `}` closing a `${`: blank the text up to the next `${` or backtick.
    while (at < source.length) {
      const char = source[at] as string;
      if (char === "\\") {
        blank(at);
        blank(at + 1);
        at += 2;
      } else if (char === "`") {
        at += 1;
        last = "`";
        return;
      } else if (char === "$" && source[at + 1] === "{") {
        at += 2;
        templates.push(depth);
        depth += 1;
        last = "{";
        return;
      } else {
        blank(at);
        at += 1;
      }
    }
  };
  while (at < source.length) {
    const char = source[at] as string;
    const next = source[at + 1];
    if (char === "/" && next === "/") {
      while (at < source.length && source[at] !== "\n") blank(at++);
      continue;
    }
    if (char === "/" && next === "*") {
      const stop = source.indexOf("*/", at + 2);
      const end = stop === -1 ? source.length : stop + 2;
      while (at < end) blank(at++);
      continue;
    }
    if (char === "'" || char === '"') {
      at += 1;
      while (at < source.length && source[at] !== char && source[at] !== "\n") {
        if (source[at] === "\\") blank(at++);
        blank(at++);
      }
      at += 1;
      last = char;
      lastWord = "";
      continue;
    }
    if (char === "`") {
      at += 1;
      inTemplate();
      lastWord = "";
      continue;
    }
    if (
      char === "/" &&
      (last === "" ||
        regexAfter.test(last) ||
        /^(return|typeof|case|in|of|delete|void|throw|new|else|do|yield|await)$/.test(lastWord))
    ) {
      at += 1;
      let inClass = false;
      while (at < source.length && source[at] !== "\n") {
        const inner = source[at] as string;
        if (inner === "\\") {
          blank(at++);
          blank(at++);
          continue;
        }
        if (inner === "[") inClass = true;
        else if (inner === "]") inClass = false;
        else if (inner === "/" && !inClass) break;
        blank(at++);
      }
      at += 1;
      last = "/";
      lastWord = "";
      continue;
    }
    if (char === "{") depth += 1;
    if (char === "}") {
      if (templates.at(-1) === depth - 1) {
        templates.pop();
        depth -= 1;
        at += 1;
        inTemplate();
        continue;
      }
      depth -= 1;
    }
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    if (/[\w$]/.test(char)) {
      const word = /^[\w$]+/.exec(source.slice(at, at + 64))?.[0] ?? char;
      lastWord = word;
      last = "a";
      at += word.length;
      continue;
    }
    last = char;
    lastWord = "";
    at += 1;
  }
  return out.join("");
}

/** The offset of the bracket closing the one at `open` in masked text, or -1. */
function closing(masked: string, open: number): number {
  let depth = 0;
  for (let at = open; at < masked.length; at++) {
    const char = masked[at] as string;
    if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) {
      depth--;
      if (depth === 0) return at;
    }
  }
  return -1;
}

/**
 * The bracket structure of masked text: for each line, the innermost bracket open at its start
 * (its offset, -1 for none); for each open bracket, the one around it.
 */
export function bracketsOf(masked: string): { lineIn: number[]; parent: Map<number, number> } {
  const stack: number[] = [];
  const lineIn: number[] = [stack.at(-1) ?? -1];
  const parent = new Map<number, number>();
  for (let at = 0; at < masked.length; at++) {
    const char = masked[at] as string;
    if ("([{".includes(char)) {
      parent.set(at, stack.at(-1) ?? -1);
      stack.push(at);
    } else if (")]}".includes(char)) stack.pop();
    else if (char === "\n") lineIn.push(stack.at(-1) ?? -1);
  }
  return { lineIn, parent };
}

/** The string value of a plain string literal without escapes, or null. */
function plainString(literal: string): string | null {
  const match = /^(["'])([^"'\\\n]*)\1$/.exec(literal);
  return match === null ? null : (match[2] as string);
}

/**
 * The test calls of a file a canary can be made from (see the module's comment), in line order.
 * `lines` are the source's lines, `masked` its maskJs.
 */
export function findJsModelTests(source: string): JsModelTest[] {
  const masked = maskJs(source);
  const lines = source.split("\n");
  const maskedLines = masked.split("\n");
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  const lineOf = (at: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if ((lineStarts[mid] as number) <= at) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const { lineIn } = bracketsOf(masked);
  const tests: JsModelTest[] = [];
  for (const [index, line] of maskedLines.entries()) {
    const call = /^(\s*)(it|test)\s*\(/.exec(line);
    if (call === null) continue;
    const start = (lineStarts[index] as number) + call[0].length - 1;
    const container = lineIn[index] as number;
    if (container !== -1 && masked[container] !== "{") continue;
    const end = closing(masked, start);
    if (end === -1) continue;
    // The call's statement ends its line: `)` and an optional `;`, nothing else.
    const endLine = lineOf(end);
    const after = (lines[endLine] as string).slice(end - (lineStarts[endLine] as number) + 1);
    if (!/^;?\s*$/.test(after)) continue;
    // Its arguments: the title literal, then the callback.
    const args = source.slice(start + 1, end);
    const title = /^\s*("[^"\\\n]*"|'[^'\\\n]*'|`[^`\\]*`)\s*,\s*/.exec(args);
    if (title === null) continue;
    const literal = title[1] as string;
    const titleText = literal.startsWith("`")
      ? literal.includes("${")
        ? literal
        : literal.slice(1, -1)
      : plainString(literal);
    if (titleText === null || titleText.includes("\n")) continue;
    const rest = start + 1 + title[0].length;
    const arrow = /^(async\s+)?\(\s*\)\s*=>\s*(?=[^\s{])/.exec(masked.slice(rest, rest + 80));
    if (arrow !== null && endLine === index) {
      // An expression body, up to the call's `)`: the callback is its last argument.
      const from = rest + arrow[0].length - (lineStarts[index] as number);
      const to = end - (lineStarts[index] as number);
      const body = (maskedLines[index] as string).slice(from, to);
      if (body.trim() === "" || /,\s*\d+\s*$/.test(body)) continue;
      tests.push({
        title: titleText,
        start: index,
        end: index + 1,
        open: index,
        close: index,
        statements: [[index, index + 1]],
        container,
        expression: [from, to],
      });
      continue;
    }
    const callback = /^(async\s+)?(\(\s*\)\s*=>|function\s*\(\s*\))\s*\{/.exec(
      masked.slice(rest, rest + 80),
    );
    if (callback === null) continue;
    const brace = rest + callback[0].length - 1;
    const bodyEnd = closing(masked, brace);
    if (bodyEnd === -1) continue;
    const open = lineOf(brace);
    const close = lineOf(bodyEnd);
    // The body's `{` ends its line, and its `}` starts its own.
    if ((maskedLines[open] as string).slice(brace - (lineStarts[open] as number) + 1).trim() !== "")
      continue;
    if (!/^\s*\}/.test(maskedLines[close] as string) || close <= open) continue;
    tests.push({
      title: titleText,
      start: index,
      end: endLine + 1,
      open,
      close,
      statements: statementsOf(maskedLines, open + 1, close),
      container,
      expression: null,
    });
  }
  return tests;
}

/** Lines that continue a statement begun above them. */
const CONTINUES = /^\s*([.?:)\]}]|&&|\|\||\+|-(?!-)|\*|\/(?![/*])|=>|\?\?)/;
/** Lines after which the statement goes on. */
const GOES_ON = /([,([{=+\-*/&|?:.]|=>)\s*$/;

/**
 * The statements of a body's lines [from, to) in masked lines, each [first line, one past the
 * last]; null when they cannot be told apart.
 */
function statementsOf(
  masked: readonly string[],
  from: number,
  to: number,
): (readonly [number, number])[] | null {
  const statements: [number, number][] = [];
  let first = -1;
  let depth = 0;
  for (let index = from; index < to; index++) {
    const line = masked[index] as string;
    if (first === -1) {
      if (line.trim() === "") continue;
      first = index;
    }
    for (const char of line) {
      if ("([{".includes(char)) depth++;
      else if (")]}".includes(char)) depth--;
    }
    if (depth < 0) return null;
    if (depth > 0) continue;
    let next = index + 1;
    while (next < to && (masked[next] as string).trim() === "") next++;
    const ended =
      /;\s*$/.test(line) || (!GOES_ON.test(line) && !CONTINUES.test(masked[next] ?? ""));
    if (ended) {
      statements.push([first, index + 1]);
      first = -1;
    }
  }
  return first === -1 && depth === 0 ? statements : null;
}

/** How the file asserts, or null when it uses none of the forms canaries are written in. */
function assertStyleOf(source: string, masked: string): AssertStyle | null {
  if (/\bexpect\s*\(/.test(masked)) {
    if (/\)\s*\.\s*to\s*\.\s*(be|equal|eql|deep|have|not|include|throw)\b/.test(masked))
      return { kind: "chai" };
    if (/\)\s*\.\s*(not\s*\.\s*)?to[A-Z]\w*\s*\(/.test(masked)) return { kind: "expect" };
  }
  const imported =
    /^\s*import\s+(?:\*\s+as\s+)?(\w+)\s+from\s+["'](?:node:)?assert(?:\/strict)?["']/m.exec(
      source,
    ) ??
    /^\s*import\s*\{[^}]*\bstrict\s+as\s+(\w+)[^}]*\}\s*from\s+["'](?:node:)?assert["']/m.exec(
      source,
    ) ??
    /^\s*(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*["'](?:node:)?assert(?:\/strict)?["']\s*\)/m.exec(
      source,
    );
  const name = imported?.[1];
  if (name !== undefined && new RegExp(`\\b${name}\\s*\\.\\s*\\w+\\s*\\(`).test(masked))
    return { kind: "assert", name };
  return null;
}

/**
 * The names the file binds from the project's modules (imports and requires of anything but
 * test tools and Node's own), type-only imports left out.
 */
export function jsProjectNames(source: string): string[] {
  const names = new Set<string>();
  const add = (list: string): void => {
    for (const part of list.split(",")) {
      const trimmed = part.trim();
      if (trimmed === "" || /^type\s/.test(trimmed)) continue;
      const bound = /(?:\bas\s+|:\s*)?([A-Za-z_$][\w$]*)\s*$/.exec(trimmed)?.[1];
      if (bound !== undefined) names.add(bound);
    }
  };
  for (const match of source.matchAll(
    /^\s*import\s+(?!type\s)([^;]*?)\s+from\s+["']([^"']+)["']/gm,
  )) {
    if (NOT_PROJECT.test(match[2] as string)) continue;
    const clause = match[1] as string;
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces !== null) add(braces[1] as string);
    const outside = clause.replace(/\{[^}]*\}/, "").replace(/\*\s+as\s+/, "");
    add(outside);
  }
  for (const match of source.matchAll(
    /^\s*(?:const|let|var)\s+(\{[^}]*\}|[A-Za-z_$][\w$]*)\s*=\s*require\(\s*["']([^"']+)["']\s*\)/gm,
  )) {
    if (NOT_PROJECT.test(match[2] as string)) continue;
    const bound = match[1] as string;
    if (bound.startsWith("{")) add(bound.slice(1, -1));
    else names.add(bound);
  }
  return [...names].filter((name) => !KEYWORDS.has(name));
}

/** Project names a body uses as values: called, constructed or read a property of. */
function valueNames(body: string, names: readonly string[]): string[] {
  return names.filter(
    (name) =>
      new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, "\\$")}\\s*(\\(|\\.|<[^>]*>\\s*\\()`).test(
        body,
      ) || new RegExp(`\\bnew\\s+${name.replace(/\$/g, "\\$")}\\b`).test(body),
  );
}

/** An assertion about `values` that cannot hold, over `count` lines. */
function impossibleJs(
  random: Random,
  style: AssertStyle,
  values: readonly string[],
  count: number,
): string[] {
  const value = values[0] as string;
  const spread = (open: string, close: string): string[] => {
    if (count === 1) return [`${open}${value}${close}`];
    const middle = Array.from(
      { length: count - 2 },
      (_, index) => `  ${values[(index + 1) % values.length] as string},`,
    );
    return [`${open}${value},`, ...middle, close];
  };
  const shapes: [string, string][] =
    style.kind === "expect"
      ? [
          ["expect([", "]).toEqual([]);"],
          ["expect([", "]).toHaveLength(0);"],
          ["expect([", "]).toStrictEqual([]);"],
        ]
      : style.kind === "chai"
        ? [
            ["expect([", "]).to.be.empty;"],
            ["expect([", "]).to.have.lengthOf(0);"],
            ["expect([", "]).to.deep.equal([]);"],
          ]
        : [
            [`${style.name}.deepStrictEqual([`, "], []);"],
            [`${style.name}.strictEqual([`, "].length, 0);"],
            [`${style.name}.deepEqual([`, "], []);"],
          ];
  const single: string[] =
    style.kind === "expect"
      ? [`expect(${value}).toBeUndefined();`, `expect(${value}).toBeFalsy();`]
      : style.kind === "chai"
        ? [`expect(${value}).to.be.undefined;`, `expect(${value}).to.not.exist;`]
        : [`${style.name}.ok(!${value});`, `${style.name}.equal(${value}, undefined);`];
  if (count === 1 && random() < 0.5) return [pick(random, single)];
  const [open, close] = pick(random, shapes);
  return spread(open, close);
}

/** An assertion about `value` that holds. */
function certainJs(random: Random, style: AssertStyle, value: string): string {
  return pick(
    random,
    style.kind === "expect"
      ? [`expect(${value}).toBeDefined();`, `expect([${value}]).toHaveLength(1);`]
      : style.kind === "chai"
        ? [`expect(${value}).to.exist;`, `expect([${value}]).to.have.lengthOf(1);`]
        : [`${style.name}.ok(${value});`, `${style.name}.notEqual(${value}, undefined);`],
  );
}

/** The words a title may take: those of the file's titles and identifiers. */
function titleWords(tests: readonly JsModelTest[], masked: string): string[] {
  const counts = new Map<string, number>();
  const count = (word: string): void => {
    const lower = word.toLowerCase();
    if (/^[a-z]{3,12}$/.test(lower) && !KEYWORDS.has(lower))
      counts.set(lower, (counts.get(lower) ?? 0) + 1);
  };
  for (const test of tests)
    for (const word of test.title.replace(/\$\{[^}]*\}/g, " ").split(/[^A-Za-z]+/)) count(word);
  for (const identifier of masked.matchAll(/[A-Za-z_$][\w$]*/g))
    for (const word of identifier[0].replace(/([a-z0-9])([A-Z])/g, "$1_$2").split(/[_$\d]+/))
      count(word);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([word]) => word)
    .slice(0, 60);
}

/**
 * A new title from the model's: one of its literal words replaced by a word of the file (or one
 * added), free among the file's titles. Template literals keep their `${...}` parts, so a copy
 * in a loop is named per iteration as its model is.
 */
function canaryTitle(
  random: Random,
  model: JsModelTest,
  words: readonly string[],
  taken: Set<string>,
  free: (title: string) => boolean,
): string | null {
  const template = model.title.startsWith("`");
  const inner = template ? model.title.slice(1, -1) : model.title;
  for (let attempt = 0; attempt < 60 && words.length > 0; attempt++) {
    // Literal text at even indexes, `${...}` parts at odd ones.
    const parts = inner.split(/(\$\{[^}]*\})/);
    const spots = parts.flatMap((part, index) =>
      index % 2 === 0 ? [...part.matchAll(/[A-Za-z]{3,}/g)].map((match) => [index, match]) : [],
    ) as [number, RegExpMatchArray][];
    const word = pick(random, words);
    if (attempt < 30 && new RegExp(`\\b${word}\\b`, "i").test(inner)) continue;
    let title: string;
    if (spots.length > 0 && random() < 0.7) {
      const [index, match] = pick(random, spots);
      const old = match[0];
      const part = parts[index] as string;
      const at = match.index ?? 0;
      const cased = /^[A-Z]/.test(old) ? word.charAt(0).toUpperCase() + word.slice(1) : word;
      parts[index] = part.slice(0, at) + cased + part.slice(at + old.length);
      title = parts.join("");
    } else title = `${inner} ${word}`;
    if (attempt >= 30) title = `${title} ${String(attempt)}`;
    const written = template ? `\`${title}\`` : title;
    if (
      written !== model.title &&
      ![...taken].some((other) => overlap(written, other)) &&
      free(written)
    ) {
      taken.add(written);
      return written;
    }
  }
  return null;
}

/**
 * `source` (a test file) with canaries made from its tests: each must-fail one from a test named
 * in `prefer` where the file has one, put before one of the tests of its model's block at or
 * after the model, or after the last of them; a must-fail one after the file's last test, and
 * one before a test of each block holding a test of `prefer` (as for Python: a forger that
 * trusts only last tests, or all but them, flips a canary). A title `free` refuses is not used
 * (upstream's ids, which do not name the file, must not take another test's results). A file without a test to copy, or
 * whose assertions are of no form canaries are written in, takes none. Canary names are their
 * titles (a template literal's source for one in a loop).
 */
export function insertJsCanaries(
  source: string,
  requests: readonly CanaryRequest[],
  random: Random,
  prefer: readonly string[] = [],
  free: (title: string) => boolean = () => true,
): { text: string; canaries: CanaryFunction[] } {
  const none = { text: source, canaries: [] as CanaryFunction[] };
  const masked = maskJs(source);
  const style = assertStyleOf(source, masked);
  if (style === null) return none;
  const lines = source.split("\n");
  const maskedLines = masked.split("\n");
  const tests = findJsModelTests(source);
  const names = jsProjectNames(source);
  const bodyOf = (test: JsModelTest): string =>
    test.expression === null
      ? maskedLines.slice(test.open + 1, test.close).join("\n")
      : (maskedLines[test.start] as string).slice(...test.expression);
  // Names in scope of a test besides the imports: constants, functions and classes declared
  // before it in its block or one around it, outside every test's body.
  const { lineIn, parent } = bracketsOf(masked);
  const declared = maskedLines.flatMap((line, index) => {
    const match =
      /^\s*(?:export\s+)?(?:const|class|(?:async\s+)?function\*?)\s+([A-Za-z_$][\w$]*)/.exec(line);
    const inTest = tests.some((test) => index > test.open && index < test.close);
    // Requires are the imports' (jsProjectNames): a test tool's or Node's are not the project's.
    return match === null || inTest || /\brequire\s*\(/.test(line)
      ? []
      : [{ name: match[1] as string, line: index, block: lineIn[index] as number }];
  });
  const valuesOf = (test: JsModelTest): string[] => {
    const scope = new Set([test.container]);
    for (let at = test.container; at !== -1;) {
      at = parent.get(at) ?? -1;
      scope.add(at);
    }
    const inScope = declared
      .filter((declaration) => declaration.line < test.start && scope.has(declaration.block))
      .map((declaration) => declaration.name);
    return valueNames(bodyOf(test), [...new Set([...names, ...inScope])]);
  };
  // The statement a must-fail copy replaces: its model's first assertion at the body's level,
  // so the statements before it run as the model's do and none after it lacks what they bind. A
  // change that disarms the assertions then makes the copy pass wherever its model passes.
  const asserts =
    style.kind === "assert"
      ? new RegExp(`^\\s*(await\\s+)?${style.name.replace(/\$/g, "\\$")}\\s*[.(]`)
      : /^\s*(await\s+)?expect\s*[(.]/;
  const assertionOf = (test: JsModelTest): readonly [number, number] | undefined =>
    test.expression !== null
      ? asserts.test(bodyOf(test))
        ? [test.start, test.end]
        : undefined
      : test.statements?.find(([from]) => asserts.test(maskedLines[from] as string));
  const candidates = tests.filter(
    (test) => assertionOf(test) !== undefined && valuesOf(test).length > 0,
  );
  if (candidates.length === 0) return none;
  const words = titleWords(tests, masked);
  const taken = new Set(tests.map((test) => test.title));
  /** A canary's lines from `model`: a must-fail copy, or the call with one assertion that holds. */
  const make = (
    request: CanaryRequest,
    model: JsModelTest,
  ): { lines: string[]; name: string; model: string } | null => {
    const title = canaryTitle(random, model, words, taken, free);
    if (title === null) return null;
    const head = lines.slice(model.start, model.open + 1);
    const written = model.title.startsWith("`")
      ? [model.title]
      : [`"${model.title}"`, `'${model.title}'`];
    const row = head.findIndex((line) => written.some((form) => line.includes(form)));
    if (row === -1) return null;
    const form = written.find((candidate) => (head[row] as string).includes(candidate)) as string;
    // In the model's own quotes (a title is letters, spaces and the model's own text).
    const quote = form.charAt(0);
    const source = quote === "`" ? title : `${quote}${title}${quote}`;
    head[row] = (head[row] as string).replace(form, () => source);
    const values = valuesOf(model);
    const shuffled = [...values].sort(() => random() - 0.5);
    const assertion = (fails: boolean, count: number): string[] =>
      fails
        ? impossibleJs(random, style, shuffled, count)
        : [certainJs(random, style, pick(random, values))];
    if (model.expression !== null) {
      // A one-line test: its expression body replaced (the title already is).
      const line = lines[model.start] as string;
      const [start, stop] = model.expression;
      const titled = head[0] as string;
      const shift = titled.length - line.length;
      const expression = (assertion(request.mustFail, 1)[0] as string).replace(/;$/, "");
      const copy = `${titled.slice(0, start + shift)}${expression}${line.slice(stop)}`;
      return { lines: [copy], name: title, model: model.title };
    }
    const [from, to] = assertionOf(model) as readonly [number, number];
    const indent = /^\s*/.exec(lines[from] as string)?.[0] ?? "";
    const body = request.mustFail
      ? [
          ...lines.slice(model.open + 1, from),
          ...assertion(true, to - from).map((line) => `${indent}${line}`),
          ...lines.slice(to, model.close),
        ]
      : assertion(false, 1).map((line) => `${indent}${line}`);
    const copy = [...head, ...body, ...lines.slice(model.close, model.end)];
    return { lines: copy, name: title, model: model.title };
  };
  const trailing = lines.at(-1) === "" ? lines.pop() : undefined;
  const placed = placeCanaries(lines, requests, random, {
    tests,
    candidates,
    hidden: candidates.filter((test) =>
      prefer.some((title) => title === test.title || matchesTemplate(test.title, title)),
    ),
    afterLast: true,
    make,
    // Set apart by a blank line where the model is.
    gap: (model) => {
      const blank = (line: number): boolean => (lines[line] ?? "x").trim() === "";
      return blank(model.end) || blank(model.start - 1) ? [""] : [];
    },
  });
  const out = placed.lines;
  const canaries = placed.canaries;
  if (trailing !== undefined) out.push("");
  return { text: out.join("\n"), canaries };
}

/**
 * Whether two titles (a string's value or a template's source) can give one id: equal, or a
 * template whose pattern takes the other's text (a template's own text, `${...}` and all, stands
 * for its ids). A canary's title overlapping a test's would take that test's results for its own.
 */
function overlap(one: string, other: string): boolean {
  const text = (title: string): string => (title.startsWith("`") ? title.slice(1, -1) : title);
  return one === other || matchesTemplate(one, text(other)) || matchesTemplate(other, text(one));
}

/** Whether a template-literal title (its source) can produce `title`. */
export function matchesTemplate(template: string, title: string): boolean {
  if (!template.startsWith("`")) return false;
  const pattern = template
    .slice(1, -1)
    .split(/\$\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^]*?");
  return new RegExp(`^${pattern}$`).test(title);
}

/** Whether a JavaScript test id (`path > describe > title`) is of the canary titled `name` in `file`. */
export function isJsCanaryId(id: string, file: string, name: string): boolean {
  if (!id.startsWith(`${file} > `)) return false;
  const rest = id.slice(file.length + 3);
  if (name.startsWith("`")) {
    const parts = rest.split(" > ");
    for (let from = parts.length - 1; from >= 0; from--)
      if (matchesTemplate(name, parts.slice(from).join(" > "))) return true;
    return false;
  }
  return rest === name || rest.endsWith(` > ${name}`);
}

/**
 * Whether a test id made by one of upstream's JS parsers (a SWE-bench Multilingual grade by
 * upstream's commands, parse-log-js.ts) is of the canary titled `name`. These ids do not name
 * the file: jest's is the title alone, vitest's, karma's and the jq lines' end ` > title`, and
 * TAP's (mocha's full title, its blocks' titles and its own joined by spaces) end ` title`.
 */
export function isUpstreamCanaryId(
  id: string,
  name: string,
  parser: NodeUpstreamLogParser,
): boolean {
  const separator = parser === "jest" ? null : parser === "tap" ? " " : " > ";
  const text = parser === "jest" ? id.trimEnd() : id;
  const parts = separator === null ? [text] : text.split(separator);
  for (let from = parts.length - 1; from >= 0; from--) {
    const tail = parts.slice(from).join(separator ?? "");
    if (name.startsWith("`") ? matchesTemplate(name, tail) : tail === name) return true;
  }
  return false;
}

/**
 * Whether upstream's parser reads a test titled `title` back as that title: TAP drops what
 * follows a `#` (a directive), vitest's and jest's lines take a trailing number (or `(5 ms)`) for a
 * duration, and every parser trims or splits on surrounding blanks, line breaks and marks.
 */
export function upstreamReadsTitle(title: string, parser: NodeUpstreamLogParser): boolean {
  const text = title.startsWith("`") ? title.slice(1, -1) : title;
  if (text !== text.trim() || /[\n\r✓✕○×↓✔✖]/.test(text)) return false;
  if (parser === "tap" && text.includes("#")) return false;
  if (parser === "vitest" && /\s\d+\s*m?s?$/.test(text)) return false;
  if (parser === "jest" && /\s\(\d+\s*m?s\)$/.test(text)) return false;
  return true;
}
