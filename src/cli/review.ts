import { createInterface } from "node:readline";
import { UsageError } from "../core/index.js";
import {
  ANSWER_FIELDS,
  appendReview,
  checkReviewerName,
  currentReviews,
  DIFFICULTY_SCALE,
  describeReview,
  readReviews,
  renderGold,
  renderStatus,
  renderTask,
  renderTests,
  REVIEW_SCHEMA_VERSION,
  reviewsFile,
  type AnswerField,
  type Review,
  type ReviewAnswers,
} from "../review/index.js";
import { loadSuite, loadTask, type Suite } from "../suite/index.js";
import { defineCommand, flagOption, stringOption, type CliIO, type ParsedArgs } from "./command.js";
import { commonOptions, settingsFrom, suiteFrom } from "./shared.js";

const ANSWER_FLAGS = ["clarity", "tests", "alternatives", "difficulty", "notes"] as const;

/** `lab review --suite S`. */
export const reviewCommand = defineCommand({
  name: "review",
  summary:
    "Review a suite's tasks by hand: show a task (its issue text; the gold and test patches on request) and record your judgement of it in evals/<suite>/reviews.jsonl. On a terminal it asks, task after task, skipping those you reviewed; with --clarity, --tests, --alternatives and --difficulty it records one review without asking.",
  usage: "review --suite S [--task ID] [--reviewer NAME] [answers] [--show-gold] [--show-tests]",
  options: {
    suite: { type: "string", value: "S", description: "The suite to review" },
    task: { type: "string", value: "ID", description: "Only this task" },
    reviewer: {
      type: "string",
      value: "NAME",
      description: "Your name, recorded with each review (asked on a terminal when missing)",
      env: "LAB_REVIEWER",
    },
    clarity: {
      type: "string",
      value: "C",
      description: "Does the issue text say what to fix: clear, ambiguous or insufficient",
    },
    tests: {
      type: "string",
      value: "T",
      description:
        "Do the hidden tests judge fixes fairly: adequate, weak (a wrong fix could pass) or flaky",
    },
    alternatives: {
      type: "string",
      value: "N",
      description: "Reasonable fixes other than the gold patch (0 or more)",
    },
    difficulty: {
      type: "string",
      value: "D",
      description: `Estimated difficulty: ${DIFFICULTY_SCALE}`,
    },
    notes: { type: "string", value: "TEXT", description: "Free notes (optional)" },
    "show-gold": { type: "boolean", description: "Also show the gold patch (the reference fix)" },
    "show-tests": {
      type: "boolean",
      description: "Also show the hidden tests: FAIL_TO_PASS, PASS_TO_PASS and the test patch",
    },
    interactive: {
      type: "boolean",
      description: "Ask for answers on stdin even when it is not a terminal",
    },
    "evals-dir": commonOptions["evals-dir"],
  },
  details: `Modes:
  with --clarity, --tests, --alternatives and --difficulty (and --notes): record one review of
    --task by --reviewer, without asking;
  on a terminal (or with --interactive): show each task you have not reviewed and ask; answer
    with a value or its first letters, or g (gold patch), t (tests), s (skip), q (quit);
  otherwise: show --task, or list the tasks with their reviews.

A task is valid when every reviewer's latest review says clear and adequate. A later review by
the same reviewer supersedes the earlier one (both stay in the file); reviews by different
reviewers are all kept and compared by \`lab calibrate\`.

Examples:
  lab review --suite starter                     (on a terminal: review task after task)
  lab review --suite starter --task ID --show-gold --show-tests
  lab review --suite starter --task ID --reviewer alice --clarity clear --tests adequate \\
    --alternatives 1 --difficulty 3 --notes "the fix could also live in the parser"`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const suite = await loadSuite(suiteFrom(args, "review"), {
      evalsDir: settings.evalsDir,
      cwd: io.cwd,
    });
    const reviewerText = stringOption(args, "reviewer") ?? io.env.LAB_REVIEWER;
    const reviewer = reviewerText === undefined ? undefined : reviewerFrom(reviewerText);
    const taskId = stringOption(args, "task");
    const show = { gold: flagOption(args, "show-gold"), tests: flagOption(args, "show-tests") };
    if (ANSWER_FLAGS.some((name) => args.values[name] !== undefined)) {
      if (flagOption(args, "interactive"))
        throw new UsageError("--interactive asks for the answers; do not also give them as flags.");
      return recordFromFlags(args, io, suite, { reviewer, taskId, show });
    }
    if (flagOption(args, "interactive") || io.stdin?.isTTY === true) {
      const stdin = io.stdin;
      if (stdin === undefined)
        throw new UsageError(
          "There is no input to read answers from.",
          "Give the answers as flags.",
        );
      return reviewInteractively(io, stdin, suite, { reviewer, taskId, show });
    }
    if (taskId !== undefined) {
      io.stdout.write(await renderTask(suite, taskId, show));
      const current = currentReviews(await readReviews(suite.dir)).get(taskId) ?? [];
      io.stdout.write(
        `\n${current.length === 0 ? "No review yet." : current.map(describeReview).join("\n")}\n`,
      );
      io.stderr.write(
        `lab: record a review with \`lab review --suite ${suite.name} --task ${taskId} --reviewer NAME --clarity C --tests T --alternatives N --difficulty D\`, or run on a terminal to be asked.\n`,
      );
      return 0;
    }
    io.stdout.write(await renderStatus(suite));
    return 0;
  },
});

function reviewerFrom(text: string): string {
  const name = checkReviewerName(text);
  if (name === undefined)
    throw new UsageError(
      `--reviewer expects a name of 1 to 64 characters without control characters; got ${JSON.stringify(text)}.`,
    );
  return name;
}

interface ReviewContext {
  readonly reviewer: string | undefined;
  readonly taskId: string | undefined;
  readonly show: { readonly gold: boolean; readonly tests: boolean };
}

/** Checks every answer flag at once, so one error message lists everything to fix. */
function answersFromFlags(args: ParsedArgs): ReviewAnswers {
  const problems: string[] = [];
  const missing: string[] = [];
  const take = <T>(field: AnswerField<T>): T | undefined => {
    const text = stringOption(args, field.flag);
    if (text === undefined) {
      missing.push(`--${field.flag}`);
      return undefined;
    }
    const value = field.parse(text);
    if (value === undefined) {
      const guess = field.parse(text, { allowPrefix: true });
      problems.push(
        `--${field.flag} expects ${field.expected}; got "${text}"${guess === undefined ? "" : ` (did you mean ${String(guess)}?)`}.`,
      );
    }
    return value;
  };
  const clarity = take(ANSWER_FIELDS.clarity);
  const tests = take(ANSWER_FIELDS.tests);
  const alternatives = take(ANSWER_FIELDS.alternatives);
  const difficulty = take(ANSWER_FIELDS.difficulty);
  if (missing.length > 0)
    problems.push(`A review also needs ${missing.join(", ")} (--notes is optional).`);
  if (
    problems.length > 0 ||
    clarity === undefined ||
    tests === undefined ||
    alternatives === undefined ||
    difficulty === undefined
  )
    throw new UsageError(
      problems.join(" "),
      problems.some((problem) => problem.includes("--difficulty"))
        ? `Difficulty: ${DIFFICULTY_SCALE}.`
        : undefined,
    );
  return { clarity, tests, alternatives, difficulty, notes: stringOption(args, "notes") ?? "" };
}

async function recordFromFlags(
  args: ParsedArgs,
  io: CliIO,
  suite: Suite,
  context: ReviewContext,
): Promise<number> {
  if (context.taskId === undefined)
    throw new UsageError(
      "Recording a review needs --task ID.",
      `List the tasks with \`lab review --suite ${suite.name}\`.`,
    );
  if (context.reviewer === undefined)
    throw new UsageError("Recording a review needs --reviewer NAME (or LAB_REVIEWER).");
  const answers = answersFromFlags(args);
  await loadTask(suite, context.taskId);
  if (context.show.gold || context.show.tests)
    io.stdout.write(await renderTask(suite, context.taskId, context.show));
  const earlier = currentReviews(await readReviews(suite.dir))
    .get(context.taskId)
    ?.find((review) => review.reviewer === context.reviewer);
  const review = createReview(suite, context.taskId, context.reviewer, answers);
  await appendReview(suite.dir, review, io.signal);
  io.stderr.write(
    `lab: recorded ${describeReview(review)} in ${reviewsFile(suite.dir)}${earlier === undefined ? "" : `; it supersedes the review of ${earlier.reviewedAt}`}.\n`,
  );
  return 0;
}

function createReview(
  suite: Suite,
  task: string,
  reviewer: string,
  answers: ReviewAnswers,
): Review {
  return {
    schemaVersion: REVIEW_SCHEMA_VERSION,
    task,
    reviewer,
    ...answers,
    reviewedAt: new Date().toISOString(),
    suiteVersion: suite.version,
  };
}

/** The reviewer stopped answering: `q`, end of input, or Ctrl-C. */
class StopReview extends Error {}
/** The reviewer skipped the task with `s`. */
class SkipTask extends Error {}

/** Reads answers line by line; a pending read ends when `signal` aborts. */
function createLineReader(
  input: NodeJS.ReadableStream,
  signal: AbortSignal,
): { next(): Promise<string | undefined>; close(): void } {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  const iterator = lines[Symbol.asyncIterator]();
  return {
    async next() {
      if (signal.aborted) return undefined;
      let onAbort = (): void => undefined;
      const aborted = new Promise<undefined>((resolve) => {
        onAbort = () => {
          resolve(undefined);
        };
        signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        const result = await Promise.race([iterator.next(), aborted]);
        return result === undefined || result.done === true ? undefined : result.value;
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
    close() {
      lines.close();
    },
  };
}

async function reviewInteractively(
  io: CliIO,
  stdin: NodeJS.ReadableStream,
  suite: Suite,
  context: ReviewContext,
): Promise<number> {
  const reader = createLineReader(stdin, io.signal);
  const say = (text: string): void => {
    io.stderr.write(text);
  };
  let recorded = 0;
  let skipped = 0;
  let answering: string | undefined;
  try {
    let reviewer = context.reviewer;
    while (reviewer === undefined) {
      say("Your name (recorded with each review): ");
      const line = await reader.next();
      if (line === undefined || line.trim() === "q") throw new StopReview();
      reviewer = checkReviewerName(line);
      if (reviewer === undefined) say("A name of 1 to 64 characters, please.\n");
    }
    const mine = new Set(
      (await readReviews(suite.dir))
        .filter((review) => review.reviewer === reviewer)
        .map((review) => review.task),
    );
    let queue: string[];
    if (context.taskId !== undefined) {
      await loadTask(suite, context.taskId);
      queue = [context.taskId];
      if (mine.has(context.taskId))
        say(`You have reviewed ${context.taskId} before; this review will supersede it.\n`);
    } else {
      queue = suite.taskIds.filter((id) => !mine.has(id));
      if (queue.length === 0) {
        say(
          `lab: ${reviewer} has reviewed all ${String(suite.taskIds.length)} tasks of ${suite.name}; \`lab calibrate --suite ${suite.name}\` summarizes the reviews.\n`,
        );
        return 0;
      }
      say(
        `Reviewing ${String(queue.length)} task(s) of ${suite.name} as ${reviewer}${queue.length < suite.taskIds.length ? ` (${String(suite.taskIds.length - queue.length)} you reviewed are skipped)` : ""}. At any question: g shows the gold patch, t the hidden tests, s skips the task, q stops (recorded reviews are kept; rerun to go on).\n`,
      );
    }
    for (const [index, taskId] of queue.entries()) {
      io.stdout.write(
        `\n--- task ${String(index + 1)} of ${String(queue.length)} ---\n${await renderTask(suite, taskId, context.show)}\n`,
      );
      const ask = async <T>(
        question: string,
        parse: (text: string) => T | undefined,
        expected: string,
      ): Promise<T> => {
        for (;;) {
          say(question);
          const line = await reader.next();
          if (line === undefined) throw new StopReview();
          const typed = line.trim();
          if (typed === "q") throw new StopReview();
          if (typed === "s") throw new SkipTask();
          if (typed === "g" || typed === "t") {
            const { oracleDir } = await loadTask(suite, taskId);
            io.stdout.write(`\n${await (typed === "g" ? renderGold : renderTests)(oracleDir)}\n\n`);
            continue;
          }
          const value = parse(typed);
          if (value !== undefined) return value;
          say(`Expected ${expected} (or g, t, s, q); got "${typed}".\n`);
        }
      };
      const field = <T>(answer: AnswerField<T>, question: string): Promise<T> =>
        ask(question, (text) => answer.parse(text, { allowPrefix: true }), answer.expected);
      answering = taskId;
      try {
        const answers: ReviewAnswers = {
          clarity: await field(
            ANSWER_FIELDS.clarity,
            "Clarity of the issue [clear/ambiguous/insufficient]: ",
          ),
          tests: await field(ANSWER_FIELDS.tests, "Test adequacy [adequate/weak/flaky]: "),
          alternatives: await field(
            ANSWER_FIELDS.alternatives,
            "Reasonable fixes other than the gold patch [0, 1, 2, ...]: ",
          ),
          difficulty: await field(
            ANSWER_FIELDS.difficulty,
            `Difficulty [1-5] (${DIFFICULTY_SCALE}): `,
          ),
          notes: await ask("Notes (optional, one line): ", (text) => text, "any text"),
        };
        await appendReview(suite.dir, createReview(suite, taskId, reviewer, answers), io.signal);
        recorded++;
        say(`Recorded (${String(index + 1)}/${String(queue.length)}).\n`);
      } catch (error) {
        if (!(error instanceof SkipTask)) throw error;
        skipped++;
        say(`Skipped ${taskId}.\n`);
      }
      answering = undefined;
    }
  } catch (error) {
    if (!(error instanceof StopReview)) throw error;
    if (answering !== undefined)
      say(`\nThe review of ${answering} was not finished and is not recorded.\n`);
  } finally {
    reader.close();
  }
  say(
    `lab: ${String(recorded)} review(s) recorded in ${reviewsFile(suite.dir)}${skipped > 0 ? `, ${String(skipped)} task(s) skipped` : ""}. \`lab calibrate --suite ${suite.name}\` summarizes them.\n`,
  );
  return io.signal.aborted ? 130 : 0;
}
