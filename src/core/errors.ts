/** Stable codes for every failure lab reports to a user. */
export type LabErrorCode =
  | "USAGE"
  | "DATASET_NOT_FOUND"
  | "DATASET_INVALID"
  | "SUITE_NOT_FOUND"
  | "TASK_NOT_FOUND"
  | "TASK_INVALID"
  | "TOOL_NOT_FOUND"
  | "TOOL_NOT_INSTALLED"
  | "CONFIG_INVALID"
  | "ENVIRONMENT_FAILED"
  | "PYTHON_NOT_FOUND"
  | "NODE_NOT_FOUND"
  | "SYSTEM_PACKAGES_MISSING"
  | "UV_UNAVAILABLE"
  | "PATCH_INVALID"
  | "GIT_FAILED"
  | "SETUP_FAILED"
  | "SPAWN_FAILED"
  | "SANDBOX_UNAVAILABLE"
  | "PROOF_FAILED"
  | "TEST_RESULTS_INVALID"
  | "RUN_NOT_FOUND"
  | "RUN_CONFLICT"
  | "RUN_LOCKED"
  | "STORE_SCHEMA_MISMATCH"
  | "STORE_CORRUPT"
  | "QUEUE_UNAVAILABLE"
  | "QUEUE_REFUSED"
  | "CANCELLED";

/** An error lab expected and can explain: printed with its hint and no stack trace. */
export class LabError extends Error {
  /** Stable machine-readable code. */
  readonly code: LabErrorCode;
  /** What the user can do about it. */
  readonly hint: string | undefined;

  constructor(
    code: LabErrorCode,
    message: string,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "LabError";
    this.code = code;
    this.hint = options.hint;
  }
}

/** A bad command line: printed with the command's usage, exit 2. */
export class UsageError extends LabError {
  constructor(message: string, hint?: string) {
    super("USAGE", message, hint === undefined ? {} : { hint });
    this.name = "UsageError";
  }
}

/** Whether `error` is a LabError (works across module copies). */
export function isLabError(error: unknown): error is LabError {
  return error instanceof LabError;
}

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A thrown value's code: a LabError's, or a Node error's errno code (ENOSPC); else undefined. */
export function errorCode(error: unknown): string | undefined {
  if (isLabError(error)) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
