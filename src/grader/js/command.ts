/**
 * The shell command that runs only a task's test files with a JavaScript runner and leaves
 * machine-readable results in a file, read back by parseJsResults (results.ts). The project's own
 * installed runner runs (`node_modules/.bin/...`), so its config, TypeScript set-up (vitest's own,
 * ts-jest or babel-jest through jest's config, ts-node through `.mocharc`) and plugins apply. The
 * usual human output still reaches the log; only the results file is for lab.
 */
import path from "node:path";
import { LabError, quoteShell } from "../../core/index.js";
import { mochaConfigSource, mochaReporterSource, nodeTestReporterSource } from "./lab-reporters.js";
import type { JsTestRunner } from "./runners.js";

/** The first Node major whose node:test events lab's reporter reads (see lab-reporters.ts). */
export const NODE_TEST_REPORTER_MIN_MAJOR = 20;

/** Prefix of the TAP lines an older Node printed, copied into the results file (results-lines.ts). */
export const TAP_LINE_PREFIX = "tap:";

/**
 * A POSIX sh command, run from the repository's root, that runs `testFiles` (repository-relative,
 * `/`-separated) with `runner` and writes the results to `resultsPath` (absolute; its folder must
 * exist). It exits non-zero when a test failed or the runner could not run, like the runner.
 *
 * jest gets `--json --outputFile` and `--runTestsByPath` (exact paths, not patterns); vitest
 * `run` with its `json` reporter beside the default one. vitest reads file arguments as filters
 * (vitest 2 has no exact form): a test file whose path contains a given one, such as
 * `pkg/test/a.test.ts` for `test/a.test.ts`, runs too, and its ids come back besides the ones
 * asked for, which the grader leaves aside.
 * mocha and node:test run one file per process, each run's lines after a `{"lab":"file"}` line,
 * so a file that fails to load is known by name (mocha stops the whole run at the first file it
 * cannot load). lab's reporter is written next to the results as `<resultsPath>.reporter.cjs` or
 * `.mjs`, and for mocha the project's config less its spec files as `<resultsPath>.mocharc.cjs`.
 * node:test on a Node older than 20 runs each file directly (`node file`, which prints TAP),
 * since the events lab's reporter reads are not there; its TAP lines go to the results prefixed.
 * The command is wrapped in a subshell, so it may stand inside a longer script.
 */
export function jsTestCommand(
  runner: JsTestRunner,
  testFiles: readonly string[],
  resultsPath: string,
): string {
  checkTestFiles(testFiles);
  if (!path.isAbsolute(resultsPath)) {
    throw new Error(`jsTestCommand needs an absolute results path, got ${resultsPath}`);
  }
  const results = quoteShell(resultsPath);
  const files = testFiles.map(quoteShell);
  switch (runner) {
    case "jest":
      return [
        "node_modules/.bin/jest --ci --json",
        `--outputFile=${results}`,
        "--runTestsByPath",
        ...files,
      ].join(" ");
    case "vitest":
      return [
        "node_modules/.bin/vitest run --reporter=default --reporter=json",
        `--outputFile.json=${results}`,
        ...files,
      ].join(" ");
    case "mocha":
      return mochaCommand(resultsPath, testFiles);
    case "node:test":
      return nodeTestCommand(resultsPath, testFiles);
  }
}

/** mocha's per-file runs, with lab's reporter and lab's copy of the project's config. */
function mochaCommand(resultsPath: string, testFiles: readonly string[]): string {
  const reporter = `${resultsPath}.reporter.cjs`;
  const config = `${resultsPath}.mocharc.cjs`;
  const runs = testFiles.flatMap((file) => [
    fileMarker(resultsPath, file),
    [
      `node_modules/.bin/mocha --config ${quoteShell(config)} --no-package`,
      `--reporter ${quoteShell(reporter)} ${quoteShell(file)} || s=1`,
    ].join(" "),
  ]);
  return perFileCommand(
    resultsPath,
    [
      [reporter, mochaReporterSource(resultsPath)],
      [config, mochaConfigSource()],
    ],
    runs,
  );
}

/** node:test's per-file runs: lab's reporter on Node 20 and later, TAP from `node file` before. */
function nodeTestCommand(resultsPath: string, testFiles: readonly string[]): string {
  const reporter = `${resultsPath}.reporter.mjs`;
  const tap = `${resultsPath}.tap`;
  const isNewEnough = `node -e ${quoteShell(
    `process.exit(Number(process.versions.node.split(".")[0]) >= ${NODE_TEST_REPORTER_MIN_MAJOR} ? 0 : 1)`,
  )}`;
  const withReporter = testFiles.flatMap((file) => [
    fileMarker(resultsPath, file),
    [
      "node --test --test-reporter=spec --test-reporter-destination=stdout",
      `--test-reporter=${quoteShell(reporter)} --test-reporter-destination=stdout`,
      `${quoteShell(file)} || s=1`,
    ].join(" "),
  ]);
  const withTap = testFiles.flatMap((file) => [
    fileMarker(resultsPath, file, "tap"),
    `node ${quoteShell(file)} > ${quoteShell(tap)} || s=1`,
    `cat ${quoteShell(tap)}`,
    `sed ${quoteShell(`s/^/${TAP_LINE_PREFIX}/`)} ${quoteShell(tap)} >> ${quoteShell(resultsPath)}`,
  ]);
  const body = [
    `if ${isNewEnough}; then ${withReporter.join("; ")}`,
    `else ${withTap.join("; ")}; rm -f ${quoteShell(tap)}`,
    "fi",
  ].join("; ");
  return perFileCommand(resultsPath, [[reporter, nodeTestReporterSource(resultsPath)]], [body]);
}

/**
 * The subshell around per-file runs: empty the results, write lab's files, run each step (a
 * failed run sets `s=1`), remove lab's files, exit with `s`.
 */
function perFileCommand(
  resultsPath: string,
  labFiles: readonly (readonly [path: string, source: string])[],
  steps: readonly string[],
): string {
  const writes = labFiles.map(
    ([file, source]) => `printf '%s' ${quoteShell(source)} > ${quoteShell(file)}`,
  );
  return [
    `(: > ${quoteShell(resultsPath)} && ${writes.join(" && ")} || exit 2`,
    "s=0",
    ...steps,
    `rm -f ${labFiles.map(([file]) => quoteShell(file)).join(" ")}`,
    'exit "$s")',
  ].join("; ");
}

/** The line appended to the results before a file's run: which file the lines after it are about. */
function fileMarker(resultsPath: string, file: string, format?: "tap"): string {
  const line = JSON.stringify({ lab: "file", file, ...(format === undefined ? {} : { format }) });
  return `printf '%s\\n' ${quoteShell(line)} >> ${quoteShell(resultsPath)}`;
}

/**
 * Test files must be plain repository-relative paths: an empty list would run every test (jest,
 * vitest), an absolute or `..` path would reach outside the repository, and a leading `-` would
 * read as a flag.
 */
function checkTestFiles(testFiles: readonly string[]): void {
  if (testFiles.length === 0) {
    throw new LabError("TASK_INVALID", "No test files to run.", {
      hint: "A JavaScript task names the test files its tests live in.",
    });
  }
  for (const file of testFiles) {
    const bad =
      file === "" ||
      file.startsWith("/") ||
      file.startsWith("-") ||
      file.includes("\\") ||
      /[\n\r]/.test(file) ||
      file.split("/").includes("..");
    if (bad) {
      throw new LabError(
        "TASK_INVALID",
        `Test file ${JSON.stringify(file)} is not a plain repository-relative path.`,
        {
          hint: "Name test files relative to the repository's root, with / separators and no '..'.",
        },
      );
    }
  }
}
