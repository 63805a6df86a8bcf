import type { VerdictChange } from "../core/index.js";
import { regradeRun } from "../runner/index.js";
import { defineCommand, flagOption } from "./command.js";
import { commonOptions, LAB_VERSION, settingsFrom } from "./shared.js";

/** "resolved", "unresolved" or "flagged": a verdict in one word. */
function word(verdict: VerdictChange["old"]): string {
  return verdict.flagged ? "flagged" : verdict.resolved ? "resolved" : "unresolved";
}

/** `lab regrade RUN`. */
export const regradeCommand = defineCommand({
  name: "regrade",
  summary:
    "Judge every trial of a run again from its stored grader.log, with today's log parsers, grading rules and canary checks and the task's test lists as its suite has them; nothing runs. Changed verdicts are written back to the run's results and recorded in run.json (old, new, why).",
  usage: "regrade RUN [--json] [--runs-dir DIR] [--evals-dir DIR]",
  positionals: { min: 1, max: 1 },
  options: {
    json: { type: "boolean", description: "Print what changed as JSON" },
    ...commonOptions,
  },
  details: `Use it on a run graded before a parser or grading rule was fixed: only the verdicts the fix
concerns change. A trial whose grade ended before its tests ran (the change did not apply, ...)
has no test log to judge and keeps its verdict. One graded before lab recorded its canary
tests is judged again without them, keeping what their check found then. A later resume of the run skips its trials as finished, so it never undoes a
regrade. The run must not be running (its lock is taken).

Examples:
  lab regrade starter-gold
  lab regrade starter-gold --json`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const result = await regradeRun({
      runsDir: settings.runsDir,
      runId: args.positionals[0] ?? "",
      evalsDir: settings.evalsDir,
      cwd: io.cwd,
      labVersion: LAB_VERSION,
    });
    if (flagOption(args, "json")) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }
    const lines = [
      `lab: judged ${String(result.judged)} trial(s) of run ${result.runId} again from their grader.log: ${String(result.changes.length)} verdict(s) changed${result.detailsChanged > 0 ? `, ${String(result.detailsChanged)} grade(s) changed in their details only` : ""}.`,
      ...result.changes.map(
        (change) =>
          `  ${change.taskId} #${String(change.trial)}: ${word(change.old)} -> ${word(change.new)} (${change.why})`,
      ),
      ...result.notJudged.map(
        (trial) => `  not judged: ${trial.taskId} #${String(trial.trial)}: ${trial.why}`,
      ),
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  },
});
