import path from "node:path";
import {
  listPatchFiles,
  quoteShell,
  selectTestDirectives,
  type EnvironmentSpec,
  type NodeEnvironmentSpec,
  type NodeTestRunner,
  type NodeUpstreamCommands,
  type Oracle,
  type PatchFile,
  type PythonEnvironmentSpec,
  type Task,
} from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { describeCanaryPlan, planCanaries, type CanaryPlan } from "./canaries.js";
import type { GradeSandbox } from "./grade-sandbox.js";
import { isEditableInstall } from "./install-layer.js";
import { jsTestCommand } from "./js/index.js";
import type { TestLogParser } from "./parse-log.js";
import { setupScriptOf } from "../suite/index.js";

/** The change to grade: a diff, or a tool's work tree to take the diff from. */
export type Change = { readonly patch: string } | { readonly workTree: string };

/** Limits and places for one grade, as its caller gives them. */
export interface GradeOptions {
  /** Scratch folder for the checkout and the per-grade environment; removed afterwards. */
  readonly scratchDir: string;
  /** The full grading log: the plan, apply output, install output, the test run. */
  readonly logFile: string;
  readonly environment: EnvironmentOptions;
  readonly setupTimeoutMs: number;
  readonly installTimeoutMs: number;
  readonly testTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Keep the scratch folder, for debugging. */
  readonly keepScratch?: boolean;
  /**
   * Where the change's code runs when it is installed and tested (`grade-sandbox.ts`); default:
   * bwrap when it can make a sandbox here, else none.
   */
  readonly sandbox?: GradeSandbox | undefined;
  /** Plant canary tests among the hidden tests (`canaries.ts`); default true. */
  readonly canaries?: boolean | undefined;
  /** Told each grading step's name as it starts, for progress (not part of the plan). */
  readonly onPhase?: ((phase: string) => void) | undefined;
}

/** The fallbacks upstream SWE-bench tries, in its order, until one applies the change. */
export const APPLY_CHAIN: readonly (readonly string[])[] = [
  ["git", "apply", "--verbose"],
  ["git", "apply", "--verbose", "--3way"],
  ["git", "apply", "--verbose", "--reject"],
  ["patch", "--batch", "--forward", "--fuzz=5", "-p1", "-i"],
];

/** How a grade installs the project over the change. */
export interface InstallPlan {
  /**
   * The spec's pre-install steps (SWE-bench's pre_install), run on the fresh checkout before the
   * change is applied, as upstream's image runs them before a prediction meets the repository.
   */
  readonly preInstall: readonly string[];
  /** The install command. */
  readonly command: string;
  /**
   * Whether the base commit's install (a cached layer) may stand for installing the change:
   * only an editable install reads the checkout's files in place. Whether it does for this
   * change is decided once the change is applied (`install-scope.ts`), since only the applied
   * tree shows what a fallback such as `patch --fuzz` really wrote.
   */
  readonly reuse: { readonly allowed: true } | { readonly allowed: false; readonly why: string };
}

/** Where one grade keeps its files. */
export interface GradePlaces {
  /** The grade's scratch folder; removed afterwards unless kept. */
  readonly scratchDir: string;
  /** The fresh checkout of the base commit, where the change is applied. */
  readonly repo: string;
  /** The graded commands' HOME. */
  readonly home: string;
  /** The grade's own /tmp: concurrent grades would otherwise share pytest's basetemp. */
  readonly tmp: string;
  /** The grading log. */
  readonly logFile: string;
}

/**
 * Everything one grade will do, decided before it starts, as upstream builds its TestSpec once
 * per instance: the checkout, the change and how it is applied, the environment and the
 * install, the test files reset and the hidden tests, the test command and its parser, the
 * limits and the sandbox. The steps of `grade.ts` each take it; `describePlan` prints it at the
 * top of grader.log.
 */
export interface GradingPlan {
  readonly task: Pick<Task, "suite" | "dir" | "oracleDir" | "info">;
  readonly change: Change;
  /** Upstream's apply fallbacks, tried in order. */
  readonly apply: readonly (readonly string[])[];
  /** The era environment (interpreter and pins), built once and cached by its key. */
  readonly environment: EnvironmentSpec;
  readonly install: InstallPlan;
  /** Test files the test patch touches: put back to the base commit (new ones removed) first. */
  readonly resetFiles: readonly PatchFile[];
  /** The hidden tests. */
  readonly testPatch: string;
  /** The whole test command: the spec's command and upstream's test directives. */
  readonly testCommand: string;
  /**
   * Shell lines run just before the test command, in its shell, after the hidden tests are in
   * (upstream's eval-script lines between the test patch and the start marker: an `export`).
   */
  readonly preTest: readonly string[];
  /** Which of upstream's log parsers reads the test output, or lab's JS results in the log. */
  readonly parser: TestLogParser;
  /** A Node task's test run: its runner, the hidden test files and where results go; else null. */
  readonly js: JsTestPlan | null;
  /** The canary tests planted among the hidden tests, or why there are none. */
  readonly canaries: CanaryPlan;
  /** Stand-ins for network services the tests call, served on loopback. */
  readonly services: readonly string[];
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  readonly limits: {
    readonly setupMs: number;
    readonly installMs: number;
    readonly testMs: number;
  };
  readonly places: GradePlaces;
  /** lab's cache, uv and interpreters, and the PATH of lab's own steps. */
  readonly machine: EnvironmentOptions;
  /** Where the change's code runs; undefined: bwrap when it can run here, else none. */
  readonly sandbox: GradeSandbox | undefined;
  /** Keep the scratch folder afterwards. */
  readonly keepScratch: boolean;
}

/** How a Node task's hidden tests run (src/grader/js/). */
export interface JsTestPlan {
  readonly runner: NodeTestRunner;
  /** The hidden test files, the only ones run. */
  readonly testFiles: readonly string[];
  /** Where the runner writes its results (in the grade's /tmp), copied into the log after. */
  readonly resultsPath: string;
  /**
   * Upstream's own commands (the spec's `upstream`): its install and build, its test commands
   * and its parser, in place of lab's frozen install, reporters and results; else null.
   */
  readonly upstream: NodeUpstreamCommands | null;
}

/** The plan of a Python task's grade. */
export type PythonGradingPlan = GradingPlan & { readonly environment: PythonEnvironmentSpec };

/** The plan of a Node task's grade. */
export type NodeGradingPlan = GradingPlan & {
  readonly environment: NodeEnvironmentSpec;
  readonly js: JsTestPlan;
};

/** Whether a plan grades a Node task. */
export function isNodePlan(plan: GradingPlan): plan is NodeGradingPlan {
  return plan.environment.kind === "node" && plan.js !== null;
}

/** Whether a plan grades a Python task. */
export function isPythonPlan(plan: GradingPlan): plan is PythonGradingPlan {
  return plan.environment.kind !== "node";
}

/** The parser of a task's test log: upstream's for Python and for upstream-mode Node, else lab's JS results. */
export function testLogParserOf(spec: EnvironmentSpec): TestLogParser {
  if (spec.kind === "node") return spec.upstream?.logParser ?? "js-results";
  return spec.logParser;
}

/**
 * The hidden test files of a JS test patch: JavaScript and TypeScript files it adds or changes
 * that are tests by name (`*.test.*`, `*.spec.*`) or place (`test/`, `tests/`, `__tests__/`);
 * fixtures, snapshots and helpers it touches are reset and applied but not run, and a test file
 * it deletes is not there to run.
 */
export function jsTestFilesOf(testPatch: string): string[] {
  const deleted = new Set(
    listPatchFiles(testPatch)
      .filter((file) => file.isDeleted)
      .map((file) => file.path),
  );
  return selectTestDirectives(testPatch, "files").filter(
    (file) =>
      !deleted.has(file) &&
      /\.[cm]?[jt]sx?$/.test(file) &&
      !file.endsWith(".d.ts") &&
      (/\.(test|spec)\.[cm]?[jt]sx?$/.test(file) || /(^|\/)(tests?|__tests__)\//.test(file)),
  );
}

/** Builds the plan of one grade. Pure: it reads no file and runs nothing. */
export function planGrade(
  task: Pick<Task, "suite" | "dir" | "oracleDir" | "info">,
  oracle: Oracle,
  change: Change,
  options: GradeOptions,
): GradingPlan {
  const spec = oracle.environment;
  if (spec.kind === "node") return planNodeGrade(task, oracle, spec, change, options);
  const directives = selectTestDirectives(oracle.testPatch, spec.testDirectiveRule ?? "files");
  return {
    task,
    change,
    apply: APPLY_CHAIN,
    environment: spec,
    install: {
      preInstall: spec.preInstall,
      command: spec.install,
      reuse: isEditableInstall(spec.install)
        ? { allowed: true }
        : { allowed: false, why: "the install is not editable, so it copies the change's code" },
    },
    resetFiles: listPatchFiles(oracle.testPatch),
    testPatch: oracle.testPatch,
    testCommand: [spec.testCommand, ...directives.map(quoteShell)].join(" "),
    preTest: spec.preTest ?? [],
    parser: spec.logParser,
    js: null,
    canaries: planCanaries(
      spec,
      selectTestDirectives(oracle.testPatch, "files"),
      options.canaries !== false,
      [...oracle.failToPass, ...oracle.passToPass],
      oracle.failToPass,
    ),
    services: spec.services ?? [],
    failToPass: oracle.failToPass,
    passToPass: oracle.passToPass,
    limits: {
      setupMs: options.setupTimeoutMs,
      installMs: options.installTimeoutMs,
      testMs: options.testTimeoutMs,
    },
    places: placesUnder(options.scratchDir, options.logFile),
    machine: options.environment,
    sandbox: options.sandbox,
    keepScratch: options.keepScratch === true,
  };
}

/**
 * A Node task's plan: no pre-install steps; the install is the frozen install of the project's
 * package manager (chosen from its files once checked out), reused from lab's cache when the
 * change leaves the install's inputs alone; only the hidden test files run, with the runner's
 * machine-readable reporter; canaries copied from the hidden test files' own tests (js/canaries.ts).
 * With the spec's `upstream`, upstream's commands instead: its install and build (the install
 * reused as lab's is), the build again after the test patch, its test commands and its parser;
 * canaries judged by that parser's ids (planUpstreamCanaries).
 */
function planNodeGrade(
  task: Pick<Task, "suite" | "dir" | "oracleDir" | "info">,
  oracle: Oracle,
  spec: NodeEnvironmentSpec,
  change: Change,
  options: GradeOptions,
): NodeGradingPlan {
  const places = placesUnder(options.scratchDir, options.logFile);
  const testFiles = jsTestFilesOf(oracle.testPatch);
  const resultsPath = path.join(places.tmp, "lab-js-results");
  const upstream = spec.upstream ?? null;
  const testCommand =
    upstream === null
      ? jsTestCommand(spec.runner, testFiles, resultsPath)
      : upstreamTestScript(upstream.testCommands);
  return {
    task,
    change,
    apply: APPLY_CHAIN,
    environment: spec,
    install: {
      preInstall: [],
      command:
        upstream === null
          ? `${spec.packageManager ?? "the project's package manager"}, frozen from its lockfile`
          : [...upstream.install, ...upstream.build].join(" && "),
      reuse: { allowed: true },
    },
    resetFiles: listPatchFiles(oracle.testPatch),
    testPatch: oracle.testPatch,
    testCommand,
    preTest: upstream?.build ?? [],
    parser: upstream?.logParser ?? "js-results",
    js: { runner: spec.runner, testFiles, resultsPath, upstream },
    canaries:
      upstream === null
        ? planCanaries(
            { testCommand, logParser: spec.runner },
            testFiles,
            options.canaries !== false,
            [],
            oracle.failToPass,
          )
        : planUpstreamCanaries(upstream, testFiles, oracle, options.canaries !== false),
    services: [],
    failToPass: oracle.failToPass,
    passToPass: oracle.passToPass,
    limits: {
      setupMs: options.setupTimeoutMs,
      installMs: options.installTimeoutMs,
      testMs: options.testTimeoutMs,
    },
    places,
    machine: options.environment,
    sandbox: options.sandbox,
    keepScratch: options.keepScratch === true,
  };
}

/**
 * Options of upstream's test commands that run only the tests whose titles match: jest's and
 * vitest's `-t`, mocha's `-g`/`--grep`/`--fgrep`, QUnit's `-f`/`--filter`. preact's karma
 * `--grep` is not one: its karma.conf.js takes it for the test files' pattern.
 */
const SELECTS_BY_TITLE = /(^|\s)(-t|-g|-f|--testNamePattern|--fgrep|--filter)(\s|=)/;
const GREP = /(^|\s)--grep(\s|=)/;
/** A command cut short by `timeout` (axios-4738), which may end the run before a canary's turn. */
const CUT_SHORT = /(^|[\s;&|(])timeout\s/;

/**
 * The canaries of a grade by upstream's commands (SWE-bench Multilingual): the JS canaries, in
 * the hidden test files, judged by upstream's parser's ids (js/canaries.ts, isUpstreamCanaryId),
 * their titles kept off the ids the instance names. None where a command selects tests by title
 * (a copy with a new title may not be selected) or is cut short by `timeout`
 * (docs/design/canaries.md, "Known limits").
 */
export function planUpstreamCanaries(
  upstream: NodeUpstreamCommands,
  testFiles: readonly string[],
  oracle: Pick<Oracle, "failToPass" | "passToPass">,
  enabled: boolean,
): CanaryPlan {
  const commands = upstream.testCommands.join("\n");
  if (
    enabled &&
    (SELECTS_BY_TITLE.test(commands) || (upstream.logParser !== "karma" && GREP.test(commands)))
  )
    return { style: null, why: "upstream's test command selects tests by title" };
  if (enabled && CUT_SHORT.test(commands))
    return { style: null, why: "upstream's test command is cut short by timeout" };
  const plan = planCanaries(
    { testCommand: commands, logParser: "jest" },
    testFiles,
    enabled,
    [],
    oracle.failToPass,
  );
  return plan.style === null
    ? plan
    : {
        ...plan,
        upstream: {
          parser: upstream.logParser,
          known: [...oracle.failToPass, ...oracle.passToPass],
        },
      };
}

/**
 * Upstream's test commands as one bash script, each as its eval script runs it: `(command) |
 * cat`, so no runner sees a TTY, under `set -uo pipefail` (upstream's `-x` tracing is lab's `+`
 * line), the exit status the last command's.
 */
export function upstreamTestScript(commands: readonly string[]): string {
  return ["set -uo pipefail", ...commands.map((command) => `(${command}) | cat`)].join("\n");
}

/** A grade's places under one scratch folder. */
export function placesUnder(scratchDir: string, logFile: string): GradePlaces {
  return {
    scratchDir,
    repo: path.join(scratchDir, "repo"),
    home: path.join(scratchDir, "home"),
    tmp: path.join(scratchDir, "tmp"),
    logFile,
  };
}

/** The plan as the lines that open grader.log (each starts with "# "). */
export function describePlan(plan: GradingPlan): string {
  const { task, environment: spec, install } = plan;
  const seconds = (ms: number): string => `${String(Math.round(ms / 1000))} s`;
  const lines = [
    `lab grade: ${task.suite}/${task.info.id} at ${task.info.baseCommit}`,
    "plan:",
    `  checkout: ${setupScriptOf(task.dir)} into ${plan.places.repo}`,
    "patch" in plan.change
      ? `  change: a stated patch (${String(listPatchFiles(plan.change.patch).length)} file(s))`
      : `  change: the diff of the work tree ${plan.change.workTree} against the base commit`,
    spec.kind === "node"
      ? `  environment: Node ${spec.node}, ${spec.packageManager ?? "the package manager the project names at its base commit"} (both from the npm registry, in lab's cache)`
      : `  environment: Python ${spec.python}, ${String(spec.pins.length)} pin(s)`,
    `  pre-install: ${install.preInstall.length === 0 ? "none" : `${String(install.preInstall.length)} step(s), run before the change is applied`}`,
    `  apply: ${plan.apply.map((method) => method.join(" ")).join("; then ")}`,
    spec.kind === "node" && spec.upstream !== undefined
      ? `  install: upstream's ${install.command} (the base commit's node_modules folders, cached by Node, package manager, lockfile and these commands, are copied in when the applied change leaves package.json, the lockfiles and the manager's settings alone)`
      : spec.kind === "node"
        ? `  install: ${install.command} (the base commit's node_modules, cached by Node, package manager and lockfile, is copied in when the applied change leaves package.json, the lockfiles and the manager's settings alone)`
        : `  install: ${install.command} (${install.reuse.allowed ? "the base commit's install is reused when the applied change leaves it alone" : `always fresh: ${install.reuse.why}`})`,
    `  reset: ${plan.resetFiles.length === 0 ? "nothing" : plan.resetFiles.map((file) => `${file.path}${file.isNew ? " (new)" : file.renamedFrom === undefined ? "" : ` (renamed from ${file.renamedFrom})`}`).join(", ")}`,
    ...(plan.preTest.length === 0 ? [] : [`  pre-test: ${plan.preTest.join("; ")}`]),
    // A JS command carries lab's reporter's source: the log's `+` line shows it whole.
    plan.js === null || plan.js.upstream !== null
      ? `  tests: ${plan.js?.upstream?.testCommands.join("; then ") ?? plan.testCommand}`
      : `  tests: ${plan.js.runner} on ${plan.js.testFiles.join(", ")} only, its results written to ${plan.js.resultsPath}`,
    `  parser: ${plan.js === null ? plan.parser : plan.js.upstream !== null ? `upstream's parse_log_${plan.js.upstream.logParser}` : `lab's ${plan.js.runner} results (${String(plan.js.testFiles.length)} test file(s))`}; ${String(plan.failToPass.length)} FAIL_TO_PASS, ${String(plan.passToPass.length)} PASS_TO_PASS`,
    `  canaries: ${describeCanaryPlan(plan.canaries)}`,
    ...(plan.services.length === 0 ? [] : [`  services: ${plan.services.join(", ")}`]),
    `  limits: setup ${seconds(plan.limits.setupMs)}, each install ${seconds(plan.limits.installMs)}, tests ${seconds(plan.limits.testMs)}`,
    `  sandbox: ${plan.sandbox?.provider.name ?? "bwrap if it runs here, else none"}`,
  ];
  return lines.map((line) => `# ${line}\n`).join("");
}
