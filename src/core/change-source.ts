import type { Tool } from "./tool.js";

/**
 * Where a run's changes come from: a tool that makes each change in a work tree of its own, in
 * a sandbox, or changes stated up front (a SWE-bench predictions file), graded as they are.
 * The runner treats both alike from the grade on; only how a trial obtains its change differs.
 */
export type ChangeSource = ToolChanges | StatedChanges;

/** Changes a tool makes, one trial at a time, in a fresh work tree. */
export interface ToolChanges {
  readonly kind: "tool";
  readonly tool: Tool;
}

/** Changes made elsewhere: no work tree is prepared and nothing runs in a sandbox for them. */
export interface StatedChanges {
  readonly kind: "stated";
  /** The name runs and reports give it, as they give a tool's ("predictions"). */
  readonly name: string;
  /** One line saying where the changes come from, for run.json. */
  readonly description: string;
  /** What stands for a tool's version (the predictions' model name). */
  readonly version: string;
  /** What identifies these changes (a hash of the file), so a changed file is not resumed into an old run. */
  readonly fingerprint: string;
  /** Where the changes were read from, for messages. */
  readonly origin: string;
  /** The tasks it states a change for, in its own order. */
  readonly taskIds: readonly string[];
  /** The change for one task, as a diff; "" for an empty change. */
  patchFor(taskId: string): string;
}

/** The name a run records for a source: the tool's, or the stated changes'. */
export function sourceName(source: ChangeSource): string {
  return source.kind === "tool" ? source.tool.name : source.name;
}

/** What identifies a source's behaviour beyond its name, for resume checks. */
export function sourceFingerprint(source: ChangeSource): string {
  return source.kind === "tool" ? source.tool.fingerprint : source.fingerprint;
}

/** One line for run.json saying what made the changes. */
export function sourceDescription(source: ChangeSource): string {
  return source.kind === "tool" ? source.tool.description : source.description;
}
