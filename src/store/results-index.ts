/**
 * results.jsonl: one line per finished trial, holding the figures a report counts of its
 * result.json plus that file's mtime and size. It is only a cache: result.json stays the
 * truth, and a reader that finds the two disagree (a crash between the two writes, a trial
 * folder deleted by hand, a run made before the index existed) reads result.json and
 * rewrites the index. Reading 100 000 result.json files takes many seconds; one stat each and
 * one small JSONL file do not. See docs/design/reports.md.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { appendFile, stat } from "node:fs/promises";
import path from "node:path";
import {
  inferInfraClass,
  type InfraClass,
  type Outcome,
  type SandboxLimit,
  type TrialResult,
} from "../core/index.js";
import { writeFileAtomic } from "./atomic.js";
import { readStoredSync, readTrialResults, trialPaths, type RunPaths } from "./runs.js";
import { trialResultSchema } from "./schemas.js";

/** What a report counts of a trial: result.json's figures, flat. */
export interface TrialRow {
  readonly taskId: string;
  /** 1-based trial number. */
  readonly trial: number;
  /** The outcome's kind; infra_error trials are left out of every rate. */
  readonly kind: Outcome["kind"];
  readonly resolved: boolean | null;
  readonly patchApplied: boolean | null;
  readonly patchEmpty: boolean | null;
  /** Telemetry the tool reported; null when it did not. */
  readonly costUsd: number | null;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly cacheReadTokens: number | null;
  readonly cacheWriteTokens: number | null;
  /** The tool phase's milliseconds; null when the trial never reached it. */
  readonly toolMs: number | null;
  readonly durationMs: number;
  /** The grade flagged the change for tampering with the test run (the report's cheat count). */
  readonly flagged: boolean;
  /** The model the tool said it used; null when it said none. */
  readonly model: string | null;
  /**
   * How the tool's process ended, for the report's failures: its exit code and signal, the
   * sandbox limit that stopped it; null when it never ran (optional: rows made by hand).
   */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly limit?: SandboxLimit | null;
  /** An infra error's class: the record's, else inferred from its words, else "unclassified". */
  readonly infraClass?: InfraClass | "unclassified" | null;
}

/**
 * Version of the index's line format. A line of another version is skipped, so its trial is
 * read from result.json and the index rewritten: changing the format needs no migration.
 */
const INDEX_VERSION = 3;

const KINDS: readonly Outcome["kind"][] = ["graded", "tool_timeout", "tool_crashed", "infra_error"];

/** The report's figures of a trial result. */
export function toTrialRow(result: TrialResult): TrialRow {
  const { telemetry } = result;
  return {
    taskId: result.taskId,
    trial: result.trial,
    kind: result.outcome.kind,
    resolved: result.resolved,
    patchApplied: result.patchApplied,
    patchEmpty: result.patchEmpty,
    costUsd: telemetry.costUsd ?? null,
    inputTokens: telemetry.inputTokens ?? null,
    outputTokens: telemetry.outputTokens ?? null,
    cacheReadTokens: telemetry.cacheReadTokens ?? null,
    cacheWriteTokens: telemetry.cacheWriteTokens ?? null,
    toolMs: result.phaseMs.tool ?? null,
    durationMs: result.durationMs,
    flagged: (result.grade?.tampering.length ?? 0) > 0,
    model: telemetry.model ?? null,
    exitCode: result.toolExit?.exitCode ?? null,
    signal: result.toolExit?.signal ?? null,
    limit: result.toolExit?.limit ?? null,
    infraClass: infraClassOf(result.outcome),
  };
}

/** An infra error's class: as recorded, else what its words say, else "unclassified". */
function infraClassOf(outcome: Outcome): InfraClass | "unclassified" | null {
  if (outcome.kind !== "infra_error") return null;
  return outcome.class ?? inferInfraClass(outcome.message) ?? "unclassified";
}

/**
 * A line is a JSON array, not an object: a third of the size, and several times faster to
 * parse by the hundred thousand.
 */
type IndexLine = [
  version: number,
  taskId: string,
  trial: number,
  mtimeMs: number,
  size: number,
  kind: Outcome["kind"],
  resolved: boolean | null,
  patchApplied: boolean | null,
  patchEmpty: boolean | null,
  costUsd: number | null,
  inputTokens: number | null,
  outputTokens: number | null,
  cacheReadTokens: number | null,
  cacheWriteTokens: number | null,
  toolMs: number | null,
  durationMs: number,
  flagged: boolean,
  model: string | null,
  exitCode: number | null,
  signal: string | null,
  limit: SandboxLimit | null,
  infraClass: InfraClass | "unclassified" | null,
];

function toLine(row: TrialRow, file: { mtimeMs: number; size: number }): string {
  const line: IndexLine = [
    INDEX_VERSION,
    row.taskId,
    row.trial,
    file.mtimeMs,
    file.size,
    row.kind,
    row.resolved,
    row.patchApplied,
    row.patchEmpty,
    row.costUsd,
    row.inputTokens,
    row.outputTokens,
    row.cacheReadTokens,
    row.cacheWriteTokens,
    row.toolMs,
    row.durationMs,
    row.flagged,
    row.model,
    row.exitCode ?? null,
    row.signal ?? null,
    row.limit ?? null,
    row.infraClass ?? null,
  ];
  return `${JSON.stringify(line)}\n`;
}

function fromLine(line: IndexLine): TrialRow {
  return {
    taskId: line[1],
    trial: line[2],
    kind: line[5],
    resolved: line[6],
    patchApplied: line[7],
    patchEmpty: line[8],
    costUsd: line[9],
    inputTokens: line[10],
    outputTokens: line[11],
    cacheReadTokens: line[12],
    cacheWriteTokens: line[13],
    toolMs: line[14],
    durationMs: line[15],
    flagged: line[16],
    model: line[17],
    exitCode: line[18],
    signal: line[19],
    limit: line[20],
    infraClass: line[21],
  };
}

/** A light check, not a schema: the mtime and size comparison guards the content. */
function isIndexLine(value: unknown): value is IndexLine {
  return (
    Array.isArray(value) &&
    value.length === 22 &&
    value[0] === INDEX_VERSION &&
    typeof value[1] === "string" &&
    typeof value[2] === "number" &&
    typeof value[3] === "number" &&
    typeof value[4] === "number" &&
    KINDS.includes(value[5] as Outcome["kind"])
  );
}

/** Appends a finished trial to the run's index; call after its result.json is written. */
export async function appendTrialIndex(run: RunPaths, result: TrialResult): Promise<void> {
  const file = await stat(trialPaths(run, result.taskId, result.trial).result);
  await appendFile(run.resultsIndex, toLine(toTrialRow(result), file));
}

/** The index's lines by task id, then trial; later lines win, broken or foreign ones are skipped. */
function readIndex(run: RunPaths): Map<string, Map<number, IndexLine>> {
  const lines = new Map<string, Map<number, IndexLine>>();
  let text: string;
  try {
    text = readFileSync(run.resultsIndex, "utf8");
  } catch {
    return lines;
  }
  const raws = text.split("\n").filter((raw) => raw !== "");
  let parsed: unknown[];
  try {
    // One parse of the whole file is several times faster than one per line.
    parsed = JSON.parse(`[${raws.join(",")}]`) as unknown[];
  } catch {
    parsed = raws.map((raw) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return null; // a line cut short by a crash: its trial is read from result.json
      }
    });
  }
  for (const line of parsed) {
    if (!isIndexLine(line)) continue;
    let trials = lines.get(line[1]);
    if (trials === undefined) {
      trials = new Map();
      lines.set(line[1], trials);
    }
    trials.set(line[2], line);
  }
  return lines;
}

/**
 * Every finished trial of a run, by task id (code-unit order) and trial, read through the
 * index: a trial whose result.json has the mtime and size the index recorded comes from the
 * index, any other from result.json. When they disagreed, the index is rewritten (best effort:
 * a read-only store is still reported, only more slowly).
 */
export async function readTrialRows(run: RunPaths): Promise<TrialRow[]> {
  let taskIds: string[];
  try {
    taskIds = readdirSync(run.trialsDir);
  } catch {
    return [];
  }
  const indexed = readIndex(run);
  const rows: TrialRow[] = [];
  const files: { mtimeMs: number; size: number }[] = [];
  let isStale = false;
  for (const taskId of taskIds.sort()) {
    const taskDir = path.join(run.trialsDir, taskId);
    let trials: string[];
    try {
      trials = readdirSync(taskDir);
    } catch {
      continue;
    }
    const known = indexed.get(taskId);
    indexed.delete(taskId);
    const numbers = trials.filter((name) => /^\d+$/.test(name)).map(Number);
    for (const trial of numbers.sort((a, b) => a - b)) {
      // Joined by hand, not with trialPaths: path.join was a fifth of a 100 000-trial report.
      const resultFile = `${taskDir}${path.sep}${String(trial)}${path.sep}result.json`;
      const file = statSync(resultFile, { throwIfNoEntry: false });
      if (file === undefined) continue;
      const line = known?.get(trial);
      known?.delete(trial);
      files.push({ mtimeMs: file.mtimeMs, size: file.size });
      if (line !== undefined && line[3] === file.mtimeMs && line[4] === file.size) {
        rows.push(fromLine(line));
        continue;
      }
      isStale = true;
      rows.push(toTrialRow(readStoredSync(resultFile, trialResultSchema) as TrialResult));
    }
    // Lines left over name trials whose result.json is gone.
    if (known !== undefined && known.size > 0) isStale = true;
  }
  if (indexed.size > 0) isStale = true;
  if (isStale) {
    const text = rows.map((row, i) => toLine(row, files[i] ?? { mtimeMs: 0, size: 0 })).join("");
    await writeFileAtomic(run.resultsIndex, text).catch(() => undefined);
  }
  return rows;
}

/**
 * Writes the run's index again from its result.json files, in one atomic rename: after
 * result.json files were rewritten in place (`lab regrade`), so that no reader meets a line
 * whose file changed under it.
 */
export async function rewriteTrialIndex(run: RunPaths): Promise<void> {
  const lines: string[] = [];
  for (const result of await readTrialResults(run)) {
    const file = await stat(trialPaths(run, result.taskId, result.trial).result);
    lines.push(toLine(toTrialRow(result), file));
  }
  await writeFileAtomic(run.resultsIndex, lines.join(""));
}
