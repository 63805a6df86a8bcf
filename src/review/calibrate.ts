import { wilsonInterval } from "../report/index.js";
import { cohenKappa, describeKappa, type Kappa } from "./kappa.js";
import { MAX_DIFFICULTY, type Review } from "./schema.js";
import { compareText, currentReviews } from "./store.js";
import { isValidReview, judgeTask } from "./validity.js";

/** A flagged task and why. */
export interface FlaggedTask {
  /** The task's id. */
  readonly task: string;
  /** Each reviewer's problems, e.g. `bob: clarity ambiguous, tests weak`. */
  readonly reasons: readonly string[];
  /** The notes of the reviewers who flagged it, `reviewer: text`. */
  readonly notes: readonly string[];
}

/** Agreement of one pair of reviewers over the tasks both reviewed. */
export interface ReviewerAgreement {
  /** The two reviewers, sorted. */
  readonly reviewers: readonly [string, string];
  /** Tasks both reviewed. */
  readonly tasks: number;
  /** Cohen's kappa on clarity (clear, ambiguous, insufficient). */
  readonly clarity: Kappa;
  /** Cohen's kappa on test adequacy (adequate, weak, flaky). */
  readonly tests: Kappa;
  /** Cohen's kappa on validity (valid or not). */
  readonly validity: Kappa;
  /** Landis and Koch's word for the validity kappa. */
  readonly validityInWords: string;
}

/** What `lab calibrate` reports: the suite as its reviewers see it. */
export interface Calibration {
  /** The suite's name. */
  readonly suite: string;
  /** Tasks in the suite. */
  readonly tasks: number;
  /** Suite tasks with at least one review. */
  readonly reviewedTasks: number;
  /** Suite tasks nobody reviewed, sorted. */
  readonly unreviewed: readonly string[];
  /** Distinct reviewers, sorted. */
  readonly reviewers: readonly string[];
  /** Reviews that count (the latest per reviewer and task). */
  readonly currentReviews: number;
  /** Earlier reviews replaced by a later one of the same reviewer. */
  readonly supersededReviews: number;
  /**
   * Current reviews made of another version of the suite (suite.json's version then and now
   * differ): the task may have changed since, so the review may no longer hold.
   */
  readonly staleReviews: readonly {
    readonly task: string;
    readonly reviewer: string;
    readonly suiteVersion: string;
  }[];
  /** Reviewed ids that are not tasks of the suite (renamed or dropped tasks); left out of every figure. */
  readonly unknownTasks: readonly string[];
  /** Valid reviewed tasks over reviewed tasks, with a 95% Wilson interval; rate null with none reviewed. */
  readonly validity: {
    readonly valid: number;
    readonly reviewed: number;
    readonly rate: number | null;
    readonly low: number | null;
    readonly high: number | null;
  };
  /** Reviewed tasks that are not valid, sorted by id. */
  readonly flagged: readonly FlaggedTask[];
  /**
   * Difficulty: `mean` over reviewed tasks of each task's mean estimate; `levels` counts tasks
   * by that mean rounded half up, and the current reviews by their own estimate.
   */
  readonly difficulty: {
    readonly mean: number | null;
    readonly levels: readonly {
      readonly level: number;
      readonly tasks: number;
      readonly reviews: number;
    }[];
  };
  /**
   * Alternative fixes per reviewed task, taken as the most any of its reviewers counted (one
   * reviewer who found another fix is evidence that it exists): the mean, the tasks with at
   * least one, and tasks by count (the last bucket is "3+").
   */
  readonly alternatives: {
    readonly mean: number | null;
    readonly tasksWithAlternatives: number;
    readonly counts: readonly { readonly alternatives: string; readonly tasks: number }[];
  };
  /** One row per pair of reviewers who reviewed a task in common. */
  readonly agreement: readonly ReviewerAgreement[];
}

function meanOf(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Builds the calibration of a suite from its reviews (pure: the tasks and reviews are given). */
export function buildCalibration(
  suite: { readonly name: string; readonly taskIds: readonly string[]; readonly version?: string },
  reviews: readonly Review[],
): Calibration {
  const known = new Set(suite.taskIds);
  const current = currentReviews(reviews);
  const counted = [...current]
    .filter(([task]) => known.has(task))
    .sort(([a], [b]) => compareText(a, b));
  const countedReviews = counted.flatMap(([, list]) => list);

  const flagged: FlaggedTask[] = [];
  let valid = 0;
  for (const [task, list] of counted) {
    const verdict = judgeTask(list);
    if (verdict.status === "valid") valid++;
    else
      flagged.push({
        task,
        reasons: verdict.reasons,
        notes: list
          .filter((review) => !isValidReview(review) && review.notes.trim() !== "")
          .map((review) => `${review.reviewer}: ${review.notes.trim()}`),
      });
  }
  const interval = counted.length === 0 ? null : wilsonInterval(valid, counted.length);

  const taskDifficulty = counted.map(
    ([, list]) => meanOf(list.map((review) => review.difficulty)) ?? 0,
  );
  const levels = Array.from({ length: MAX_DIFFICULTY }, (_, i) => ({
    level: i + 1,
    tasks: taskDifficulty.filter((value) => Math.floor(value + 0.5) === i + 1).length,
    reviews: countedReviews.filter((review) => review.difficulty === i + 1).length,
  }));

  const taskAlternatives = counted.map(([, list]) =>
    Math.max(...list.map((review) => review.alternatives)),
  );
  const buckets = ["0", "1", "2", "3+"];
  const counts = buckets.map((label, i) => ({
    alternatives: label,
    tasks: taskAlternatives.filter((value) => (i === buckets.length - 1 ? value >= i : value === i))
      .length,
  }));

  return {
    suite: suite.name,
    tasks: suite.taskIds.length,
    reviewedTasks: counted.length,
    unreviewed: suite.taskIds.filter((id) => !current.has(id)).sort(compareText),
    reviewers: [...new Set(countedReviews.map((review) => review.reviewer))].sort(compareText),
    currentReviews: countedReviews.length,
    supersededReviews:
      reviews.filter((review) => known.has(review.task)).length - countedReviews.length,
    staleReviews: countedReviews
      .filter((review) => suite.version !== undefined && review.suiteVersion !== suite.version)
      .map(({ task, reviewer, suiteVersion }) => ({ task, reviewer, suiteVersion })),
    unknownTasks: [...current.keys()].filter((task) => !known.has(task)).sort(compareText),
    validity: {
      valid,
      reviewed: counted.length,
      rate: counted.length === 0 ? null : valid / counted.length,
      low: interval?.low ?? null,
      high: interval?.high ?? null,
    },
    flagged,
    difficulty: { mean: meanOf(taskDifficulty), levels },
    alternatives: {
      mean: meanOf(taskAlternatives),
      tasksWithAlternatives: taskAlternatives.filter((value) => value > 0).length,
      counts,
    },
    agreement: agreementOf(counted),
  };
}

/**
 * Cohen's kappa for each pair of reviewers over the tasks both reviewed. Kappa is defined for
 * two fixed raters, so pairs are kept apart rather than pooled: a task with three reviewers
 * counts once in each of its three pairs.
 */
function agreementOf(
  counted: readonly (readonly [string, readonly Review[]])[],
): ReviewerAgreement[] {
  const pairs = new Map<string, { reviewers: [string, string]; shared: [Review, Review][] }>();
  for (const [, list] of counted) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const first = list[i];
        const second = list[j];
        if (first === undefined || second === undefined) continue;
        // currentReviews sorts by reviewer, so `first` is always the same rater of a pair.
        const key = JSON.stringify([first.reviewer, second.reviewer]);
        const entry = pairs.get(key) ?? {
          reviewers: [first.reviewer, second.reviewer],
          shared: [],
        };
        entry.shared.push([first, second]);
        pairs.set(key, entry);
      }
    }
  }
  return [...pairs.values()]
    .sort((a, b) => compareText(a.reviewers.join("\u0000"), b.reviewers.join("\u0000")))
    .map(({ reviewers, shared }) => {
      const validity = cohenKappa(
        shared.map(([a, b]) => [String(isValidReview(a)), String(isValidReview(b))] as const),
      );
      return {
        reviewers,
        tasks: shared.length,
        clarity: cohenKappa(shared.map(([a, b]) => [a.clarity, b.clarity] as const)),
        tests: cohenKappa(shared.map(([a, b]) => [a.tests, b.tests] as const)),
        validity,
        validityInWords: describeKappa(validity.kappa),
      };
    });
}
