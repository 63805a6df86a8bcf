import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import {
  formatLedger,
  LabError,
  parseLedger,
  type LedgerProvenance,
  type LedgerRecord,
  type TrialResult,
} from "../core/index.js";
import { readRowsFile, upstreamIssueFor } from "../datasets/index.js";
import { readRunRecord, readTrialResults, runPaths, writeFileAtomic } from "../store/index.js";
import { readProofFile, suiteLayout } from "../suite/index.js";
import { mergeLedgerSlice, type LedgerFamily } from "./ledger.js";

/** A published prediction family: its run here and the file of its official verdicts. */
export interface LedgerFamilySource {
  readonly name: string;
  readonly runId: string;
  /** `{"source", "resolved": [ids], "unresolved": [ids]}`. */
  readonly verdictsFile: string;
}

/** Where a slice's facts are, and where its lines go. */
export interface LedgerSliceOptions {
  /** The suite folder `lab gen` wrote (proof.json, dropped.json). */
  readonly suiteDir: string;
  /** The dataset file (.parquet, .jsonl, .json): every instance gets a line. */
  readonly datasetFile: string;
  readonly runsDir: string;
  readonly goldRun?: string | undefined;
  readonly noopRun?: string | undefined;
  readonly goldPredictionsRun?: string | undefined;
  readonly families: readonly LedgerFamilySource[];
  /** The instances the slice covers (default: every one proof.json or dropped.json names). */
  readonly slice?: readonly string[] | undefined;
  readonly provenance: LedgerProvenance;
  /** The ledger file: read as the previous lines, then replaced. */
  readonly out: string;
}

const rowIdSchema = z.object({ instance_id: z.string(), repo: z.string() });

const droppedFileSchema = z.object({
  dropped: z.array(
    z.object({
      instance_id: z.string(),
      category: z.enum([
        "environment",
        "network",
        "gold_fails",
        "passes_without_fix",
        "flaky",
        "timeout",
        "infrastructure",
        "no_environment",
        "repository",
        "out_of_scope",
        "invalid_row",
        "no_mirror",
        "known_drop",
      ]),
      reason: z.string(),
    }),
  ),
});

const officialSchema = z.object({
  source: z.string().default(""),
  resolved: z.array(z.string()),
  unresolved: z.array(z.string()).default([]),
});

async function readJsonFile<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): Promise<z.output<S>> {
  if (!existsSync(file))
    throw new LabError("DATASET_NOT_FOUND", `${what} ${file} does not exist.`, {
      hint: "Check the path given to `npm run ledger`.",
    });
  const parsed = schema.safeParse(JSON.parse(await readFile(file, "utf8")));
  if (!parsed.success)
    throw new LabError("DATASET_INVALID", `${what} ${file} is malformed: ${parsed.error.message}`, {
      hint: "See data/swebench/README.md (The ledger) for the files it reads.",
    });
  return parsed.data;
}

/** A run's first trial of each task; the run must exist. */
async function readRunVerdicts(
  runsDir: string,
  runId: string | undefined,
): Promise<Map<string, TrialResult> | undefined> {
  if (runId === undefined) return undefined;
  const paths = runPaths(runsDir, runId);
  if (!existsSync(paths.runJson))
    throw new LabError("RUN_NOT_FOUND", `No run ${runId} in ${runsDir}.`, {
      hint: "Give --runs-dir the folder `lab run` wrote into, and the run ids it printed.",
    });
  await readRunRecord(paths);
  const results = new Map<string, TrialResult>();
  for (const result of await readTrialResults(paths))
    if (!results.has(result.taskId)) results.set(result.taskId, result);
  return results;
}

/** The ledger's lines now in `file`; none when it does not exist yet. */
export async function readLedgerFile(file: string): Promise<LedgerRecord[]> {
  return existsSync(file) ? parseLedger(await readFile(file, "utf8"), file) : [];
}

/**
 * Writes a slice into a ledger file: the slice's lines replace theirs, every other line stays,
 * and instances with no line get an unproven one. Returns the records written.
 */
export async function writeLedgerSlice(options: LedgerSliceOptions): Promise<LedgerRecord[]> {
  const rows = await readRowsFile(options.datasetFile);
  const instances = rows.map((row, index) => {
    const parsed = rowIdSchema.safeParse(row);
    if (!parsed.success)
      throw new LabError(
        "DATASET_INVALID",
        `Row ${String(index + 1)} of ${options.datasetFile} has no instance_id and repo.`,
        { hint: "Give --dataset a SWE-bench dataset file." },
      );
    return { instance: parsed.data.instance_id, repo: parsed.data.repo };
  });
  const proofs = (await readProofFile(options.suiteDir))?.instances ?? {};
  const droppedFile = suiteLayout(options.suiteDir).droppedFile;
  const dropped = existsSync(droppedFile)
    ? (await readJsonFile(droppedFile, droppedFileSchema, "dropped.json")).dropped
    : [];
  const families: LedgerFamily[] = [];
  for (const family of options.families) {
    const official = await readJsonFile(family.verdictsFile, officialSchema, "The verdicts file");
    families.push({
      name: family.name,
      results: (await readRunVerdicts(options.runsDir, family.runId)) ?? new Map(),
      resolved: new Set(official.resolved),
      unresolved: new Set(official.unresolved),
    });
  }
  const records = mergeLedgerSlice({
    instances,
    previous: await readLedgerFile(options.out),
    proofs,
    dropped,
    slice: options.slice,
    gold: await readRunVerdicts(options.runsDir, options.goldRun),
    noop: await readRunVerdicts(options.runsDir, options.noopRun),
    goldPredictions: await readRunVerdicts(options.runsDir, options.goldPredictionsRun),
    families,
    provenance: options.provenance,
    upstreamIssueOf: upstreamIssueFor,
  });
  await writeFileAtomic(options.out, formatLedger(records));
  return records;
}

/**
 * The machine facts a slice's start left (`uptime`, then `nproc`, then `date -u +%FT%TZ`, one
 * a line, as the proof job writes logs/uptime-start.txt): cores, 1-minute load, start time.
 */
export function parseStartFacts(text: string): {
  cores: number;
  loadAverage: number;
  date: string;
} {
  const load = /load average:\s*([\d.]+)/.exec(text)?.[1];
  const cores = /^\s*(\d+)\s*$/m.exec(text)?.[1];
  const date = /^\s*(\d{4}-\d\d-\d\dT[\d:.]+Z)\s*$/m.exec(text)?.[1];
  if (load === undefined || cores === undefined || date === undefined)
    throw new LabError(
      "DATASET_INVALID",
      `The start facts name no ${load === undefined ? "load average" : cores === undefined ? "core count" : "start time"}.`,
      { hint: "Write them with: uptime > F; nproc >> F; date -u +%FT%TZ >> F" },
    );
  return { cores: Number(cores), loadAverage: Number(load), date };
}
