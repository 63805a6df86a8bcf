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
  let entries: unknown[];
  try {
    if (path.extname(file).toLowerCase() === ".jsonl") {
      entries = text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as unknown);
    } else {
      const parsed = JSON.parse(text) as unknown;
      entries = Array.isArray(parsed)
        ? parsed
        : typeof parsed === "object" && parsed !== null
          ? Object.values(parsed)
          : [];
    }
  } catch (error) {
    throw new LabError(
      "CONFIG_INVALID",
      `Predictions file ${file} is not valid JSON: ${(error as Error).message}.`,
      { hint: "Use a JSON list or JSONL of {instance_id, model_name_or_path, model_patch}." },
    );
  }
  const byId = new Map<string, Prediction>();
  entries.forEach((entry, index) => {
    const record = (typeof entry === "object" && entry !== null ? entry : {}) as Record<
      string,
      unknown
    >;
    if (typeof record.instance_id !== "string" || record.instance_id === "") {
      throw new LabError(
        "CONFIG_INVALID",
        `Predictions file ${file}: entry ${String(index + 1)} has no instance_id.`,
        { hint: "Every prediction needs instance_id, model_name_or_path and model_patch." },
      );
    }
    if (byId.has(record.instance_id))
      throw new LabError(
        "CONFIG_INVALID",
        `Predictions file ${file} has two predictions for ${record.instance_id}.`,
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
