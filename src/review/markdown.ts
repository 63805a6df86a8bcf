import { decimal, percent, percentInterval, renderMarkdownTable } from "../report/index.js";
import type { Calibration } from "./calibrate.js";
import { MIN_ITEMS_FOR_INTERVAL, type Kappa } from "./kappa.js";

/** Lists ids in a sentence, cut after `max`. */
function idList(ids: readonly string[], max = 20): string {
  return ids.length <= max
    ? ids.join(", ")
    : `${ids.slice(0, max).join(", ")}, ... (${String(ids.length - max)} more)`;
}

/** "0.62 [0.21, 0.93], 80.0% agree", or "–" with a reason. */
function kappaCell(kappa: Kappa): string {
  if (kappa.kappa === null) return kappa.n === 0 ? "–" : "– (both gave one same answer throughout)";
  const interval =
    kappa.low === null || kappa.high === null
      ? ""
      : ` [${decimal(kappa.low, 2)}, ${decimal(kappa.high, 2)}]`;
  return `${decimal(kappa.kappa, 2)}${interval}, ${percent(kappa.observed)} agree`;
}

/** The calibration as Markdown: validity, flagged tasks, difficulty, alternatives, agreement. */
export function renderCalibrationMarkdown(calibration: Calibration): string {
  const c = calibration;
  const out: string[] = [`# Calibration of ${c.suite}`, ""];
  out.push(
    `${String(c.reviewedTasks)} of ${String(c.tasks)} tasks reviewed by ${String(c.reviewers.length)} reviewer(s) (${c.reviewers.join(", ") || "none"}): ${String(c.currentReviews)} current review(s), ${String(c.supersededReviews)} superseded.`,
  );
  if (c.unreviewed.length > 0) out.push("", `Not reviewed: ${idList(c.unreviewed)}.`);
  if (c.staleReviews.length > 0)
    out.push(
      "",
      `${String(c.staleReviews.length)} current review(s) were made of another version of the suite, and the task may have changed since: ${idList(
        c.staleReviews.map(
          (review) => `${review.task} (${review.reviewer}, version ${review.suiteVersion})`,
        ),
        10,
      )}.`,
    );
  if (c.unknownTasks.length > 0)
    out.push("", `Reviews of tasks not in the suite (left out): ${idList(c.unknownTasks)}.`);
  if (c.reviewedTasks === 0) {
    out.push("", `No task is reviewed yet: \`lab review --suite ${c.suite}\` records reviews.`, "");
    return out.join("\n");
  }

  out.push(
    "",
    "## Validity",
    "",
    `**${String(c.validity.valid)} of ${String(c.validity.reviewed)} reviewed tasks are valid: ${percent(c.validity.rate)} ${percentInterval(c.validity.low, c.validity.high)} (95% Wilson interval).** A task is valid when every reviewer's latest review says clear and adequate.`,
  );

  out.push("", "## Flagged tasks", "");
  if (c.flagged.length === 0) out.push("None.");
  else
    out.push(
      renderMarkdownTable(
        ["task", "why", "notes"],
        c.flagged.map((task) => [
          task.task,
          task.reasons.join("; "),
          task.notes.join("; ").replace(/\s+/g, " ").replaceAll("|", "\\|"),
        ]),
      ),
    );

  out.push(
    "",
    "## Difficulty",
    "",
    `Mean ${decimal(c.difficulty.mean, 2)} over ${String(c.reviewedTasks)} tasks (each task's mean estimate; 1 trivial to 5 very hard). Tasks are counted at their mean rounded half up, reviews at their own estimate.`,
    "",
    renderMarkdownTable(
      ["difficulty", "tasks", "reviews"],
      c.difficulty.levels.map((level) => [
        String(level.level),
        String(level.tasks),
        String(level.reviews),
      ]),
      [false, true, true],
    ),
  );

  out.push(
    "",
    "## Alternative fixes",
    "",
    `${String(c.alternatives.tasksWithAlternatives)} of ${String(c.reviewedTasks)} tasks have a reasonable fix other than the gold patch (mean ${decimal(c.alternatives.mean, 2)} per task, the most any reviewer counted); their tests must accept those fixes too.`,
    "",
    renderMarkdownTable(
      ["alternatives", "tasks"],
      c.alternatives.counts.map((row) => [row.alternatives, String(row.tasks)]),
      [false, true],
    ),
  );

  out.push("", "## Agreement between reviewers", "");
  if (c.agreement.length === 0)
    out.push(
      "No task has two reviewers yet: have a second reviewer review some tasks to measure agreement.",
    );
  else
    out.push(
      `Cohen's kappa per pair of reviewers over the tasks both reviewed, with its 95% interval from ${String(MIN_ITEMS_FOR_INTERVAL)} shared tasks on.`,
      "",
      renderMarkdownTable(
        ["reviewers", "tasks", "clarity", "tests", "validity", "validity in words"],
        c.agreement.map((row) => [
          row.reviewers.join(" & "),
          String(row.tasks),
          kappaCell(row.clarity),
          kappaCell(row.tests),
          kappaCell(row.validity),
          row.validityInWords,
        ]),
        [false, true],
      ),
    );
  out.push("");
  return out.join("\n");
}
