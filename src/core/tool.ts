import type { Sandbox, ToolInstallation } from "./sandbox.js";
import type { Telemetry, ToolExit } from "./types.js";

/** What a tool is given for one trial. The oracle is never in here, except for `gold`. */
export interface ToolContext {
  /** The task being attempted. */
  readonly taskId: string;
  /** The prompt text, also in `promptFile`. */
  readonly prompt: string;
  /** A file holding the prompt, outside the work tree (readable in the sandbox). */
  readonly promptFile: string;
  /** The work tree at the base commit; the tool edits it in place. */
  readonly workTree: string;
  /** The tool's wall-clock limit. */
  readonly timeoutMs: number;
  /** Where the tool's stdout and stderr go. */
  readonly logFile: string;
  /** A folder beside the trial for transcripts and other artifacts the tool keeps (writable in the sandbox). */
  readonly artifactsDir: string;
  /** Base environment for the tool's processes (allowlisted; the trial marker; the sandbox's HOME). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborted when the run is interrupted. */
  readonly signal: AbortSignal;
  /** The trial's sandbox: every process of the tool runs through `sandbox.exec`. */
  readonly sandbox: Sandbox;
  /** The reference fix; only set for tools that declare `readsOracle`. */
  readonly goldPatch?: string;
}

/** What a tool reports after a trial. */
export interface ToolReport {
  readonly exit: Omit<ToolExit, "strayProcesses">;
  readonly telemetry: Telemetry;
  /** What was wrong with what the tool left (its telemetry file), for the run's log. */
  readonly warnings?: readonly string[];
}

/** A coding agent under test, or a baseline, behind one interface. */
export interface Tool {
  /** The name users give to `lab run`. */
  readonly name: string;
  /** One line for `lab tools list` and `--help`. */
  readonly description: string;
  /** Only `gold` reads the oracle; the runner hands the gold patch to no other tool. */
  readonly readsOracle: boolean;
  /** Host folders its installation needs, made readable in the sandbox (beyond the system and PATH). */
  readonly sandboxPaths?: readonly string[];
  /** The installation lab made for it (`lab tools install`), whose paths are in sandboxPaths. */
  readonly installation?: ToolInstallation;
  /** What identifies this tool's behaviour beyond its name (a command line), for resume checks. */
  readonly fingerprint: string;
  /** The tool's version, or "unknown". */
  detectVersion(): Promise<string>;
  /** Fails with TOOL_NOT_INSTALLED (and how to fix it) when the tool cannot run here. */
  checkReady(): Promise<void>;
  /** Attempts the task in ctx.workTree. */
  run(ctx: ToolContext): Promise<ToolReport>;
}
