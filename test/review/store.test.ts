import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  appendReview,
  readReviews,
  restrictToValidTasks,
  REVIEW_SCHEMA_VERSION,
  reviewsFile,
  type Review,
} from "../../src/review/index.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
let folders = 0;

/** A fresh suite folder (only reviews.jsonl matters here). */
function suiteDir(): string {
  const dir = path.join(root, `suite-${String(++folders)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function review(task: string, reviewer: string, answers: Partial<Review> = {}): Review {
  return {
    schemaVersion: REVIEW_SCHEMA_VERSION,
    task,
    reviewer,
    clarity: "clear",
    tests: "adequate",
    alternatives: 0,
    difficulty: 3,
    notes: "",
    reviewedAt: "2024-01-01T00:00:00.000Z",
    suiteVersion: "1",
    ...answers,
  };
}

describe("the reviews file", () => {
  it("is absent until the first review, then holds one JSON object per line", async () => {
    const dir = suiteDir();
    expect(await readReviews(dir)).toEqual([]);
    await appendReview(dir, review("a", "alice"));
    await appendReview(dir, review("a", "bob", { notes: "two\nlines" }));
    const lines = readFileSync(reviewsFile(dir), "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[1] ?? "")).toEqual(review("a", "bob", { notes: "two\nlines" }));
    expect((await readReviews(dir)).map((r) => r.reviewer)).toEqual(["alice", "bob"]);
  });

  it("keeps every review when many are appended at once", async () => {
    const dir = suiteDir();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => appendReview(dir, review(`t${String(i)}`, "alice"))),
    );
    const reviews = await readReviews(dir);
    expect(reviews.map((r) => r.task).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `t${String(i)}`).sort(),
    );
  });

  it("starts a new line after a line cut short, and names that line when read", async () => {
    const dir = suiteDir();
    writeFileSync(
      reviewsFile(dir),
      `${JSON.stringify(review("a", "alice"))}\n{"schemaVersion":1,"ta`,
    );
    await appendReview(dir, review("b", "alice"));
    await expect(readReviews(dir)).rejects.toThrow(`${reviewsFile(dir)}:2 is not a JSON object: `);
    const lines = readFileSync(reviewsFile(dir), "utf8").split("\n");
    expect((JSON.parse(lines[2] ?? "") as Review).task).toBe("b");
  });

  it("refuses a review of another schema version, or with a value out of range", async () => {
    const dir = suiteDir();
    writeFileSync(
      reviewsFile(dir),
      `${JSON.stringify({ ...review("a", "alice"), schemaVersion: 2 })}\n`,
    );
    await expect(readReviews(dir)).rejects.toMatchObject({
      code: "STORE_SCHEMA_MISMATCH",
      message: `${reviewsFile(dir)}:1 has schemaVersion 2; this lab reads version 1.`,
    });
    writeFileSync(
      reviewsFile(dir),
      `\n${JSON.stringify({ ...review("a", "alice"), clarity: "murky", difficulty: 9 })}\n`,
    );
    await expect(readReviews(dir)).rejects.toMatchObject({ code: "STORE_CORRUPT" });
    await expect(readReviews(dir)).rejects.toThrow(
      /:2 is not a valid review: clarity: .*difficulty: /,
    );
  });
});

describe("--valid-only's selection", () => {
  const suite = (dir: string) => ({ name: "demo", dir, taskIds: ["a", "b", "c", "d"] });

  it("fails when the suite has no reviews, saying how to make some", async () => {
    const dir = suiteDir();
    await expect(restrictToValidTasks(suite(dir), undefined)).rejects.toMatchObject({
      code: "TASK_NOT_FOUND",
      message: `--valid-only needs reviews, and suite "demo" has none (no reviews in ${reviewsFile(dir)}).`,
      hint: "Review its tasks with `lab review --suite demo`, or run without --valid-only.",
    });
  });

  it("keeps the tasks every reviewer's latest review calls valid, and says what it left out", async () => {
    const dir = suiteDir();
    for (const entry of [
      review("a", "alice"),
      review("a", "bob"),
      review("b", "alice"),
      review("b", "bob", { tests: "flaky" }),
      review("c", "alice", { clarity: "ambiguous" }),
      review("c", "alice"), // supersedes alice's first review of c
    ])
      await appendReview(dir, entry);
    const selection = await restrictToValidTasks(suite(dir), undefined);
    expect(selection.taskIds).toEqual(["a", "c"]);
    expect(selection.summary).toBe(
      "--valid-only: running the 2 of 4 task(s) reviewed as valid; left out 2: 1 flagged (b), 1 not reviewed (d).",
    );
    // Within --tasks, in their order; an unknown id passes through for the run to report.
    const within = await restrictToValidTasks(suite(dir), ["c", "b", "zz"]);
    expect(within.taskIds).toEqual(["c", "zz"]);
    expect(within.summary).toBe(
      "--valid-only: running the 1 of 2 task(s) reviewed as valid; left out 1: 1 flagged (b).",
    );
    await expect(restrictToValidTasks(suite(dir), ["b", "d"])).rejects.toThrow(
      '--valid-only leaves nothing to run: none of the 2 task(s) of suite "demo" asked for is reviewed as valid (1 flagged, 1 not reviewed).',
    );
  });
});
