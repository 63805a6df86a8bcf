import { existsSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { closestNames, LabError, UsageError, type TrialResult } from "../core/index.js";
import {
  listTranscripts,
  readRunRecord,
  readTrialResult,
  runPaths,
  trialPaths,
  type TrialPaths,
} from "../store/index.js";
import { defineCommand, flagOption, stringOption } from "./command.js";
import { existingRunFolder } from "./runs.js";
import { commonOptions, settingsFrom } from "./shared.js";

/** The files `--log` prints, by name. */
const LOGS = {
  tool: (paths: TrialPaths) => paths.toolLog,
  grader: (paths: TrialPaths) => paths.graderLog,
  patch: (paths: TrialPaths) => paths.patch,
} as const;
type LogName = keyof typeof LOGS;

/** The folders under `dir` named by whole numbers, as numbers, sorted. */
function numberedFolders(dir: string): number[] {
  try {
    return readdirSync(dir)
      .filter((name) => /^[1-9]\d*$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

/** `lab show RUN TASK [TRIAL]`. */
export const showCommand = defineCommand({
  name: "show",
  summary:
    "Show one trial of a run: its outcome, whether it resolved, the hidden tests that failed, tampering found, cost and times, and where its logs are; --log prints one of them.",
  usage: "show RUN TASK [TRIAL] [--log tool|grader|patch] [--json]",
  positionals: { min: 2, max: 3 },
  options: {
    log: {
      type: "string",
      value: "NAME",
      description:
        "Print this file of the trial instead of its summary: tool (the tool's output), grader (install and hidden tests' output) or patch (the change captured)",
    },
    json: { type: "boolean", description: "Print the trial's result.json and its files' paths" },
    ...commonOptions,
  },
  details: `TRIAL defaults to 1, or to the task's only trial. \`lab runs list\` shows the run ids; an
unknown task or trial is named with the ones the run has.

Examples:
  lab show starter-noop textkit-slugify-max-length
  lab show starter-noop textkit-slugify-max-length 2 --log grader`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const [runId = "", taskId = "", trialText] = args.positionals;
    const log = stringOption(args, "log");
    if (log !== undefined && !(log in LOGS))
      throw new UsageError(`--log expects ${Object.keys(LOGS).join(", ")}; got "${log}".`);
    existingRunFolder(settings.runsDir, runId);
    const run = runPaths(settings.runsDir, runId);
    const record = await readRunRecord(run);
    const tasks = [
      ...new Set([
        ...record.taskIds,
        ...(existsSync(run.trialsDir) ? readdirSync(run.trialsDir) : []),
      ]),
    ]
      // Only names that stay one folder under trials/, whatever run.json says.
      .filter((id) => id !== "." && id !== ".." && !id.includes("/"))
      .sort();
    if (!tasks.includes(taskId)) {
      const near = closestNames(taskId, tasks);
      throw new LabError("TASK_NOT_FOUND", `Run "${runId}" has no task "${taskId}".`, {
        hint:
          near.length > 0
            ? `Did you mean ${near.join(" or ")}?`
            : `Its tasks: ${tasks.slice(0, 20).join(", ")}${tasks.length > 20 ? `, ... (${String(tasks.length)} in all)` : ""}.`,
      });
    }
    const trials = numberedFolders(`${run.trialsDir}/${taskId}`);
    const trial =
      trialText === undefined ? (trials.length === 1 ? trials[0] : 1) : Number(trialText);
    if (trial === undefined || !trials.includes(trial)) {
      throw new LabError(
        "RUN_NOT_FOUND",
        trials.length === 0
          ? `Task "${taskId}" of run "${runId}" has no trial yet.`
          : `Task "${taskId}" of run "${runId}" has no trial ${String(trialText ?? trial)}.`,
        {
          hint:
            trials.length === 0
              ? "It has not started: rerun the run's `lab run` command to carry it out."
              : `Its trials: ${trials.join(", ")}.`,
        },
      );
    }
    const paths = trialPaths(run, taskId, trial);
    if (log !== undefined) {
      const file = LOGS[log as LogName](paths);
      if (!existsSync(file))
        throw new LabError(
          "RUN_NOT_FOUND",
          `Trial ${String(trial)} of "${taskId}" has no ${log} file (${file}).`,
          {
            hint:
              log === "grader"
                ? "The trial never reached grading: `lab show` without --log says how it ended."
                : "The trial never got that far: `lab show` without --log says how it ended.",
          },
        );
      io.stdout.write(await readFile(file, "utf8"));
      return 0;
    }
    const result = await readTrialResult(paths);
    const files = {
      toolLog: existingOrNull(paths.toolLog),
      graderLog: existingOrNull(paths.graderLog),
      patch: existingOrNull(paths.patch),
      transcripts: listTranscripts(paths),
    };
    if (flagOption(args, "json")) {
      io.stdout.write(`${JSON.stringify({ result, files }, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(
      [
        `run ${runId}, task ${taskId}, trial ${String(trial)} of ${String(trials.length)}`,
        ...(result === null
          ? ["not finished: no result.json yet (the trial is under way, or was cut short)"]
          : summaryLines(result)),
        "files:",
        `  tool log:    ${files.toolLog ?? "-"}`,
        `  grader log:  ${files.graderLog ?? "-"}`,
        `  patch:       ${files.patch ?? "-"}`,
        ...files.transcripts.map((file) => `  transcript:  ${file}`),
        "",
      ].join("\n"),
    );
    return 0;
  },
});

function existingOrNull(file: string): string | null {
  return existsSync(file) ? file : null;
}

/** How a trial ended, for people. */
function outcomeText(result: TrialResult): string {
  const { outcome } = result;
  switch (outcome.kind) {
    case "graded":
      return "graded";
    case "tool_timeout":
      return "tool timed out";
    case "tool_crashed":
      return `tool crashed (exit ${String(outcome.exitCode ?? "-")}${outcome.signal === null ? "" : `, ${outcome.signal}`})${outcome.message === undefined ? "" : `: ${outcome.message}`}`;
    case "infra_error":
      return `infrastructure error in ${outcome.phase}: ${outcome.message}`;
  }
}

/** Failing tests of a list, at most 20 named. */
function failingLine(name: string, tests: Readonly<Record<string, boolean>>): string {
  const all = Object.keys(tests);
  const failing = all.filter((test) => tests[test] !== true);
  const shown = failing
    .slice(0, 20)
    .map((test) => `\n    ${test}`)
    .join("");
  const more = failing.length > 20 ? `\n    ... and ${String(failing.length - 20)} more` : "";
  return `  ${name}: ${String(failing.length)} of ${String(all.length)} failing${shown}${more}`;
}

/** The summary of a finished trial. */
function summaryLines(result: TrialResult): string[] {
  const { grade, telemetry } = result;
  const lines = [
    `outcome: ${outcomeText(result)}`,
    `resolved: ${result.resolved === null ? "-" : result.resolved ? "yes" : "no"}`,
  ];
  if (grade !== null) {
    lines.push(
      `grade: patch ${grade.patchEmpty ? "empty" : grade.patchApplied ? `applied${grade.applyMethod === null ? "" : ` (${grade.applyMethod})`}` : "did not apply"}${grade.testsTimedOut ? "; tests timed out" : ""}`,
      ...(grade.reason === null
        ? []
        : [
            `  reason: ${grade.reason.length > 200 ? `${grade.reason.slice(0, 199)}…` : grade.reason}`,
          ]),
      failingLine("FAIL_TO_PASS", grade.failToPass),
      failingLine("PASS_TO_PASS", grade.passToPass),
      `  tampering: ${grade.tampering.length === 0 ? "none found" : grade.tampering.join("; ")}`,
    );
  }
  const tokens = [
    telemetry.inputTokens === undefined ? "" : `${String(telemetry.inputTokens)} in`,
    telemetry.outputTokens === undefined ? "" : `${String(telemetry.outputTokens)} out`,
  ].filter((part) => part !== "");
  lines.push(
    `cost: ${telemetry.costUsd === undefined ? "not reported" : `$${telemetry.costUsd.toFixed(4)}`}${tokens.length > 0 ? `; tokens ${tokens.join(", ")}` : ""}${telemetry.model === undefined ? "" : `; model ${telemetry.model}`}`,
    `time: ${(result.durationMs / 1000).toFixed(1)} s (${Object.entries(result.phaseMs)
      .map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(1)} s`)
      .join(", ")}), ${result.startedAt} to ${result.finishedAt}`,
  );
  return lines;
}
