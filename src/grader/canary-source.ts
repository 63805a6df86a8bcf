/**
 * The Python side of canary tests (`canaries.ts`): canaries made from a module's own tests. Each
 * is a copy of one of the module's tests (its decorators, fixtures and parametrization, its
 * signature, its body), renamed from the module's own words and put among them. A canary never
 * runs a statement of its model that acts: only the inert ones before the first call (a
 * docstring, an import, a name bound to a literal), so a test with side effects (a counter, a
 * registry, a file) is not run twice. In a must-fail one the model's first acting statement is
 * replaced by an assertion about a project name of the body that cannot hold (a one-element
 * list asserted empty, a value asserted not to be itself), so it fails whatever the change did;
 * the rest of the body, never reached, keeps the model's size and names. A must-pass one is the
 * inert start of the body, ending with an assertion that holds where that start is empty. Pure:
 * text in, text out, with the randomness given. The code written is Python 2 and 3 alike,
 * copied from the module or made of plain expressions.
 */
import { readModelModule, type ModelModule, type ModelTest } from "./canary-model.js";
import {
  pick,
  placeCanaries,
  type CanaryFunction,
  type CanaryRequest,
  type Random,
} from "./canary-places.js";

export type { CanaryFunction, CanaryRequest, Random } from "./canary-places.js";

/**
 * The runner a module's canaries are written for: pytest takes functions and methods of test
 * classes; SymPy's bin/test module-level functions only, never after the module's last one;
 * unittest (Django's runtests.py) methods of TestCase classes.
 */
export type CanaryStyle = "pytest" | "sympy" | "unittest";

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

/** Tests a canary can be made from: ones whose outcome a copy shares (no expected failure). */
function models(module: ModelModule, style: CanaryStyle): ModelTest[] {
  return module.tests.filter((test) => {
    const text = module.lines.slice(test.start, test.end).join("\n");
    if (/xfail|known_?fail|expectedFailure|\basync\b|\bawait\b|\byield\b/i.test(text)) return false;
    // Python 2 refuses a nested function (the sentinel's handler) beside an unqualified exec.
    if (/^\s*exec\b(?!\s*\()/m.test(text)) return false;
    if (style === "sympy") return test.container === null && !test.decorated;
    if (style === "unittest") return test.container !== null;
    return true;
  });
}

/**
 * A test name from the module's words, free in the module: the first words of the model's name
 * and one or two of the module's, as a neighbour would be named. Every word also stands alone
 * in the module, as a name or a word of a string or comment.
 */
export function canaryName(
  random: Random,
  module: ModelModule,
  model: ModelTest,
  taken: Set<string>,
  others = "",
): string {
  const text = `${module.lines.join("\n")}\n${others}`;
  const { standalone } = module;
  const modelWords = model.name
    .replace(/^test_?/, "")
    .split("_")
    .filter((word) => word !== "" && standalone.has(word));
  const vocabulary = module.vocabulary
    .filter((word) => word.length > 2 && standalone.has(word))
    .slice(0, 60);
  for (let attempt = 0; ; attempt++) {
    const kept = modelWords.slice(0, randomInt(random, 0, Math.min(2, modelWords.length)));
    const words = [...kept];
    const added = Math.max(randomInt(random, 1, 2), 2 - kept.length) + Math.floor(attempt / 20);
    for (let i = 0; i < added && vocabulary.length > 0; i++) {
      const word = pick(random, vocabulary);
      if (!words.includes(word)) words.push(word);
    }
    if (words.length === 0) words.push(...(modelWords.length > 0 ? modelWords : ["case"]));
    // A module with too few words of its own gets numbered names, as in test_issue_1234.
    if (attempt >= 40) words.push(String(attempt));
    const separator = model.name.startsWith("test_") ? "_" : "";
    const name = `test${separator}${words.join("_")}`;
    if (!taken.has(name) && !new RegExp(`\\b${name}\\b`).test(text)) {
      taken.add(name);
      return name;
    }
  }
}

/**
 * Whether a statement is inert: it calls nothing (outside its strings and comments), so running
 * it once more, or first, changes nothing a test beside it sees. An import is inert: a module
 * runs once.
 */
export function inert(statement: readonly string[]): boolean {
  const code = statement
    .join("\n")
    .replace(/("""|''')[\s\S]*?\1|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, "''")
    .replace(/#[^\n]*/g, "");
  if (/^\s*(import|from)\s/.test(code)) return true;
  if (/^\s*(pass|continue|break)\s*$/.test(code)) return true;
  const compound =
    /^\s*(assert|del|global|nonlocal|with|for|while|if|try|raise|yield|return|exec|print|async)\b/;
  if (compound.test(code)) return false;
  return !/[\w)\]}'"]\s*\(|@|\bawait\b|\blambda\b/.test(code);
}

/** The line of the model's first statement that is not inert, or its end. */
function firstActing(lines: readonly string[], model: ModelTest): number {
  for (const [from, to] of model.statements) if (!inert(lines.slice(from, to))) return from;
  return model.end;
}

/**
 * The project names of a body a canary's assertion can be about, never a call: evaluating the
 * assertion must not run project code (a registry filled twice fails the test beside it).
 */
function projectExpressions(module: ModelModule, body: readonly string[]): string[] {
  const used = module.projectNames.filter((name) =>
    body.some((line) => new RegExp(`\\b${name}\\b`).test(line)),
  );
  return used.length > 0 ? used : [...module.projectNames];
}

/**
 * One assertion that cannot hold, about `values` (project names, the first always there), on
 * exactly `lines` lines, so the canary keeps its model's line count whatever it replaced: a
 * statement of several lines gives one assertion spread over as many, its brackets open across
 * them as the module's own long assertions are.
 */
export function impossible(
  random: Random,
  values: readonly string[],
  unittest: boolean,
  lines: number,
): string[] {
  const first = values[0] as string;
  if (lines <= 1) {
    const shapes = unittest
      ? [
          `self.assertFalse([${first}])`,
          `self.assertEqual([${first}], [])`,
          `self.assertIn(${first}, ())`,
        ]
      : [
          `assert not [${first}]`,
          `assert [${first}] == []`,
          `assert ${first} in ()`,
          `assert (${first},) == ()`,
        ];
    return [pick(random, shapes)];
  }
  // A non-empty list or tuple, its bracket open from the first line to the last.
  const [open, close, tuple] = pick<readonly [string, string, boolean]>(
    random,
    unittest
      ? [
          ["self.assertEqual([", "], [])", false],
          ["self.assertFalse([", "])", false],
        ]
      : [
          ["assert not [", "]", false],
          ["assert [", "] == []", false],
          ["assert (", ") == ()", true],
        ],
  );
  if (lines === 2) return [open, `    ${first}${tuple ? "," : ""}${close}`];
  const inner = Array.from({ length: lines - 2 }, (_, index) =>
    index === 0 ? first : pick(random, values),
  );
  return [open, ...inner.map((value) => `    ${value},`), close];
}

/**
 * `original`'s lines with its lines of code replaced by `make(count)`'s, its blank and comment
 * lines left where they were (inside the replacement's brackets, where Python allows them): the
 * replacement has the lines, blank lines and comments of what it replaced.
 */
function keepingLayout(
  original: readonly string[],
  make: (count: number) => readonly string[],
): string[] {
  const isCode = (line: string): boolean => /^\s*[^\s#]/.test(line);
  const made = make(original.filter(isCode).length);
  let next = 0;
  return original.map((line) => (isCode(line) ? (made[next++] as string) : line));
}

/** An assertion that holds whenever `value` can be made. */
function certain(random: Random, value: string, unittest: boolean): string[] {
  const shapes = unittest
    ? [`self.assertTrue([${value}])`, `self.assertNotIn(${value}, ())`]
    : [`assert [${value}]`, `assert ${value} not in ()`, `assert (${value},) != ()`];
  return [pick(random, shapes)];
}

/** The sentinel's exit handler, registered when the canary runs (for runners without the guard). */
function sentinelLines(sentinel: string): string[] {
  // No free variable in the handler: Python 2 refuses one beside an unqualified exec.
  return [
    "def _done():",
    "    import sys",
    '    stream = getattr(sys, "__stdout__", None) or sys.stdout',
    `    stream.write("\\n${sentinel}\\n")`,
    "    stream.flush()",
    '__import__("atexit").register(_done)',
  ];
}

/**
 * One canary made from `model`, or null when the model offers no safe place for its end. A
 * must-fail one is the model with one body statement (one with nothing before it that returns)
 * replaced by an assertion that cannot hold, so it is the model's size; a must-pass one is the
 * model's body up to a cut, sometimes with an assertion that holds.
 */
function canaryFrom(
  random: Random,
  module: ModelModule,
  model: ModelTest,
  canary: CanaryFunction,
  sentinel: string,
): string[] | null {
  const { lines } = module;
  const returnsBefore = (line: number): boolean =>
    lines.slice(model.def + 1, line).some((text) => /\breturn\b/.test(text));
  const head = lines.slice(model.start, model.def + 1);
  const defLine = head.at(-1) as string;
  head[head.length - 1] = defLine.replace(/\bdef\s+\w+/, `def ${canary.name}`);
  const indent = model.bodyIndent;
  const whole = lines.slice(model.def + 1, model.end);
  // unittest's assertions only in a method that takes `self`: a function of a module whose
  // strings hold unittest code (pytest's testing/test_unittest.py writes such test files) has
  // no `self` to assert with (pytest-dev__pytest-10081's canary `self.assertTrue([self])`).
  const takesSelf = /\bdef\s+\w+\s*\(\s*self\b/.test(
    lines.slice(model.def, model.def + 2).join(" "),
  );
  const unittest = takesSelf && whole.some((line) => /\bself\.assert/.test(line));
  const opening = (canary.carriesSentinel ? sentinelLines(sentinel) : []).map(
    (line) => `${indent}${line}`,
  );
  if (canary.mustFail) {
    // Its first acting statement, so nothing of the model acts before the assertion fails.
    const acting = firstActing(lines, model);
    const place = model.replaceable.find(([from]) => from === acting);
    if (place === undefined || returnsBefore(acting)) return null;
    const [from, to] = place;
    const expressions = projectExpressions(module, whole);
    if (expressions.length === 0 && model.container === null) return null;
    const value = expressions.length > 0 ? pick(random, expressions) : "self";
    const values = [value, ...expressions.filter((other) => other !== value)];
    return [
      ...head,
      ...opening,
      ...lines.slice(model.def + 1, from),
      ...keepingLayout(lines.slice(from, to), (count) =>
        impossible(random, values, unittest, count).map((line) => `${indent}${line}`),
      ),
      ...lines.slice(to, model.end),
    ];
  }
  // Only the inert start of the body runs: a cut at or before its first acting statement.
  const acting = firstActing(lines, model);
  // The first statement's line, not the def's next one: a signature may span lines.
  const first = model.statements[0]?.[0] ?? model.end;
  const cut = pick(
    random,
    [first, ...model.cuts].filter((line) => line <= acting),
  );
  const body = lines.slice(model.def + 1, cut);
  const tail: string[] = [];
  // Only names the module imports, never called: a call may be one that must raise, or act.
  const names = projectExpressions(module, whole);
  // No statement of the model taken (the lines before `first` are the signature's rest).
  const empty = opening.length === 0 && cut <= first;
  if (empty && names.length === 0 && !unittest) return null;
  if (empty || (names.length > 0 && random() < 0.5))
    tail.push(...certain(random, names.length > 0 ? pick(random, names) : "self", unittest));
  return [...head, ...opening, ...body, ...tail.map((line) => `${indent}${line}`)];
}

/** `__file__` turned into a folder: a data folder beside the module, not the module's text. */
const FILE_AS_FOLDER = [
  // os.path.dirname(__file__), dirname(os.path.abspath(__file__)), abspath(dirname(__file__))
  /\bdirname\(\s*(?:(?:os\.path\.)?(?:abspath|realpath|normpath)\(\s*)?__file__\s*\)?\s*\)/g,
  /\b(?:abspath|realpath|normpath)\(\s*(?:os\.path\.)?dirname\(\s*__file__\s*\)\s*\)/g,
  // Path(__file__).parent, Path(__file__).resolve().parent, .absolute().parent, .parents[1]
  /\bPath\(\s*__file__\s*\)(?:\.(?:resolve|absolute)\(\))*\.parents?\b/g,
  // py.path: py.path.local(__file__).dirpath(), .dirname
  /\blocal\(\s*__file__\s*\)\.(?:dirpath\(|dirname\b)/g,
];

/** A linter or checker whose run over a file reports what a canary in it would add. */
const LINTER_IMPORT =
  /^\s*(?:from|import)\s+(?:pylint|flake8|pyflakes|pycodestyle|pydocstyle|mypy|black|isort)\b/m;

/**
 * Whether a test module lints its own file: it imports a linter and names `__file__` other
 * than to find the folder it sits in. pylint's tests/test_pylint_runners.py runs pylint over
 * itself and expects no message; a copy among its tests gives pylint something to say (a name
 * the copy's replaced statement bound, an argument it no longer uses), and gold failed there
 * (pylint-dev__pylint-6903). Such a module takes no canaries. A module that only opens its file
 * (requests' tests upload it) keeps them: what it reads does not decide its tests.
 */
export function lintsItsOwnFile(source: string): boolean {
  if (!LINTER_IMPORT.test(source)) return false;
  let rest = source;
  for (const pattern of FILE_AS_FOLDER) rest = rest.replace(pattern, "");
  // Its own `__file__`, not another module's (`extensions.__file__`).
  return /(?<![.\w])__file__\b/.test(rest);
}

/**
 * `source` with canaries made from its tests (a must-fail one from a test named in `prefer`, the
 * hidden tests that must start passing, where the module has one), each put before one of the tests of its model's
 * class (or of the module) at or after the model, or after the last of them; for SymPy's
 * bin/test never after the module's last test function, which bin/test marks on the line
 * SWE-bench's parser cannot read. A request the module has no test for is left out: the result
 * names the canaries written. Names are free in `source` and in `others` (the grade's other test
 * modules), so no test id of the run is taken for a canary's.
 */
export function insertCanaries(
  source: string,
  requests: readonly CanaryRequest[],
  random: Random,
  sentinel: string,
  style: CanaryStyle = "pytest",
  others = "",
  prefer: readonly string[] = [],
): { text: string; canaries: CanaryFunction[] } {
  const newline = source.includes("\r\n") ? "\r\n" : "\n";
  const lines = source.split(newline);
  if (lines.at(-1) === "") lines.pop();
  const module = readModelModule(lines);
  const candidates = models(module, style);
  if (candidates.length === 0) return { text: source, canaries: [] };
  const taken = new Set<string>();
  const placed = placeCanaries(lines, requests, random, {
    tests: module.tests,
    candidates,
    hidden: candidates.filter((test) => prefer.includes(test.name)),
    // bin/test marks the module's last test function on a line SWE-bench's parser cannot read.
    afterLast: style !== "sympy",
    make: (request, model) => {
      const canary = {
        ...request,
        name: canaryName(random, module, model, taken, others),
        model: model.name,
      };
      const text = canaryFrom(random, module, model, canary, sentinel);
      return text === null ? null : { lines: text, name: canary.name, model: model.name };
    },
    gap: (model) => (model.container === null ? ["", ""] : [""]),
  });
  return { text: `${placed.lines.join(newline)}${newline}`, canaries: placed.canaries };
}
