/**
 * The shell command that runs only a task's test files with a JavaScript runner and leaves
 * machine-readable results in a file, read back by parseJsResults (results.ts). The project's own
 * installed runner runs (`node_modules/.bin/...`), so its config, TypeScript set-up (vitest's own,
 * ts-jest or babel-jest through jest's config, ts-node through `.mocharc`) and plugins apply. The
 * usual human output still reaches the log; only the results file is for lab.
 */
import path from "node:path";
import { LabError, quoteShell } from "../../core/index.js";
import { mochaReporterSource, nodeTestReporterSource } from "./lab-reporters.js";
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
 * `run` with its `json` reporter beside the default one, the files as absolute paths (vitest
 * reads its arguments as filters, and an absolute one only matches paths starting with it).
 * mocha and node:test run one file per process, each run's lines after a `{"lab":"file"}` line
 * (so a file that fails to load is known by name: mocha stops the whole run at the first file it
 * cannot load), with lab's reporter written next to the results as `<resultsPath>.reporter.cjs`
 * or `.mjs`. node:test on a Node older than 20 runs each file directly (`node file`, which prints
 * TAP), since the reporter lab needs is not there; its TAP lines go to the results prefixed.
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
        ...files.map((file) => `"$(pwd -P)"/${file}`),
      ].join(" ");
    case "mocha":
      return perFileCommand(
        resultsPath,
        `${resultsPath}.reporter.cjs`,
        mochaReporterSource(resultsPath),
        testFiles.map((file) => [
          fileMarker(resultsPath, file),
          `node_modules/.bin/mocha --reporter ${quoteShell(`${resultsPath}.reporter.cjs`)} ${quoteShell(file)} || s=1`,
        ]),
      );
    case "node:test":
      return nodeTestCommand(resultsPath, testFiles);
  }
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
  return perFileCommand(resultsPath, reporter, nodeTestReporterSource(resultsPath), [[body]]);
}

/**
 * The subshell around per-file runs: empty the results, write the reporter, run each step
 * (which sets `s=1` on a failure), remove the reporter, exit with `s`.
 */
function perFileCommand(
  resultsPath: string,
  reporterPath: string,
  reporterSource: string,
  steps: readonly (readonly string[])[],
): string {
  const reporter = quoteShell(reporterPath);
  return [
    `(: > ${quoteShell(resultsPath)} && printf '%s' ${quoteShell(reporterSource)} > ${reporter} || exit 2`,
    "s=0",
    ...steps.flat(),
    `rm -f ${reporter}`,
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
