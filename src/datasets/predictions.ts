import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { LabError, type StatedChanges } from "../core/index.js";

/** One prediction in SWE-bench's format. */
export interface Prediction {
  readonly instance_id: string;
  readonly model_name_or_path: string;
  /** The patch; null or "" counts as an empty patch. */
  readonly model_patch: string | null;
}

/** A predictions file, read and checked as upstream does (only instance_id is required). */
export interface PredictionsFile {
  readonly file: string;
  readonly model: string;
  readonly byId: ReadonlyMap<string, Prediction>;
  /** Hash of the file's content, so a changed file is not resumed into an old run. */
  readonly fingerprint: string;
}

/** Reads a SWE-bench predictions file: .json (a list, or an object whose values are predictions) or .jsonl. */
export function readPredictions(file: string): PredictionsFile {
  if (!existsSync(file))
    throw new LabError("USAGE", `Predictions file ${file} does not exist.`, {
      hint: "Pass --predictions FILE (.json or .jsonl in SWE-bench's format).",
    });
  const text = readFileSync(file, "utf8");
  const isJsonl = path.extname(file).toLowerCase() === ".jsonl";
  const entries = isJsonl ? parseJsonLines(file, text) : parseJsonList(file, text);
  const byId = new Map<string, Prediction>();
  entries.forEach(({ entry, line }) => {
    const record = (typeof entry === "object" && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    if (typeof record.instance_id !== "string" || record.instance_id === "") {
      throw new LabError(
        "CONFIG_INVALID",
        `Predictions file ${file}, line ${String(line)}: the prediction has no instance_id.`,
        { hint: "Every prediction needs instance_id, model_name_or_path and model_patch." },
      );
    }
    if (byId.has(record.instance_id))
      throw new LabError(
        "CONFIG_INVALID",
        `Predictions file ${file}, line ${String(line)}: a second prediction for ${record.instance_id}.`,
      );
    byId.set(record.instance_id, {
      instance_id: record.instance_id,
      model_name_or_path:
        typeof record.model_name_or_path === "string" ? record.model_name_or_path : "unknown",
      model_patch: typeof record.model_patch === "string" ? record.model_patch : null,
    });
  });
  if (byId.size === 0)
    throw new LabError("CONFIG_INVALID", `Predictions file ${file} holds no predictions.`);
  const model = [...byId.values()][0]?.model_name_or_path ?? "unknown";
  return {
    file,
    model,
    byId,
    fingerprint: createHash("sha256").update(text).digest("hex").slice(0, 12),
  };
}

const FORMAT_HINT =
  "Use a JSON list (.json) or one JSON object per line (.jsonl) of {instance_id, model_name_or_path, model_patch}.";

/** Each non-blank line of a .jsonl file as one prediction; an error names the line. */
function parseJsonLines(file: string, text: string): { entry: unknown; line: number }[] {
  const entries: { entry: unknown; line: number }[] = [];
  text.split("\n").forEach((content, index) => {
    if (content.trim() === "") return;
    try {
      entries.push({ entry: JSON.parse(content) as unknown, line: index + 1 });
    } catch (error) {
      throw new LabError(
        "CONFIG_INVALID",
        `Predictions file ${file}, line ${String(index + 1)} is not valid JSON: ${plainJsonError(error)}.`,
        { hint: FORMAT_HINT },
      );
    }
  });
  return entries;
}

/**
 * A .json file: a list of predictions, or an object whose values are predictions. An error
 * names the line (V8 gives a character offset, or nothing); each entry's line is where it starts.
 */
function parseJsonList(file: string, text: string): { entry: unknown; line: number }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    const offset = /at position (\d+)/.exec((error as Error).message)?.[1];
    const line = offset === undefined ? null : text.slice(0, Number(offset)).split("\n").length;
    const firstLine = text.split("\n").find((content) => content.trim() !== "") ?? "";
    const looksJsonl = (() => {
      try {
        return typeof JSON.parse(firstLine) === "object" && text.trim().includes("\n");
      } catch {
        return false;
      }
    })();
    throw new LabError(
      "CONFIG_INVALID",
      `Predictions file ${file}${line === null ? "" : `, line ${String(line)}`} is not valid JSON: ${plainJsonError(error)}.`,
      {
        hint: looksJsonl
          ? "It looks like JSON Lines (one object per line): name it .jsonl."
          : FORMAT_HINT,
      },
    );
  }
  const values = Array.isArray(parsed)
    ? (parsed as unknown[])
    : typeof parsed === "object" && parsed !== null
      ? Object.values(parsed)
      : [];
  const starts = entryStartLines(text, values.length);
  return values.map((entry: unknown, index) => ({ entry, line: starts[index] ?? 1 }));
}

/** V8's message without the text it quotes or the offset (the line is named instead). */
function plainJsonError(error: unknown): string {
  return (error as Error).message
    .replace(/, ".*" is not valid JSON$/s, "")
    .replace(/ in JSON at position \d+( \(line \d+ column \d+\))?$/, "");
}

/**
 * The line on which each top-level entry of a JSON list or object starts: a scan that skips
 * strings and counts depth, so messages can point at an entry the way an editor would.
 */
function entryStartLines(text: string, count: number): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  let expectEntry = false;
  for (let i = 0; i < text.length && lines.length < count; i++) {
    const char = text[i];
    if (char === "\n") line++;
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === "{" || char === "[") {
      if (depth === 1 && expectEntry) {
        lines.push(line);
        expectEntry = false;
      }
      depth++;
      if (depth === 1) expectEntry = true;
    } else if (char === "}" || char === "]") {
      depth--;
    } else if (char === "," && depth === 1) {
      expectEntry = true;
    } else if (char === '"') {
      inString = true;
    }
  }
  return lines;
}

/**
 * Predictions made elsewhere, as a run's change source: each trial hands the grader the
 * predicted patch as it is, so it is applied with the grader's fallbacks exactly as upstream
 * applies a model_patch. No work tree is made for it and nothing runs in a sandbox: the change
 * exists already. `origin` is the file as the user named it, for messages.
 */
export function predictionChanges(predictions: PredictionsFile, origin: string): StatedChanges {
  return {
    kind: "stated",
    name: "predictions",
    description: `Grades ${predictions.file} (${predictions.model})`,
    version: predictions.model,
    fingerprint: predictions.fingerprint,
    origin,
    taskIds: [...predictions.byId.keys()],
    patchFor: (taskId) => predictions.byId.get(taskId)?.model_patch ?? "",
  };
}
