import { existsSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { describeSchemaError, LabError } from "../core/index.js";
import { withLock } from "../store/index.js";
import { suiteLayout } from "../suite/index.js";
import { REVIEW_SCHEMA_VERSION, reviewSchema, type Review } from "./schema.js";

/** The reviews of a suite: `evals/<suite>/reviews.jsonl`, beside its tasks. */
export function reviewsFile(suiteDir: string): string {
  return suiteLayout(suiteDir).reviewsFile;
}

/**
 * Every review of a suite, in the order recorded (oldest first); none when the file is absent.
 * A line that is not a review fails with its file and line number rather than being skipped:
 * a silently dropped review would change which tasks count as valid.
 */
export async function readReviews(suiteDir: string): Promise<Review[]> {
  const file = reviewsFile(suiteDir);
  if (!existsSync(file)) return [];
  const lines = (await readFile(file, "utf8")).split("\n");
  const reviews: Review[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const where = `${file}:${String(index + 1)}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw new LabError(
        "STORE_CORRUPT",
        `${where} is not a JSON object: ${(error as Error).message}.`,
        {
          hint: "Fix or delete that line; every other line is one review.",
          cause: error,
        },
      );
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new LabError("STORE_CORRUPT", `${where} is not a JSON object.`, {
        hint: "Fix or delete that line; every other line is one review.",
      });
    }
    const version = (raw as { schemaVersion?: unknown }).schemaVersion;
    if (version !== REVIEW_SCHEMA_VERSION) {
      throw new LabError(
        "STORE_SCHEMA_MISMATCH",
        `${where} has schemaVersion ${version === undefined ? "(none)" : JSON.stringify(version)}; this lab reads version ${String(REVIEW_SCHEMA_VERSION)}.`,
        { hint: "Use the lab version that wrote it, or fix that line." },
      );
    }
    const parsed = reviewSchema.safeParse(raw);
    if (!parsed.success) {
      throw new LabError(
        "STORE_CORRUPT",
        `${where} is not a valid review: ${describeSchemaError(parsed.error)}.`,
        { hint: "Fix or delete that line; `lab review --help` lists the allowed values." },
      );
    }
    reviews.push(parsed.data);
  }
  return reviews;
}

/**
 * Appends one review as one line. A lock serializes concurrent reviewers of one suite, and the
 * line starts on a fresh line even if an earlier writer died mid-line.
 */
export async function appendReview(
  suiteDir: string,
  review: Review,
  signal?: AbortSignal,
): Promise<void> {
  const file = reviewsFile(suiteDir);
  const line = `${JSON.stringify(reviewSchema.parse(review))}\n`;
  try {
    await withLock(
      file,
      async () => {
        const previous = existsSync(file) ? await readFile(file, "utf8") : "";
        await appendFile(file, previous === "" || previous.endsWith("\n") ? line : `\n${line}`);
      },
      { signal },
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The built-in suites live in lab's install folder, which may be read-only.
    if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
      throw new LabError(
        "USAGE",
        `Cannot write reviews beside the suite: ${file} is not writable (${code}).`,
        {
          hint: `Copy the suite into a folder of yours (cp -r ${suiteDir} evals/) and review the copy, with --evals-dir if it is not ./evals.`,
          cause: error,
        },
      );
    }
    throw error;
  }
}

/**
 * The reviews that count, by task: each reviewer's latest review of the task (file order, not
 * timestamps, decides "latest", so a skewed clock cannot reorder them), reviewers sorted by name.
 */
export function currentReviews(reviews: readonly Review[]): Map<string, Review[]> {
  const latest = new Map<string, Map<string, Review>>();
  for (const review of reviews) {
    const byReviewer = latest.get(review.task) ?? new Map<string, Review>();
    byReviewer.set(review.reviewer, review);
    latest.set(review.task, byReviewer);
  }
  return new Map(
    [...latest].map(([task, byReviewer]) => [
      task,
      [...byReviewer.values()].sort((a, b) => compareText(a.reviewer, b.reviewer)),
    ]),
  );
}

/** Orders strings by code unit, the same on every machine (unlike localeCompare). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
