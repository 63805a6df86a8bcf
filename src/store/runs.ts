import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import {
  describeSchemaError,
  LabError,
  SCHEMA_VERSION,
  type RunRecord,
  type TrialResult,
} from "../core/index.js";
import { runRecordSchema, trialResultSchema } from "./schemas.js";

/** A run folder's paths. */
export interface RunPaths {
  readonly dir: string;
  readonly runJson: string;
  readonly trialsDir: string;
  /** Task id to the task's public facts, so a report needs only the store. */
  readonly tasksJson: string;
  /** One line per finished trial: a cache of result.json for fast reports (see results-index.ts). */
  readonly resultsIndex: string;
}

/** Paths of one trial's files. */
export interface TrialPaths {
  readonly dir: string;
  readonly result: string;
  readonly toolLog: string;
  readonly patch: string;
  readonly graderLog: string;
  readonly artifactsDir: string;
}

/** Run ids become folder names; keep them to safe characters. */
export function checkRunId(runId: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(runId)) {
    throw new LabError(
      "USAGE",
      `--run-id expects letters, digits, '.', '_' or '-' (at most 128); got "${runId}".`,
    );
  }
  return runId;
}

/** Where a run lives. */
export function runPaths(runsDir: string, runId: string): RunPaths {
  const dir = path.join(runsDir, checkRunId(runId));
  return {
    dir,
    runJson: path.join(dir, "run.json"),
    trialsDir: path.join(dir, "trials"),
    tasksJson: path.join(dir, "tasks.json"),
    resultsIndex: path.join(dir, "results.jsonl"),
  };
}

/** Where a trial lives. */
export function trialPaths(run: RunPaths, taskId: string, trial: number): TrialPaths {
  const dir = path.join(run.trialsDir, taskId, String(trial));
  return {
    dir,
    result: path.join(dir, "result.json"),
    toolLog: path.join(dir, "tool.log"),
    patch: path.join(dir, "patch.diff"),
    graderLog: path.join(dir, "grader.log"),
    artifactsDir: path.join(dir, "artifacts"),
  };
}

function notJson(file: string, error: unknown): LabError {
  return new LabError("STORE_CORRUPT", `${file} is not valid JSON: ${(error as Error).message}.`, {
    hint: "Delete that trial's folder and rerun the same command to redo it.",
    cause: error,
  });
}

/** Checks a stored file's text: JSON, its schemaVersion, then its shape; errors name the file. */
function parseStored<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw notJson(file, error);
  }
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== SCHEMA_VERSION) {
    throw new LabError(
      "STORE_SCHEMA_MISMATCH",
      `${file} has schemaVersion ${JSON.stringify(version)}; this lab reads version ${String(SCHEMA_VERSION)}.`,
      {
        hint: "Use the lab version that wrote it, or start a new run with --run-id.",
      },
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new LabError(
      "STORE_CORRUPT",
      `${file} is malformed: ${describeSchemaError(parsed.error)}.`,
      {
        hint: "Delete that trial's folder and rerun the same command to redo it.",
      },
    );
  }
  return parsed.data;
}

/** Reads a stored JSON file, checking its schemaVersion and shape; errors name the file. */
export async function readStored<S extends z.ZodType>(
  file: string,
  schema: S,
): Promise<z.output<S>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw notJson(file, error);
  }
  return parseStored(file, text, schema);
}

/**
 * readStored without the event loop, for reading thousands of small files in a row: each
 * async read costs four thread-pool round trips, several times the read itself.
 */
export function readStoredSync<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw notJson(file, error);
  }
  return parseStored(file, text, schema);
}

/** Reads run.json. */
export async function readRunRecord(run: RunPaths): Promise<RunRecord> {
  return readStored(run.runJson, runRecordSchema);
}

/** Reads one trial's result, or null when the trial has not finished. */
export async function readTrialResult(paths: TrialPaths): Promise<TrialResult | null> {
  if (!existsSync(paths.result)) return null;
  return (await readStored(paths.result, trialResultSchema)) as TrialResult;
}

/** Every finished trial of a run. */
export async function readTrialResults(run: RunPaths): Promise<TrialResult[]> {
  if (!existsSync(run.trialsDir)) return [];
  const results: TrialResult[] = [];
  for (const taskId of readdirSync(run.trialsDir).sort()) {
    const taskDir = path.join(run.trialsDir, taskId);
    for (const trial of readdirSync(taskDir)) {
      if (!/^\d+$/.test(trial)) continue;
      const result = await readTrialResult(trialPaths(run, taskId, Number(trial)));
      if (result !== null) results.push(result);
    }
  }
  return results.sort((a, b) => a.taskId.localeCompare(b.taskId) || a.trial - b.trial);
}

/** Every run folder with a run.json under runsDir. */
export async function listRuns(runsDir: string): Promise<{ paths: RunPaths; record: RunRecord }[]> {
  if (!existsSync(runsDir)) return [];
  const runs: { paths: RunPaths; record: RunRecord }[] = [];
  for (const entry of readdirSync(runsDir).sort()) {
    if (entry.startsWith(".")) continue;
    const paths = runPaths(runsDir, entry);
    if (!existsSync(paths.runJson)) continue;
    runs.push({ paths, record: await readRunRecord(paths) });
  }
  return runs;
}
