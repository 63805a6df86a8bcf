import { LabError } from "../core/index.js";
import { renderSummaryMarkdown, selectRuns, summarizeRun } from "../report/index.js";
import { listRuns, readTrialResults } from "../store/index.js";
import { defineCommand, flagOption, listOption } from "./command.js";
import { commonOptions, settingsFrom, suiteFrom } from "./shared.js";

/** `lab report --suite S`. */
export const reportCommand = defineCommand({
  name: "report",
  summary:
    "Summarize the runs over a suite: one row per tool with tasks, resolved, resolve rate, patch-apply rate, cost per task, latency and infrastructure errors.",
  usage: "report --suite S [--run-id ID ...] [--json]",
  options: {
    suite: { type: "string", value: "S", description: "The suite to report on" },
    "run-id": {
      type: "string",
      value: "ID",
      multiple: true,
      description: "Only these runs (default: the latest run of each tool)",
    },
    json: {
      type: "boolean",
      description: "Print a JSON array, one object per tool, instead of Markdown",
    },
    ...commonOptions,
  },
  async run(args, io) {
    const suite = suiteFrom(args, "report");
    const settings = settingsFrom(args, io);
    const runIds = listOption(args, "run-id");
    const all = await listRuns(settings.runsDir);
    const chosen = selectRuns(all, suite, runIds);
    const missing = (runIds ?? []).filter((id) => !chosen.some((run) => run.record.runId === id));
    if (missing.length > 0) {
      throw new LabError(
        "RUN_NOT_FOUND",
        `No run ${missing.map((id) => `"${id}"`).join(", ")} of suite "${suite}" in ${settings.runsDir}.`,
        {
          hint: `Runs of "${suite}" there: ${
            all
              .filter((run) => run.record.suite === suite)
              .map((run) => run.record.runId)
              .join(", ") || "none"
          }.`,
        },
      );
    }
    if (chosen.length === 0) {
      throw new LabError("RUN_NOT_FOUND", `No runs of suite "${suite}" in ${settings.runsDir}.`, {
        hint: `Start one with \`lab run gold --suite ${suite}\`.`,
      });
    }
    const summaries = [];
    for (const run of chosen)
      summaries.push(summarizeRun(run.record, await readTrialResults(run.paths)));
    io.stdout.write(
      flagOption(args, "json")
        ? `${JSON.stringify(summaries, null, 2)}\n`
        : renderSummaryMarkdown(suite, summaries),
    );
    return 0;
  },
});
