import {
  buildCalibration,
  readReviews,
  renderCalibrationMarkdown,
  reviewsFile,
} from "../review/index.js";
import { reportJson } from "../report/index.js";
import { loadSuite } from "../suite/index.js";
import { defineCommand, flagOption } from "./command.js";
import { commonOptions, settingsFrom, suiteFrom } from "./shared.js";

/** `lab calibrate --suite S`. */
export const calibrateCommand = defineCommand({
  name: "calibrate",
  summary:
    "Summarize a suite's reviews by people. It gives the validity rate (tasks reviewed clear and adequate) with its interval, the flagged tasks and why, the difficulty distribution and mean, alternative fixes, and agreement between reviewers (Cohen's kappa on clarity, tests and validity).",
  usage: "calibrate --suite S [--json]",
  options: {
    suite: { type: "string", value: "S", description: "The suite whose reviews to summarize" },
    json: { type: "boolean", description: "Print the figures as one JSON object" },
    "evals-dir": commonOptions["evals-dir"],
  },
  details: `Reads evals/<suite>/reviews.jsonl (written by \`lab review\`). Each reviewer's latest review
of a task counts; a task is valid when all of them say clear and adequate. Kappa is computed per
pair of reviewers over the tasks both reviewed, with a 95% large-sample interval; it is
undefined when both gave one same answer to every task.

Examples:
  lab calibrate --suite starter
  lab calibrate --suite starter --json > calibration.json`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const suite = await loadSuite(suiteFrom(args, "calibrate"), {
      evalsDir: settings.evalsDir,
      cwd: io.cwd,
    });
    const reviews = await readReviews(suite.dir);
    if (reviews.length === 0)
      io.stderr.write(
        `lab: suite ${suite.name} has no reviews yet (none in ${reviewsFile(suite.dir)}); record some with \`lab review --suite ${suite.name}\`.\n`,
      );
    const calibration = buildCalibration(suite, reviews);
    io.stdout.write(
      flagOption(args, "json")
        ? `${reportJson(calibration)}\n`
        : renderCalibrationMarkdown(calibration),
    );
    return 0;
  },
});
