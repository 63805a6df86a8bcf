import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../../core/index.js";
import { validateRows, type RejectedRow, type SwebenchRow } from "./row.js";

/** The SWE-bench datasets lab knows by name, as published on Hugging Face. */
export const DATASET_NAMES = {
  lite: "SWE-bench/SWE-bench_Lite",
  verified: "SWE-bench/SWE-bench_Verified",
  full: "SWE-bench/SWE-bench",
  multilingual: "SWE-bench/SWE-bench_Multilingual",
} as const;

/** A dataset name given to --dataset-name. */
export type DatasetName = keyof typeof DATASET_NAMES;

/** Where rows come from. */
export interface DatasetSource {
  /** A local .json (list or object of rows), .jsonl or .parquet file. */
  readonly file?: string | undefined;
  /** Which published dataset, when no file is given. */
  readonly name: DatasetName;
  readonly split: string;
  /** The datasets-server endpoint (LAB_HF_ENDPOINT); tests point it at loopback. */
  readonly endpoint: string;
  /** Page size for the rows API (the server's maximum is 100). */
  readonly pageSize?: number;
  readonly signal?: AbortSignal | undefined;
}

/** Rows and rejected rows of a dataset, with where they came from. */
export interface LoadedDataset {
  readonly source: string;
  readonly rows: SwebenchRow[];
  readonly rejected: RejectedRow[];
}

/** Loads and validates a SWE-bench dataset from a file or the Hugging Face datasets-server. */
export async function loadDataset(source: DatasetSource): Promise<LoadedDataset> {
  const raw = source.file !== undefined ? await readRowsFile(source.file) : await fetchRows(source);
  const { rows, rejected } = validateRows(raw);
  return {
    source: source.file ?? `${DATASET_NAMES[source.name]} (${source.split})`,
    rows,
    rejected,
  };
}

/** Reads raw rows from a local file, by its extension. */
export async function readRowsFile(file: string): Promise<unknown[]> {
  if (!existsSync(file)) {
    throw new LabError("DATASET_NOT_FOUND", `Dataset file ${file} does not exist.`, {
      hint: "Give --dataset a .json, .jsonl or .parquet file of SWE-bench rows.",
    });
  }
  const extension = path.extname(file).toLowerCase();
  if (extension === ".parquet") return readParquet(file);
  const text = await readFile(file, "utf8");
  if (extension === ".jsonl" || extension === ".ndjson") {
    return text
      .split("\n")
      .map((line, index) => ({ line: line.trim(), index }))
      .filter(({ line }) => line !== "")
      .map(({ line, index }) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (error) {
          throw new LabError(
            "DATASET_INVALID",
            `${file} line ${String(index + 1)} is not valid JSON: ${(error as Error).message}.`,
            { hint: "Each line of a .jsonl file holds one row." },
          );
        }
      });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LabError(
      "DATASET_INVALID",
      `${file} is not valid JSON: ${(error as Error).message}.`,
      { hint: "Give a JSON list of rows, a .jsonl file or a .parquet file." },
    );
  }
  if (Array.isArray(parsed)) return parsed as unknown[];
  if (typeof parsed === "object" && parsed !== null) {
    const rows: unknown = (parsed as { rows?: unknown }).rows;
    if (Array.isArray(rows))
      return (rows as unknown[]).map((entry): unknown => (entry as { row?: unknown }).row ?? entry);
    return Object.values(parsed as Record<string, unknown>);
  }
  throw new LabError("DATASET_INVALID", `${file} holds neither a list nor an object of rows.`);
}

async function readParquet(file: string): Promise<unknown[]> {
  const { asyncBufferFromFile, parquetReadObjects } = await import("hyparquet");
  try {
    return (await parquetReadObjects({ file: await asyncBufferFromFile(file) })) as unknown[];
  } catch (error) {
    throw new LabError(
      "DATASET_INVALID",
      `${file} could not be read as parquet: ${(error as Error).message}.`,
      { cause: error },
    );
  }
}

/** Pages through the datasets-server rows API: /rows?dataset=&config=default&split=&offset=&length=. */
export async function fetchRows(source: DatasetSource): Promise<unknown[]> {
  const pageSize = source.pageSize ?? 100;
  const dataset = DATASET_NAMES[source.name];
  const rows: unknown[] = [];
  let total = Number.POSITIVE_INFINITY;
  for (let offset = 0; offset < total; offset += pageSize) {
    const url = new URL("/rows", source.endpoint);
    url.search = new URLSearchParams({
      dataset,
      config: "default",
      split: source.split,
      offset: String(offset),
      length: String(pageSize),
    }).toString();
    const page = await fetchPage(url, source.signal);
    total = page.num_rows_total;
    rows.push(...page.rows.map((entry) => entry.row));
    if (page.rows.length === 0) break;
  }
  return rows;
}

async function fetchPage(
  url: URL,
  signal: AbortSignal | undefined,
): Promise<{ rows: { row: unknown }[]; num_rows_total: number }> {
  let lastError = "";
  for (let attempt = 1; attempt <= 4; attempt++) {
    try {
      const response = await fetch(url, {
        signal: signal ?? AbortSignal.timeout(60_000),
        headers: { accept: "application/json" },
      });
      if (response.status === 429 || response.status >= 500) {
        lastError = `HTTP ${String(response.status)}`;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
        continue;
      }
      if (!response.ok)
        throw new LabError(
          "DATASET_NOT_FOUND",
          `${url.href} answered HTTP ${String(response.status)}.`,
          { hint: "Check --dataset-name and --split, or give a local file with --dataset." },
        );
      const body = (await response.json()) as { rows?: unknown; num_rows_total?: unknown };
      if (!Array.isArray(body.rows) || typeof body.num_rows_total !== "number") {
        throw new LabError(
          "DATASET_INVALID",
          `${url.href} did not answer with rows and num_rows_total.`,
        );
      }
      return { rows: body.rows as { row: unknown }[], num_rows_total: body.num_rows_total };
    } catch (error) {
      if (error instanceof LabError) throw error;
      lastError = (error as Error).message;
      if (signal?.aborted === true) break;
    }
  }
  throw new LabError("DATASET_NOT_FOUND", `Could not load ${url.href}: ${lastError}.`, {
    hint: "Without access to Hugging Face, download the dataset elsewhere and pass it with --dataset FILE (.json, .jsonl or .parquet).",
  });
}
