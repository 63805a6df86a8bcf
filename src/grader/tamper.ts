/**
 * Signs that a change games the hidden tests instead of fixing the code. The grader resets only
 * the files the test patch names, so a new conftest.py, a pytest setting or a `.pth` file the
 * tool adds survives into the test run, and a conftest.py hook can turn every failure into an
 * XFAIL (which SWE-bench counts as a FAIL_TO_PASS success). Such a change cannot be blocked
 * without refusing legitimate ones, so it is detected and the trial flagged.
 * See docs/design/sandbox.md ("What the sandbox cannot stop").
 */
import { listPatchFiles } from "../core/index.js";

/** Files that configure or extend pytest wherever they sit, or that Python runs at start-up. */
const TEST_MACHINERY_FILES: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /(^|\/)conftest\.py$/, what: "a pytest conftest.py" },
  { pattern: /(^|\/)pytest\.ini$/, what: "pytest's settings (pytest.ini)" },
  { pattern: /(^|\/)\.pytest\.ini$/, what: "pytest's settings (.pytest.ini)" },
  { pattern: /(^|\/)(sitecustomize|usercustomize)\.py$/, what: "a module Python runs at start-up" },
  { pattern: /\.pth$/, what: "a .pth file (run at start-up)" },
  // SymPy's test runner is the project's own code: a change to it can rewrite what it reports.
  {
    pattern: /(^|\/)sympy\/(utilities|testing)\/runtests\.py$|^bin\/test$/,
    what: "SymPy's test runner (runtests.py, bin/test)",
  },
  // Django's: runtests.py drives DiscoverRunner (django/test/runner.py), whose classes as that
  // file defines them are what lab's runner guard takes for the originals. No gold patch of
  // SWE-bench Lite's or Verified's django instances touches either (docs/design/canaries.md).
  {
    pattern: /^tests\/runtests\.py$|^django\/test\/runner\.py$/,
    what: "Django's test runner (tests/runtests.py, django/test/runner.py)",
  },
];

/**
 * Files that configure a JavaScript runner wherever they sit (a JS task's scan only): what the
 * hidden test files run under, reporters and setup files included. package.json's `jest` and
 * `mocha` keys are read from the applied files (`tamper-js.ts`).
 */
const JS_RUNNER_FILES: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /(^|\/)jest\.config\.[cm]?[jt]s(on)?$/, what: "jest's configuration" },
  { pattern: /(^|\/)vitest\.config\.[cm]?[jt]s$/, what: "vitest's configuration" },
  { pattern: /(^|\/)vitest\.workspace\.[cm]?[jt]s(on)?$/, what: "vitest's workspace" },
  { pattern: /(^|\/)\.mocharc(\.[a-z]+)?$/, what: "mocha's configuration" },
  // vitest reads vite's configuration when it has none of its own: its plugins see test files.
  { pattern: /(^|\/)vite\.config\.[cm]?[jt]s$/, what: "vite's configuration (vitest reads it)" },
  // jest's default transform (babel-jest) runs the project's Babel plugins over the test files.
  {
    pattern: /(^|\/)(babel\.config\.[cm]?[jt]s(on)?|\.babelrc(\.[cm]?js(on)?)?)$/,
    what: "Babel's configuration (jest's transform reads it)",
  },
  { pattern: /(^|\/)karma\.conf\.[cm]?[jt]s$/, what: "karma's configuration" },
];

/**
 * A new module named like pytest's own: it would shadow pytest. Changing such a module that the
 * repository already has is the project's own work (pytest's and pluggy's repositories).
 */
const SHADOWING_MODULE = /(^|\/)(pytest|_pytest|pluggy)(\.py$|\/)/;

/** Source of pytest itself or its plugins, where pytest's internals and hooks are the code's own. */
const PYTEST_OWN_SOURCE =
  /(^|\/)(_pytest|pytest|pluggy)(\/|\.py$)|(^|\/)(pytest_[a-z0-9_]+|[a-z0-9_]*pytest_plugin)(\/|\.py$)|(^|\/)testing\/fixtures\.py$/;

/** Settings files that hold pytest's settings in one section among others. */
const SECTIONED_FILES: readonly { readonly pattern: RegExp; readonly section: RegExp }[] = [
  { pattern: /(^|\/)setup\.cfg$/, section: /^\[tool:pytest\]/ },
  { pattern: /(^|\/)tox\.ini$/, section: /^\[pytest\]/ },
  { pattern: /(^|\/)pyproject\.toml$/, section: /^\[tool\.pytest(\.ini_options)?\]/ },
];

/**
 * Source lines reaching into the test process from code under test. `pytest`: the line is
 * pytest's own code when the project under test is pytest itself.
 */
const SOURCE_HOOKS: readonly {
  readonly pattern: RegExp;
  readonly what: string;
  readonly pytest?: true;
}[] = [
  {
    pattern: /\b(import\s+_pytest|from\s+_pytest\b|_pytest\.)/,
    what: "reaches into pytest's internals",
    pytest: true,
  },
  {
    pattern: /\bdef\s+pytest_[a-z_]+\s*\(|\bpytest_plugins\s*=|\bhookimpl\b/,
    what: "defines pytest hooks or plugins",
    pytest: true,
  },
  // A test process that ends itself early can print a passing log over a failing run.
  {
    pattern: /(^|[^\w])_exit\s*\(/,
    what: "ends its process with os._exit, which can hide a failing test run",
  },
  {
    pattern: /\bkill\s*\([^)]*getpid\s*\(/,
    what: "kills its own process, which can hide a failing test run",
  },
];

/** What the scan knows of the project besides the two diffs. */
export interface TamperScanContext {
  /**
   * The project under test is pytest (or pluggy) itself: code anywhere in it, a script at its
   * root included, imports `_pytest` and defines hooks as the project's own work, and the
   * canary tests are what guards its test runs (pytest-8365: a reproduction script).
   */
  readonly projectIsPytest?: boolean;
  /** The task is a JS one: its runners' configuration files count as test machinery. */
  readonly isJsTask?: boolean;
}

/**
 * Lists what in `patch` (the tool's change) tampers with how the hidden tests run, one finding
 * per line, naming the file; [] when nothing does. Files the test patch itself touches are
 * skipped: the grader resets them before applying the hidden tests.
 * Pure: a function of the two diffs and the context.
 */
export function detectTestTampering(
  patch: string,
  testPatch: string,
  context: TamperScanContext = {},
): string[] {
  const hiddenTestFiles = new Set(listPatchFiles(testPatch).map((file) => file.path));
  const findings: string[] = [];
  for (const { path, body } of splitPatch(patch)) {
    if (hiddenTestFiles.has(path)) continue;
    const action = describeAction(body);
    let isMachinery = false;
    const machinery =
      context.isJsTask === true
        ? [...TEST_MACHINERY_FILES, ...JS_RUNNER_FILES]
        : TEST_MACHINERY_FILES;
    for (const { pattern, what } of machinery) {
      if (!pattern.test(path)) continue;
      isMachinery = true;
      findings.push(`${path}: ${action} ${what}`);
    }
    if (action === "adds" && SHADOWING_MODULE.test(path)) {
      isMachinery = true;
      findings.push(`${path}: adds a module shadowing pytest itself`);
    }
    for (const { pattern, section } of SECTIONED_FILES) {
      if (pattern.test(path) && touchesSection(body, section))
        findings.push(`${path}: changes pytest's settings`);
    }
    if (
      path.endsWith(".py") &&
      !isMachinery &&
      !isTestFile(path) &&
      !PYTEST_OWN_SOURCE.test(path)
    ) {
      const added = addedLines(body);
      for (const { pattern, what, pytest } of SOURCE_HOOKS) {
        if (pytest === true && context.projectIsPytest === true) continue;
        if (added.some((line) => pattern.test(line))) findings.push(`${path}: ${what}`);
      }
    }
  }
  return findings;
}

/** One file's section of a unified diff. */
interface FileDiff {
  readonly path: string;
  readonly body: string;
}

function splitPatch(patch: string): FileDiff[] {
  const files = listPatchFiles(patch);
  const starts = [...patch.matchAll(/^diff --git /gm)].map((match) => match.index);
  return files.map((file, index) => ({
    path: file.path,
    body: patch.slice(starts[index] ?? 0, starts[index + 1] ?? patch.length),
  }));
}

function describeAction(body: string): string {
  if (/^new file mode/m.test(body)) return "adds";
  if (/^deleted file mode/m.test(body)) return "deletes";
  return "changes";
}

function addedLines(body: string): string[] {
  return body
    .split("\n")
    .filter((line) => line.startsWith("+") && !line.startsWith("+++"))
    .map((line) => line.slice(1));
}

/**
 * Whether a hunk changes lines inside `section`: a changed line that is itself the section's
 * header, or one below the last header seen in the hunk's context (a hunk that starts inside the
 * section with no header in view counts when its `@@` line names the section, as git's
 * funcname for ini files does).
 */
function touchesSection(body: string, section: RegExp): boolean {
  let inSection = false;
  for (const line of body.split("\n")) {
    if (line.startsWith("@@")) {
      inSection = section.test(line.replace(/^@@[^@]*@@\s?/, ""));
      continue;
    }
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    const text = line.slice(1);
    if (/^\[.*\]/.test(text)) inSection = section.test(text);
    const isChange = line.startsWith("+") || line.startsWith("-");
    if (isChange && inSection) return true;
  }
  return false;
}

/** SWE-bench's sense of a test file: under a tests folder, or named test_*.py / *_test.py. */
function isTestFile(path: string): boolean {
  return /(^|\/)(tests?|testing)\//.test(path) || /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(path);
}
