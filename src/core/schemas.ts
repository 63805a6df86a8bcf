import { z } from "zod";
import type {
  EnvironmentSpec,
  JsLogParser,
  LogParser,
  NodeTestRunner,
  NodeUpstreamLogParser,
  TestDirectiveRule,
} from "./types.js";

/** Every LogParser, for the schema (checked against the type). */
const LOG_PARSERS = [
  "pytest",
  "pytest_options",
  "pytest_v2",
  "django",
  "sympy",
  "matplotlib",
  "seaborn",
] as const satisfies readonly LogParser[];

/** Every JsLogParser, for the schemas of lab's SWE-bench Multilingual data. */
export const JS_LOG_PARSERS = [
  "jest",
  "jest_json",
  "vitest",
  "karma",
  "tap",
  "immutable_js",
] as const satisfies readonly JsLogParser[];

/** Every TestDirectiveRule, for the schema. */
const TEST_DIRECTIVE_RULES = ["files", "django"] as const satisfies readonly TestDirectiveRule[];

/** `task.json`: the public facts of a task. */
export const taskInfoSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_' or '-'"),
  repo: z.string().min(1),
  baseCommit: z.string().regex(/^[0-9a-f]{40}$/, "a 40-character commit hash"),
  metadata: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .default({}),
});

/** `oracle/<id>/tests.json`: the hidden test lists, named as SWE-bench names them. */
export const testListsSchema = z.object({
  FAIL_TO_PASS: z.array(z.string()),
  PASS_TO_PASS: z.array(z.string()),
});

/** The JS log parsers an upstream-mode Node spec names (immutable_js is resolved when the task is made). */
export const NODE_UPSTREAM_LOG_PARSERS = [
  "jest",
  "jest_json",
  "vitest",
  "karma",
  "tap",
] as const satisfies readonly NodeUpstreamLogParser[];

/** Every NodeTestRunner, for the schema. */
export const NODE_TEST_RUNNERS = [
  "jest",
  "vitest",
  "mocha",
  "node:test",
] as const satisfies readonly NodeTestRunner[];

/** `oracle/<id>/environment.json` of a Python task: how its environment is built. */
export const pythonEnvironmentSpecSchema = z.object({
  kind: z.literal("python").optional(),
  python: z.string().regex(/^\d+\.\d+(\.\d+)?$/, "a Python version such as 3.11 or 3.9.18"),
  pins: z.array(z.string()).default([]),
  pinsInstallArgs: z.array(z.string()).default([]),
  pinsBuildConstraints: z.array(z.string()).optional(),
  preInstall: z.array(z.string()).default([]),
  install: z.string(),
  testCommand: z.string().default("pytest -rA"),
  env: z.record(z.string(), z.string()).default({}),
  logParser: z.enum(LOG_PARSERS).default("pytest"),
  services: z.array(z.string()).default([]),
  testDirectiveRule: z.enum(TEST_DIRECTIVE_RULES).optional(),
  debianPackages: z.array(z.string()).optional(),
  preTest: z.array(z.string()).optional(),
});

/** `oracle/<id>/environment.json` of a JavaScript/TypeScript task (`"kind": "node"`). */
export const nodeEnvironmentSpecSchema = z.object({
  kind: z.literal("node"),
  node: z.string().regex(/^\d+\.\d+\.\d+$/, "an exact Node version such as 20.11.1"),
  packageManager: z
    .string()
    .regex(/^(npm|pnpm|yarn)(@[^\s]+)?$/, "npm, pnpm or yarn, with @version or without")
    .optional(),
  runner: z.enum(NODE_TEST_RUNNERS),
  env: z.record(z.string(), z.string()).default({}),
  upstream: z
    .strictObject({
      install: z.array(z.string()).min(1, "at least one install command"),
      build: z.array(z.string()).default([]),
      testCommands: z.array(z.string()).min(1, "at least one test command"),
      logParser: z.enum(NODE_UPSTREAM_LOG_PARSERS),
    })
    .optional(),
});

/**
 * `oracle/<id>/environment.json`: Node's spec when `kind` is "node", else Python's (the
 * default: specs written before Node's have no kind). Chosen by `kind` first, so an error names
 * the fields of the one spec meant rather than both.
 */
export const environmentSpecSchema: z.ZodType<EnvironmentSpec> = z
  .unknown()
  .transform((value, context): EnvironmentSpec => {
    const isNode =
      typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "node";
    const parsed = (isNode ? nodeEnvironmentSpecSchema : pythonEnvironmentSpecSchema).safeParse(
      value,
    );
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, path: issue.path });
    return z.NEVER;
  });

/** `suite.json`: a suite's name and version. */
export const suiteInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  description: z.string().default(""),
  /** Where a generated suite's tasks come from, so that `lab gen` resumes from the same place. */
  source: z
    .object({
      kind: z.literal("swebench"),
      /** A dataset name (lite, verified, full) or the file given to --dataset. */
      dataset: z.string(),
      split: z.string().default("test"),
    })
    .optional(),
});

const testStatus = z.enum(["PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"]);

/** A grade as stored: in a trial's result.json and in a suite's proof.json. */
export const gradeSchema = z.object({
  resolved: z.boolean(),
  patchApplied: z.boolean(),
  patchEmpty: z.boolean(),
  applyMethod: z.string().nullable(),
  failToPass: z.record(z.string(), z.boolean()),
  passToPass: z.record(z.string(), z.boolean()),
  statuses: z.record(z.string(), testStatus),
  reason: z.string().nullable(),
  testsTimedOut: z.boolean(),
  testExitCode: z.number().nullable(),
  phaseMs: z.record(z.string(), z.number()),
  environmentKey: z.string().nullable(),
  install: z.enum(["fresh", "reused"]).optional(),
  tampering: z.array(z.string()).default([]),
  testEnd: z
    .object({
      signal: z.string().nullable(),
      limit: z.enum(["memory", "disk", "processes"]).nullable(),
      timeoutMs: z.number(),
    })
    .optional(),
  canaries: z
    .object({
      mustPass: z.number(),
      mustFail: z.number(),
      files: z.number(),
      planted: z
        .array(
          z.object({
            name: z.string(),
            file: z.string(),
            mustFail: z.boolean(),
            carriesSentinel: z.boolean(),
            model: z.string().optional(),
          }),
        )
        .optional(),
      sentinel: z.string().optional(),
      guard: z.string().nullable().optional(),
    })
    .optional(),
  leftOut: z.array(z.string()).optional(),
});

/** Turns a zod error into one line naming the field. */
export function describeSchemaError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}
