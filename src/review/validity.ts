import { LabError } from "../core/index.js";
import type { Review } from "./schema.js";
import { currentReviews, readReviews, reviewsFile } from "./store.js";

/** Whether one review calls its task fit to measure tools with: clear and adequate. */
export function isValidReview(review: Pick<Review, "clarity" | "tests">): boolean {
  return review.clarity === "clear" && review.tests === "adequate";
}

/** What the reviews say of one task. */
export interface TaskVerdict {
  /** `unreviewed` (no review), `valid` (every current review is clear and adequate) or `flagged`. */
  readonly status: "unreviewed" | "valid" | "flagged";
  /** Each problem a reviewer saw, e.g. `bob: clarity ambiguous`; empty unless flagged. */
  readonly reasons: readonly string[];
}

/**
 * The verdict from a task's current reviews (the latest per reviewer). A task is valid only when
 * every reviewer says clear and adequate: one reviewer's doubt is enough to leave it out, since
 * a wrongly kept task misjudges every tool while a wrongly dropped one only shrinks the suite.
 */
export function judgeTask(current: readonly Review[]): TaskVerdict {
  if (current.length === 0) return { status: "unreviewed", reasons: [] };
  const reasons: string[] = [];
  for (const review of current) {
    const problems: string[] = [];
    if (review.clarity !== "clear") problems.push(`clarity ${review.clarity}`);
    if (review.tests !== "adequate") problems.push(`tests ${review.tests}`);
    if (problems.length > 0) reasons.push(`${review.reviewer}: ${problems.join(", ")}`);
  }
  return { status: reasons.length === 0 ? "valid" : "flagged", reasons };
}

/** Tasks of a selection split by their reviews. */
export interface ValidSelection {
  /** Tasks every current review calls clear and adequate, in the selection's order. */
  readonly valid: readonly string[];
  /** Tasks some reviewer flagged. */
  readonly flagged: readonly string[];
  /** Tasks nobody reviewed. */
  readonly unreviewed: readonly string[];
}

/** Splits `taskIds` into valid, flagged and unreviewed tasks by their current reviews. */
export function selectValidTasks(
  taskIds: readonly string[],
  reviews: readonly Review[],
): ValidSelection {
  const current = currentReviews(reviews);
  const valid: string[] = [];
  const flagged: string[] = [];
  const unreviewed: string[] = [];
  for (const id of taskIds) {
    const { status } = judgeTask(current.get(id) ?? []);
    (status === "valid" ? valid : status === "flagged" ? flagged : unreviewed).push(id);
  }
  return { valid, flagged, unreviewed };
}

/** The tasks `lab run --valid-only` runs, and the line that says what was left out. */
export interface ValidOnlyRun {
  /** The tasks to run, in the requested order. */
  readonly taskIds: readonly string[];
  /** One line for the user: how many tasks run, how many were left out and why. */
  readonly summary: string;
}

function someIds(ids: readonly string[]): string {
  return ids.length <= 10 ? ids.join(", ") : `${ids.slice(0, 10).join(", ")}, ...`;
}

/**
 * Restricts a run to the tasks reviewed as valid, out of `requested` (default: the whole suite).
 * Ids that are not tasks of the suite pass through, so the run reports them as unknown.
 * Fails when the suite has no reviews, or when no requested task is valid.
 */
export async function restrictToValidTasks(
  suite: { readonly name: string; readonly dir: string; readonly taskIds: readonly string[] },
  requested: readonly string[] | undefined,
): Promise<ValidOnlyRun> {
  const reviews = await readReviews(suite.dir);
  if (reviews.length === 0) {
    throw new LabError(
      "TASK_NOT_FOUND",
      `--valid-only needs reviews, and suite "${suite.name}" has none (no reviews in ${reviewsFile(suite.dir)}).`,
      {
        hint: `Review its tasks with \`lab review --suite ${suite.name}\`, or run without --valid-only.`,
      },
    );
  }
  const ids = requested ?? suite.taskIds;
  const known = ids.filter((id) => suite.taskIds.includes(id));
  const { valid, flagged, unreviewed } = selectValidTasks(known, reviews);
  if (valid.length === 0) {
    throw new LabError(
      "TASK_NOT_FOUND",
      `--valid-only leaves nothing to run: none of the ${String(known.length)} task(s) of suite "${suite.name}" asked for is reviewed as valid (${String(flagged.length)} flagged, ${String(unreviewed.length)} not reviewed).`,
      {
        hint: `\`lab calibrate --suite ${suite.name}\` shows why tasks are flagged; \`lab review --suite ${suite.name}\` reviews the rest.`,
      },
    );
  }
  const validSet = new Set(valid);
  const reasons = [
    flagged.length > 0 ? `${String(flagged.length)} flagged (${someIds(flagged)})` : "",
    unreviewed.length > 0
      ? `${String(unreviewed.length)} not reviewed (${someIds(unreviewed)})`
      : "",
  ].filter((reason) => reason !== "");
  const left = flagged.length + unreviewed.length;
  return {
    taskIds: ids.filter((id) => validSet.has(id) || !suite.taskIds.includes(id)),
    summary: `--valid-only: running the ${String(valid.length)} of ${String(known.length)} task(s) reviewed as valid; ${left === 0 ? "none left out" : `left out ${String(left)}: ${reasons.join(", ")}`}.`,
  };
}
