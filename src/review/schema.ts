import { z } from "zod";

/** The version of a line of reviews.jsonl; a line with another version is refused. */
export const REVIEW_SCHEMA_VERSION = 1;

/** How well the issue text states the problem, worst last. */
export const CLARITIES = ["clear", "ambiguous", "insufficient"] as const;
/** How well the hidden tests judge a fix, from best. */
export const TEST_ADEQUACIES = ["adequate", "weak", "flaky"] as const;

/** Whether the issue text says what to fix: clear, ambiguous or insufficient. */
export type Clarity = (typeof CLARITIES)[number];
/** Whether the hidden tests judge fixes fairly: adequate, weak (miss wrong fixes) or flaky. */
export type TestAdequacy = (typeof TEST_ADEQUACIES)[number];

/** The highest difficulty a reviewer can give. */
export const MAX_DIFFICULTY = 5;

/** What each difficulty means, for help texts and prompts. */
export const DIFFICULTY_SCALE =
  "1 trivial (minutes), 2 easy (under an hour), 3 medium (a few hours), 4 hard (about a day), 5 very hard (more)";

/** One line of `evals/<suite>/reviews.jsonl`: one reviewer's judgement of one task. */
export const reviewSchema = z.object({
  /** Always REVIEW_SCHEMA_VERSION. */
  schemaVersion: z.literal(REVIEW_SCHEMA_VERSION),
  /** The task's dataset id. */
  task: z.string().min(1),
  /** Who reviewed; a later review by the same name supersedes an earlier one of the task. */
  reviewer: z.string().min(1),
  /** Whether the issue text says what to fix. */
  clarity: z.enum(CLARITIES),
  /** Whether the hidden tests judge fixes fairly. */
  tests: z.enum(TEST_ADEQUACIES),
  /** Reasonable fixes other than the gold patch that the reviewer sees. */
  alternatives: z.number().int().min(0),
  /** The reviewer's estimate, 1 to 5 (DIFFICULTY_SCALE). */
  difficulty: z.number().int().min(1).max(MAX_DIFFICULTY),
  /** Free text; "" when none. */
  notes: z.string(),
  /** When the review was recorded, ISO 8601. */
  reviewedAt: z.string().min(1),
  /** The suite's version (suite.json) at the time, so reviews of a regenerated suite can be told apart. */
  suiteVersion: z.string(),
});

/** One stored review. */
export type Review = z.output<typeof reviewSchema>;

/** The judgement part of a review, as a reviewer gives it. */
export type ReviewAnswers = Pick<
  Review,
  "clarity" | "tests" | "alternatives" | "difficulty" | "notes"
>;

/** How one answer is checked: what is expected, and the parse of a typed value. */
export interface AnswerField<T> {
  /** The flag that gives it (`--clarity`). */
  readonly flag: string;
  /** What a valid value looks like, for messages: "clear, ambiguous or insufficient". */
  readonly expected: string;
  /** The value, or undefined when `text` is not one; a prompt also takes a unique prefix ("amb"). */
  parse(text: string, options?: { allowPrefix?: boolean }): T | undefined;
}

function choiceField<T extends string>(flag: string, choices: readonly T[]): AnswerField<T> {
  return {
    flag,
    expected: `${choices.slice(0, -1).join(", ")} or ${String(choices.at(-1))}`,
    parse(text, options = {}) {
      const typed = text.trim().toLowerCase();
      const exact = choices.find((choice) => choice === typed);
      if (exact !== undefined || typed === "" || options.allowPrefix !== true) return exact;
      const matches = choices.filter((choice) => choice.startsWith(typed));
      return matches.length === 1 ? matches[0] : undefined;
    },
  };
}

function wholeNumberField(flag: string, min: number, max: number | undefined): AnswerField<number> {
  return {
    flag,
    expected:
      max === undefined
        ? `a whole number of ${String(min)} or more`
        : `a whole number from ${String(min)} to ${String(max)}`,
    parse(text) {
      const typed = text.trim();
      if (!/^\d+$/.test(typed)) return undefined;
      const value = Number(typed);
      return value >= min && (max === undefined || value <= max) ? value : undefined;
    },
  };
}

/** The checks of each answer a review needs, by field name. */
export const ANSWER_FIELDS = {
  clarity: choiceField<Clarity>("clarity", CLARITIES),
  tests: choiceField<TestAdequacy>("tests", TEST_ADEQUACIES),
  alternatives: wholeNumberField("alternatives", 0, undefined),
  difficulty: wholeNumberField("difficulty", 1, MAX_DIFFICULTY),
} as const;

/** Checks a reviewer name: trimmed, 1 to 64 characters, no control characters. */
export function checkReviewerName(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > 64) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  return /[\u0000-\u001f\u007f]/.test(trimmed) ? undefined : trimmed;
}
