/**
 * The words of lab, one per concept, used the same in code, flags, files and reports.
 * Data is plain readonly objects; stored forms are checked by the schemas in ./schemas.ts.
 */
import type { InfraClass } from "./failures.js";
import type { SandboxLimit } from "./sandbox.js";

/** How a test ended, in SWE-bench's words (XPASS is not one of them). */
export type TestStatus = "PASSED" | "FAILED" | "SKIPPED" | "ERROR" | "XFAIL";

/**
 * Which of upstream SWE-bench's log parsers reads a task's test output: flask, xarray and pytest
 * use "pytest", requests and pylint "pytest_options", sphinx, astropy and scikit-learn
 * "pytest_v2", and django, sympy, matplotlib and seaborn their own; the starter suite uses "pytest".
 */
export type LogParser =
  "pytest" | "pytest_options" | "pytest_v2" | "django" | "sympy" | "matplotlib" | "seaborn";

/**
 * Which of upstream SWE-bench's JavaScript log parsers reads a SWE-bench Multilingual JS/TS
 * instance's test output (`parse_log_<name>`): babel and docusaurus use "jest", vuejs/core
 * "vitest", preact "karma", axios and three.js "tap", and immutable-js "immutable_js", which
 * picks "jest" or "jest_json" by the instance's number.
 */
export type JsLogParser = "jest" | "jest_json" | "vitest" | "karma" | "tap" | "immutable_js";

/**
 * How the hidden test patch names what the test command runs: "files", its test files' paths;
 * "django", Django's dotted test labels made from them (see selectTestDirectives).
 */
export type TestDirectiveRule = "files" | "django";

/** The environment a task is graded in: Python's (no `kind`, as every spec before Node's) or Node's. */
export type EnvironmentSpec = PythonEnvironmentSpec | NodeEnvironmentSpec;

/** The JavaScript test runners a Node task's hidden tests run with. */
export type NodeTestRunner = "jest" | "vitest" | "mocha" | "node:test";

/**
 * The Node environment a JavaScript/TypeScript task is graded in (docs/design/node-runtime.md,
 * "How a JS task is graded"): the project's Node and package manager, fetched from the npm
 * registry into lab's cache, its frozen install, and the runner of its hidden tests.
 */
export interface NodeEnvironmentSpec {
  /** What makes it Node's: environment.json's `"kind": "node"`. */
  readonly kind: "node";
  /** The exact Node release ("20.11.1"). */
  readonly node: string;
  /**
   * The package manager as corepack's field states it ("npm", "pnpm@8.6.0", "yarn@1.22.22");
   * absent: read from the project at the base commit (packageManager field, lockfile).
   */
  readonly packageManager?: string | undefined;
  /** The runner of the hidden test files. */
  readonly runner: NodeTestRunner;
  /** Extra environment variables for the install and the test run. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Upstream's own commands instead of lab's frozen install and reporters (SWE-bench
   * Multilingual; docs/design/node-runtime.md, "Upstream's commands"); absent: lab's.
   */
  readonly upstream?: NodeUpstreamCommands | undefined;
}

/** The log parsers an upstream-mode Node spec may name: immutable_js is resolved to its runner's when the task is made. */
export type NodeUpstreamLogParser = Exclude<JsLogParser, "immutable_js">;

/**
 * How upstream SWE-bench builds and tests a SWE-bench Multilingual JS/TS instance, its
 * commands verbatim: the image's install and build, then per grade the test patch, the build
 * again, each test command, and the instance's log parser.
 */
export interface NodeUpstreamCommands {
  /** Run in the checkout to install it (upstream's `install`), with network. */
  readonly install: readonly string[];
  /** Run after the install, and again after the hidden test patch (upstream's `build`). */
  readonly build: readonly string[];
  /** Each run as `(command) | cat` between the output markers (upstream's `test_cmd`). */
  readonly testCommands: readonly string[];
  /** Upstream's parser of the instance's log, which named its FAIL_TO_PASS and PASS_TO_PASS. */
  readonly logParser: NodeUpstreamLogParser;
}

export interface PythonEnvironmentSpec {
  /** Absent or "python": every spec written before Node's has no kind. */
  readonly kind?: "python" | undefined;
  /** Interpreter version, "3.11" or "3.9.18". */
  readonly python: string;
  /** Pinned requirements installed before the project, pip syntax ("pytest==8.3.4"). */
  readonly pins: readonly string[];
  /** Extra `uv pip install` arguments for the pins (e.g. --no-deps for an export that is not self-consistent). */
  readonly pinsInstallArgs?: readonly string[];
  /**
   * Constraints on the build environments of pins built from source (`uv pip install
   * --build-constraints`): an era's sdists may need the setuptools of their day.
   */
  readonly pinsBuildConstraints?: readonly string[] | undefined;
  /** Shell commands run in the checkout before the install (SWE-bench's pre_install). */
  readonly preInstall: readonly string[];
  /** How the project itself is installed, with "python" meaning the environment's interpreter. */
  readonly install: string;
  /** The test command; test files are appended. */
  readonly testCommand: string;
  /** Extra environment variables for the install and the test run. */
  readonly env: Readonly<Record<string, string>>;
  /** Which of upstream's log parsers reads the test output. */
  readonly logParser: LogParser;
  /** Local stand-ins for network services the tests call (e.g. "httpbin"), served on loopback. */
  readonly services?: readonly string[];
  /** How the test patch turns into the test command's arguments; absent means "files". */
  readonly testDirectiveRule?: TestDirectiveRule | undefined;
  /** Debian packages the host needs to build and test the project (compilers, headers, tools). */
  readonly debianPackages?: readonly string[] | undefined;
  /** Shell lines run after the hidden test patch, just before the test command, in its shell. */
  readonly preTest?: readonly string[] | undefined;
}

/** Difficulty proxies and other facts about a task, open to any suite-specific fields. */
export type TaskMetadata = Readonly<Record<string, string | number | boolean | null>>;

/** What `task.json` holds: everything about a task that a tool may know. */
export interface TaskInfo {
  /** Dataset id, e.g. "pallets__flask-4045" or "textkit-slugify-unicode". */
  readonly id: string;
  /** The repository, "owner/name" or a starter project name. */
  readonly repo: string;
  /** The commit the work tree starts at. */
  readonly baseCommit: string;
  /** Difficulty proxies and suite-specific facts. */
  readonly metadata: TaskMetadata;
}

/** The answer key: what only the grader (and the gold tool) may read. */
export interface Oracle {
  /** The reference fix. */
  readonly goldPatch: string;
  /** The hidden tests, applied after the tool's change. */
  readonly testPatch: string;
  /** Tests that must go from failing to passing. */
  readonly failToPass: readonly string[];
  /** Tests that must keep passing. */
  readonly passToPass: readonly string[];
  /** Where the graded environment comes from. */
  readonly environment: EnvironmentSpec;
}

/** A task on disk: its public part, and where its oracle lives. */
export interface Task {
  /** The suite it belongs to. */
  readonly suite: string;
  /** Public facts. */
  readonly info: TaskInfo;
  /** The folder holding prompt.txt, setup.sh, check.sh and task.json. */
  readonly dir: string;
  /** The oracle folder, a sibling tree the tool never sees. */
  readonly oracleDir: string;
  /** The prompt handed to the tool. */
  readonly prompt: string;
}

/** The grader's verdict on one change. */
export interface Grade {
  /** Every FAIL_TO_PASS and PASS_TO_PASS test succeeded. */
  readonly resolved: boolean;
  /** The change applied to a fresh checkout. */
  readonly patchApplied: boolean;
  /** The change was empty. */
  readonly patchEmpty: boolean;
  /** How the change was applied ("git apply", "patch --fuzz=5", ...), when it was. */
  readonly applyMethod: string | null;
  /** FAIL_TO_PASS outcome per test: true when it succeeded. */
  readonly failToPass: Readonly<Record<string, boolean>>;
  /** PASS_TO_PASS outcome per test: true when it succeeded. */
  readonly passToPass: Readonly<Record<string, boolean>>;
  /** Every status parsed from the log, test id to status. */
  readonly statuses: Readonly<Record<string, TestStatus>>;
  /** Why the grade is not resolved, in words, when it is not. */
  readonly reason: string | null;
  /** The test run hit its time limit. */
  readonly testsTimedOut: boolean;
  /**
   * Exit code of the test command, null when it did not run or was killed. With canaries
   * planted, some of which must fail, a pytest run that passes every hidden test exits 1.
   */
  readonly testExitCode: number | null;
  /**
   * How the test run ended beyond its exit code, so that `lab regrade` can judge its log again;
   * absent in grades made before it was stored (regrade reads it from `reason` then).
   */
  readonly testEnd?: GradeTestEnd | undefined;
  /** Milliseconds per grading phase. */
  readonly phaseMs: Readonly<Record<string, number>>;
  /** The environment cache key used. */
  readonly environmentKey: string | null;
  /**
   * How the project was installed: "fresh" by its own install command, "reused" from the base
   * commit's install when the change leaves the install alone; absent when it was not reached.
   */
  readonly install?: "fresh" | "reused" | undefined;
  /**
   * What the change does to the test run itself (a new conftest.py, pytest config, ...), and
   * what the canary tests found wrong with the log; flagged, never resolved.
   */
  readonly tampering: readonly string[];
  /** The canary tests planted among the hidden tests; absent when none were. */
  readonly canaries?: GradeCanaries | undefined;
  /** What the work tree held that could not be part of the change, one line each (left out). */
  readonly leftOut?: readonly string[] | undefined;
}

/** How a grade's test run ended, beyond its exit code. */
export interface GradeTestEnd {
  /** The signal that ended the test command, or null. */
  readonly signal: string | null;
  /** The sandbox limit the test run went over, or null. */
  readonly limit: SandboxLimit | null;
  /** The test run's time limit. */
  readonly timeoutMs: number;
}

/** The canary tests of one grade (docs/design/canaries.md). */
export interface GradeCanaries {
  /** Canaries planted: must pass and must fail. */
  readonly mustPass: number;
  readonly mustFail: number;
  /** Hidden test modules that took them. */
  readonly files: number;
  /**
   * Each canary as planted, and the sentinel line, so that `lab regrade` can check the log by
   * them again; absent in grades made before they were stored.
   */
  readonly planted?: readonly PlantedCanary[] | undefined;
  readonly sentinel?: string | undefined;
  /** The runner guard's token (pytest), by which a regrade finds its report again; null without one. */
  readonly guard?: string | null | undefined;
}

/** One canary test as planted: its function name, module, and whether it must fail. */
export interface PlantedCanary {
  readonly name: string;
  readonly file: string;
  readonly mustFail: boolean;
  /** It registers the exit handler that prints the sentinel. */
  readonly carriesSentinel: boolean;
  /** The module's test it was made from; absent in grades made before it was stored. */
  readonly model?: string | undefined;
}

/** What a tool said about itself after a trial; every field optional. */
export interface Telemetry {
  readonly costUsd?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly turns?: number;
  readonly toolCalls?: number;
  readonly model?: string;
  /** Whether costUsd is what the tool reported or what lab computed from tokens and prices. */
  readonly costSource?: "reported" | "computed";
}

/** How the tool's process ended. */
export interface ToolExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Processes the tool left running after it exited, which lab killed. */
  readonly strayProcesses: number;
  /** A failure the tool reported in its own output (an API error), even with exit status 0. */
  readonly error?: string;
  /** The sandbox limit (memory, disk, processes) that ended or refused some of its processes. */
  readonly limit?: SandboxLimit | undefined;
}

/** A trial's outcome, tagged by kind. Infra errors are the lab's or the environment's fault. */
export type Outcome =
  | { readonly kind: "graded" }
  | { readonly kind: "tool_timeout" }
  | {
      readonly kind: "tool_crashed";
      readonly exitCode: number | null;
      readonly signal: string | null;
      /** What the tool said went wrong, when its output says (an exit status 0 included). */
      readonly message?: string;
    }
  | {
      readonly kind: "infra_error";
      readonly phase: string;
      readonly message: string;
      /** Whose fault it was; absent in records made before classes (readers infer one). */
      readonly class?: InfraClass | undefined;
    };

/** Version of every stored JSON shape; bump on any incompatible change. */
export const SCHEMA_VERSION = 1;

/** One tool's attempt at one task. */
export interface TrialResult {
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly runId: string;
  readonly tool: string;
  readonly toolVersion: string;
  readonly suite: string;
  readonly taskId: string;
  /** 1-based trial number. */
  readonly trial: number;
  readonly outcome: Outcome;
  /** null when the trial never reached a verdict (infra_error). */
  readonly resolved: boolean | null;
  readonly patchApplied: boolean | null;
  readonly patchEmpty: boolean | null;
  readonly grade: Grade | null;
  readonly toolExit: ToolExit | null;
  readonly telemetry: Telemetry;
  /** Milliseconds per phase: setup, tool, diff, grade. */
  readonly phaseMs: Readonly<Record<string, number>>;
  readonly durationMs: number;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** A run's status; "stopped": `--max-cost-total` was reached with trials not started. */
export type RunStatus = "started" | "completed" | "failed" | "cancelled" | "stopped";

/** Why a run stopped before its last trial: its spending cap (`lab run --max-cost-total`). */
export interface RunBudgetStop {
  /** The cap, in USD. */
  readonly maxCostUsd: number;
  /** What the run's finished trials reported, in USD, when it stopped. */
  readonly spentUsd: number;
  /** Planned trials it did not start. */
  readonly notStarted: number;
}

/** What `run.json` holds. */
export interface RunRecord {
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly runId: string;
  readonly tool: string;
  readonly toolVersion: string;
  /** What makes the tool what it is (a command tool's command line), for resume checks. */
  readonly toolFingerprint: string;
  readonly suite: string;
  readonly labVersion: string;
  readonly trials: number;
  readonly taskIds: readonly string[];
  /** The settings the run was started with; a resume keeps them and records its own in `resumes`. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly status: RunStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The name reports give the run's tool (`lab run --label`); the tool's name when absent. */
  readonly label?: string | undefined;
  /** Each later invocation that resumed the run, oldest first. */
  readonly resumes?: readonly RunResume[] | undefined;
  /** Each `lab regrade` of the run, oldest first, with the verdicts it changed. */
  readonly regrades?: readonly RunRegrade[] | undefined;
  /** With status "stopped": the cap it reached; absent otherwise. */
  readonly budgetStop?: RunBudgetStop | undefined;
}

/** One `lab regrade` of a run: its trials judged again from their stored grader.log. */
export interface RunRegrade {
  /** ISO time it ran. */
  readonly at: string;
  readonly labVersion: string;
  /** Trials judged again, and those that could not be (no test log, canaries not recorded). */
  readonly judged: number;
  readonly skipped: number;
  /** Each trial whose verdict changed. */
  readonly changes: readonly VerdictChange[];
}

/** A trial's verdict before and after `lab regrade`, and why it changed. */
export interface VerdictChange {
  readonly taskId: string;
  readonly trial: number;
  readonly old: {
    readonly resolved: boolean;
    readonly flagged: boolean;
    readonly reason: string | null;
  };
  readonly new: {
    readonly resolved: boolean;
    readonly flagged: boolean;
    readonly reason: string | null;
  };
  /** The new grade's reason, or the old one's when the trial is now resolved. */
  readonly why: string;
}

/** One invocation that resumed a run, as run.json records it. */
export interface RunResume {
  /** ISO time it started. */
  readonly at: string;
  /** Its settings, as `config` holds the first invocation's. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The tool's version it found. */
  readonly toolVersion: string;
  readonly labVersion: string;
}
