import { z } from "zod";
import type { JsLogParser, LogParser, TestDirectiveRule } from "./types.js";

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

/** `oracle/<id>/environment.json`: how the task's Python environment is built. */
export const environmentSpecSchema = z.object({
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
