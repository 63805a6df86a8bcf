import { appendFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  LabError,
  quoteShell,
  type Grade,
  type Oracle,
  type Task,
  type TestStatus,
} from "../core/index.js";
import { prepareEnvironment, type EnvironmentOptions } from "../environment/index.js";
import { git, tryGit } from "../git/index.js";
import { runCommand } from "../process/index.js";
import { checkoutForGrade } from "./checkout.js";
import { removeInside, type GradeSandbox } from "./confine.js";
import { installChange, openGrade } from "./install.js";
import { startServices, withServices } from "./services.js";
import { detectTestTampering } from "./tamper.js";
import { checkSuspiciousOutput, evaluateTests } from "./evaluate.js";
import { parseTestLog, TEST_OUTPUT_END, TEST_OUTPUT_START } from "./parse-log.js";
import { listPatchFiles, selectTestDirectives } from "../core/index.js";

/** Limits and places for one grade. */
export interface GradeOptions {
  /** Scratch folder for the checkout and the per-grade environment; removed afterwards. */
  readonly scratchDir: string;
  /** The full grading log: apply output, install output, the test run. */
  readonly logFile: string;
  readonly environment: EnvironmentOptions;
  readonly setupTimeoutMs: number;
  readonly installTimeoutMs: number;
  readonly testTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Keep the scratch folder, for debugging. */
  readonly keepScratch?: boolean;
  /**
   * Where the change's code runs when it is installed and tested (`confine.ts`); default:
   * bwrap when it can make a sandbox here, else none.
   */
  readonly sandbox?: GradeSandbox | undefined;
}

/** The change to grade: a diff, or a tool's work tree to take the diff from. */
export type Change = { readonly patch: string } | { readonly workTree: string };

/** A grade and the exact diff it graded. */
export interface GradeOutcome {
  readonly grade: Grade;
  readonly patch: string;
}

/** The fallbacks upstream SWE-bench tries, in its order, until one applies the change. */
const APPLY_CHAIN: readonly (readonly string[])[] = [
  ["git", "apply", "--verbose"],
  ["git", "apply", "--verbose", "--3way"],
  ["git", "apply", "--verbose", "--reject"],
  ["patch", "--batch", "--forward", "--fuzz=5", "-p1", "-i"],
];

/**
 * Grades a change as upstream SWE-bench does: a fresh checkout at the base commit, the change
 * applied as a diff, the project installed, the test files reset and the hidden test patch
 * applied, the named test files run, and the log parsed and judged. The install steps and the
 * tests run the change's code, so they run in a sandbox (`options.sandbox`); lab's own steps
 * run on the host.
 */
export async function gradeChange(
  task: Task,
  oracle: Oracle,
  change: Change,
  options: GradeOptions,
): Promise<GradeOutcome> {
  const phaseMs: Record<string, number> = {};
  const timed = async <T>(phase: string, work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      phaseMs[phase] = Math.round(performance.now() - start);
    }
  };
  const log = async (text: string): Promise<void> =>
    appendFile(options.logFile, text.endsWith("\n") ? text : `${text}\n`);
  const repo = path.join(options.scratchDir, "repo");
  await mkdir(path.dirname(options.logFile), { recursive: true });
  const signal = options.signal;

  try {
    await writeFile(
      options.logFile,
      `# lab grade: ${task.suite}/${task.info.id} at ${task.info.baseCommit}\n`,
    );
    await timed("checkout", () =>
      checkoutForGrade(task, options.scratchDir, {
        pathEnv: options.environment.pathEnv,
        timeoutMs: options.setupTimeoutMs,
        logFile: options.logFile,
        signal,
      }),
    );
    const patch =
      "patch" in change
        ? change.patch
        : await timed("capture", () =>
            captureDiff(change.workTree, repo, task.info.baseCommit, options.scratchDir),
          );
    const patchEmpty = patch.trim() === "";
    // What hidden tests cannot guard against (a new conftest.py, pytest config, an exit hook)
    // is found in the change itself; such a trial is flagged and not resolved.
    const tampering = patchEmpty ? [] : detectTestTampering(patch, oracle.testPatch);

    const unresolved = (fields: Partial<Grade> & { reason: string }): GradeOutcome => ({
      grade: {
        resolved: false,
        patchApplied: false,
        patchEmpty,
        applyMethod: null,
        failToPass: Object.fromEntries(oracle.failToPass.map((id) => [id, false])),
        passToPass: Object.fromEntries(oracle.passToPass.map((id) => [id, false])),
        statuses: {},
        testsTimedOut: false,
        testExitCode: null,
        phaseMs,
        environmentKey: null,
        tampering,
        ...fields,
      },
      patch,
    });

    let applyMethod: string | null = null;
    if (!patchEmpty) {
      applyMethod = await timed("apply", () =>
        applyChange(repo, patch, options.scratchDir, options.logFile, signal),
      );
      if (applyMethod === null) {
        return unresolved({
          reason: "the change did not apply to a fresh checkout of the base commit",
        });
      }
    }

    const prepared = await timed("environment", () =>
      prepareEnvironment(oracle.environment, options.environment),
    );
    const open = await timed("venv", () =>
      openGrade(task, oracle, prepared, options.scratchDir, options),
    );
    const { gradeEnv, gitEnv, runEnv, confinement } = open;
    await log(confinement.note);
    const install = await installChange(task, oracle, open, options, timed);

    const testFiles = listPatchFiles(oracle.testPatch);
    await timed("reset", () => resetTestFiles(repo, task.info.baseCommit, testFiles, gitEnv));
    const testPatchFile = path.join(options.scratchDir, "test.patch");
    await writeFile(testPatchFile, oracle.testPatch);
    const testApply = await tryGit(["apply", "-v", testPatchFile], {
      cwd: repo,
      env: gitEnv,
      logFile: options.logFile,
      signal,
    });
    if (testApply.exitCode !== 0) {
      return unresolved({
        patchApplied: applyMethod !== null,
        applyMethod,
        environmentKey: prepared.key,
        install,
        reason: "the hidden tests did not apply over the change",
      });
    }

    const directives = selectTestDirectives(oracle.testPatch);
    const command = [oracle.environment.testCommand, ...directives.map(quoteShell)].join(" ");
    await log(`+ ${command}\n: '${TEST_OUTPUT_START}'`);
    const services = await timed("services", () =>
      startServices(oracle.environment.services ?? [], {
        environment: options.environment,
        logDir: options.scratchDir,
        signal,
      }),
    );
    const testRun = await timed("tests", () =>
      confinement.phase(services.pythonPath, (sandbox) =>
        sandbox.exec(["bash", "-c", command], {
          cwd: repo,
          env: { ...runEnv, ...withServices(gradeEnv.testEnv, services) },
          timeoutMs: options.testTimeoutMs,
          logFile: options.logFile,
          signal,
        }),
      ),
    ).finally(() => services.stop());
    if (testRun.aborted) throw new LabError("CANCELLED", "Cancelled while running the tests.");
    await log(`: '${TEST_OUTPUT_END}'\n>>>>> Test Exit Code: ${String(testRun.exitCode)}`);

    const text = await readFile(options.logFile, "utf8");
    const statuses: Record<string, TestStatus> = parseTestLog(text, oracle.environment.logParser);
    const verdicts = evaluateTests({
      statuses,
      failToPass: oracle.failToPass,
      passToPass: oracle.passToPass,
    });
    // A limit of the sandbox ended some of the test run (the log says which, and how).
    const overLimit =
      testRun.limitExceeded === null
        ? null
        : `the tests went over the sandbox's ${testRun.limitExceeded} limit`;
    const suspicious = testRun.timedOut
      ? null
      : testRun.exitCode === null
        ? `the test process was killed by ${String(testRun.signal)}`
        : checkSuspiciousOutput({ statuses, testExitCode: testRun.exitCode, log: text });
    const reason = testRun.timedOut
      ? `the tests timed out after ${String(Math.round(options.testTimeoutMs / 1000))} s`
      : overLimit !== null
        ? overLimit
        : suspicious !== null
          ? `the test log was rejected: ${suspicious}`
          : tampering.length > 0
            ? `the change tampers with the test run: ${tampering.join("; ")}`
            : verdicts.reason;
    const resolved =
      !testRun.timedOut &&
      overLimit === null &&
      suspicious === null &&
      tampering.length === 0 &&
      verdicts.resolved;
    return {
      grade: {
        resolved,
        patchApplied: applyMethod !== null,
        patchEmpty,
        applyMethod,
        failToPass: verdicts.failToPass,
        passToPass: verdicts.passToPass,
        statuses,
        reason: resolved ? null : reason,
        testsTimedOut: testRun.timedOut,
        testExitCode: testRun.exitCode,
        phaseMs,
        environmentKey: prepared.key,
        install,
        tampering,
      },
      patch,
    };
  } finally {
    if (options.keepScratch !== true)
      await rm(options.scratchDir, { recursive: true, force: true });
  }
}

/**
 * The tool's change as a binary-safe diff against the base commit, tracked and new files alike.
 * It is read with the fresh checkout's git directory and a private index, so nothing the tool
 * left in its own .git (config, hooks, filters) runs or counts.
 */
export async function captureDiff(
  workTree: string,
  cleanRepo: string,
  baseCommit: string,
  scratchDir: string,
): Promise<string> {
  const env = {
    GIT_DIR: path.join(cleanRepo, ".git"),
    GIT_WORK_TREE: workTree,
    GIT_INDEX_FILE: path.join(scratchDir, "capture.index"),
  };
  await git(["read-tree", baseCommit], { cwd: workTree, env });
  await git(["add", "--all", "--", "."], { cwd: workTree, env });
  return git(
    [
      "diff",
      "--cached",
      "--binary",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      "--no-renames",
      baseCommit,
    ],
    { cwd: workTree, env },
  );
}

/** Applies a change with upstream's fallbacks; returns the method that worked, or null. */
async function applyChange(
  repo: string,
  patch: string,
  scratchDir: string,
  logFile: string,
  signal: AbortSignal | undefined,
): Promise<string | null> {
  const patchFile = path.join(scratchDir, "change.diff");
  await writeFile(patchFile, patch.endsWith("\n") ? patch : `${patch}\n`);
  for (const method of APPLY_CHAIN) {
    const argv = [...method, patchFile];
    const [program, ...args] = argv;
    const result =
      program === "git"
        ? await tryGit(args, { cwd: repo, logFile, signal })
        : await runCommand(argv, {
            cwd: repo,
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
            timeoutMs: 120_000,
            logFile,
            ...(signal === undefined ? {} : { signal }),
          });
    if (result.exitCode === 0) return method.join(" ");
    // Clean the tree between attempts so a half-applied patch never meets the next method.
    await tryGit(["checkout", "--", "."], { cwd: repo });
    await tryGit(["clean", "-fdq"], { cwd: repo });
  }
  const reverse = await tryGit(["apply", "--check", "--reverse", patchFile], { cwd: repo });
  return reverse.exitCode === 0 ? "already applied" : null;
}

/** Puts the test files back to the base commit: modified files checked out, new ones removed. */
async function resetTestFiles(
  repo: string,
  baseCommit: string,
  files: readonly { path: string; isNew: boolean }[],
  env: Readonly<Record<string, string>>,
): Promise<void> {
  const existing = files.filter((file) => !file.isNew).map((file) => file.path);
  if (existing.length > 0)
    await git(["checkout", baseCommit, "--", ...existing], { cwd: repo, env });
  for (const file of files.filter((entry) => entry.isNew)) await removeInside(repo, file.path);
}
