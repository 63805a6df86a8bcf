import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { isLabError, LabError, quoteShell, UsageError, type TrialResult } from "../core/index.js";
import type { LabSettings } from "../config/index.js";
import {
  buildReport,
  checkGate,
  describeUnfinishedRuns,
  loadReport,
  withAuditOutcomes,
  type LoadedReport,
  readTrialDetails,
  renderCsv,
  renderReportHtml,
  renderReportMarkdown,
  renderSwebenchReport,
  reportJson,
  type SwebenchRunReport,
} from "../report/index.js";
import {
  listRuns,
  readTrialResults,
  trialPaths,
  writeFileAtomic,
  type RunPaths,
  type RunTasks,
} from "../store/index.js";
import { rateOption } from "./plan.js";
import { listSuites, loadSuite, readAuditOutcomes } from "../suite/index.js";
import {
  defineCommand,
  flagOption,
  listOption,
  stringOption,
  type CliIO,
  type ParsedArgs,
} from "./command.js";
import {
  commonOptions,
  configFrom,
  configOption,
  LAB_VERSION,
  settingsFrom,
  suiteFrom,
} from "./shared.js";

const FORMATS = ["markdown", "json", "json-full", "csv", "swebench"] as const;
type Format = (typeof FORMATS)[number];

/** The text format on stdout, from --format, --json or --csv (at most one of them). */
function formatFrom(args: ParsedArgs): Format {
  const chosen: Format[] = [];
  const format = stringOption(args, "format");
  if (format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format expects ${FORMATS.join(", ")}; got "${format}".`);
    chosen.push(format as Format);
  }
  if (flagOption(args, "json")) chosen.push("json");
  if (flagOption(args, "csv")) chosen.push("csv");
  if (new Set(chosen).size > 1)
    throw new UsageError("Choose one output format: --format, --json or --csv.");
  return chosen[0] ?? "markdown";
}

function levelFrom(args: ParsedArgs): number {
  const text = stringOption(args, "level");
  if (text === undefined) return 0.05;
  const level = Number(text);
  if (!(level > 0 && level < 1))
    throw new UsageError(
      `--level expects a significance level between 0 and 1, e.g. 0.05; got "${text}".`,
    );
  return level;
}

/**
 * "No runs of suite typo" becomes "Unknown suite", as `lab run` says it, when no suite of
 * that name exists either; the hint lists the suites that have runs and those on disk.
 */
async function unknownSuiteOr(
  error: unknown,
  suite: string,
  settings: LabSettings,
  cwd: string,
): Promise<unknown> {
  if (!isLabError(error) || error.code !== "RUN_NOT_FOUND") return error;
  const onDisk = listSuites({ evalsDir: settings.evalsDir, cwd });
  if (onDisk.includes(suite)) return error;
  const withRuns = [...new Set((await listRuns(settings.runsDir)).map((run) => run.record.suite))];
  return new LabError(
    "SUITE_NOT_FOUND",
    `Unknown suite "${suite}": no runs of it in ${settings.runsDir}, and no such suite on disk.`,
    {
      hint:
        [
          withRuns.length > 0 ? `Suites with runs: ${withRuns.sort().join(", ")}.` : "",
          onDisk.length > 0 ? `Suites here: ${onDisk.join(", ")}.` : "",
        ]
          .filter((part) => part !== "")
          .join(" ") || "Check the name, or --runs-dir.",
    },
  );
}

/** `lab report --suite S`. */
export const reportCommand = defineCommand({
  name: "report",
  summary:
    "Summarize the runs over a suite: per tool the resolve rate with 95% intervals, patch-apply rate, cost, latency, tokens and infrastructure errors; pass@k and consistency over repeated trials; paired comparisons with a verdict; slices by repository, difficulty and task metadata.",
  usage:
    "report --suite S [--run-id ID ...] [--slice FIELD ...] [--cluster FIELD] [--level P] [--config FILE] [--json | --csv | --format F] [--html FILE] [--fail-under RATE [--ci]] [--no-worse-than B] [--tool T ...]",
  options: {
    suite: { type: "string", value: "S", description: "The suite to report on" },
    "run-id": {
      type: "string",
      value: "ID",
      multiple: true,
      description:
        "Only these runs (default: each tool's latest completed run; a tool is its name and command line, or its --label)",
    },
    slice: {
      type: "string",
      value: "FIELD",
      multiple: true,
      description:
        "Also slice by this task metadata field (repeatable; repository and difficulty slices are shown without it)",
    },
    cluster: {
      type: "string",
      value: "FIELD",
      description:
        "Cluster tasks by this field for the clustered intervals (default repo: used when the tasks span several repositories, some with two tasks or more)",
    },
    level: {
      type: "string",
      value: "P",
      description: "Significance level of the comparison verdicts (default 0.05)",
    },
    "fail-under": {
      type: "string",
      value: "RATE",
      description:
        "Exit 1 when a tool's resolve rate (with --ci, the lower end of its 95% interval) is under RATE, e.g. 0.4 or 40%",
    },
    ci: {
      type: "boolean",
      description:
        "With --fail-under: compare the interval's lower end (the cluster bootstrap's when tasks are clustered, else Wilson's)",
    },
    "no-worse-than": {
      type: "string",
      value: "B",
      description:
        "Exit 1 when a tool is worse than tool B with significance (the report's paired verdict)",
    },
    tool: {
      type: "string",
      value: "T",
      multiple: true,
      description:
        "The tools --fail-under and --no-worse-than check, by report name (repeatable; default every tool but B)",
    },
    json: {
      type: "boolean",
      description: "Print a JSON array, one object per tool, instead of Markdown",
    },
    csv: { type: "boolean", description: "Print CSV, one row per tool, instead of Markdown" },
    format: {
      type: "string",
      value: "F",
      description:
        "markdown (default), json (as --json), json-full (the whole report: the runs read, comparisons, slices, pass@k, per-task records), csv, or swebench (upstream's run report per run, keyed by run id: resolved_ids, unresolved_ids, empty_patch_ids, error_ids and counts)",
    },
    html: {
      type: "string",
      value: "FILE",
      description:
        "Also write the report as one self-contained HTML page, with each trial's patch, logs and transcript",
    },
    ...configOption,
    ...commonOptions,
  },
  details: `Every report starts with the runs it read: run id, tool and version, status, trials done
out of planned, when. Infrastructure errors are counted apart and left out of every rate.
Intervals are 95%: Wilson over trials, and a seeded bootstrap over tasks. Tools are compared on
the tasks both attempted: McNemar's exact test with one trial per task, else Wilcoxon's
signed-rank test on per-task resolve rates, Holm-adjusted when more than two tools are
compared; each pair also says the smallest difference it could detect at 80% power
(\`lab plan\` plans a suite for one).

The Integrity section counts each tool's flagged trials (a change that tampers with the test
run, or a test log the canary tests show is not the run's own; never resolved) and its
infrastructure errors, and warns when a tool has clearly more of them than another on the same
tasks. When the suite has an oracle audit (\`lab audit\`), the tasks are also sliced by its
outcome. When lab.config.json declares training cutoffs ("models": {"NAME": {"cutoff":
"2025-03"}}, NAME a model a tool reports or a tool), each such tool's rate on tasks fixed before
and after the cutoff is compared (Fisher's exact test; a permutation test with repeated trials).
A run still in progress is reported as far as it got, and said so.

When the tasks span several repositories (some with two tasks or more), or with --cluster
FIELD, each rate also gets a cluster-robust standard error and a cluster bootstrap interval
(repositories, then tasks within them), and each pair's verdict rests on a cluster-paired
interval. When the runs read cover different task sets, the report says so at its top.

As a CI gate, --fail-under and --no-worse-than print the report as usual and set the exit code.
Exit codes: 0 the report was made and every gate held; 1 a gate failed (each failure is said on
stderr), or an error such as no runs of the suite; 2 a usage error.

Examples:
  lab report --suite starter
  lab report --suite starter --slice kind --slice scope
  lab report --suite starter --format json-full > report.json
  lab report --suite starter --html report.html
  lab report --suite starter --fail-under 0.5 --tool my-agent
  lab report --suite starter --fail-under 40% --ci --no-worse-than baseline`,
  async run(args, io) {
    const suite = suiteFrom(args, "report");
    const format = formatFrom(args);
    const level = levelFrom(args);
    const settings = settingsFrom(args, io);
    const htmlFile = htmlFileFrom(args, io.cwd);
    const runIds = listOption(args, "run-id");
    const failUnder = rateOption(args, "fail-under", { required: false });
    const useInterval = flagOption(args, "ci");
    if (useInterval && failUnder === undefined)
      throw new UsageError(
        "--ci goes with --fail-under RATE: it compares the interval's lower end.",
      );
    const noWorseThan = stringOption(args, "no-worse-than");
    const gateTools = listOption(args, "tool") ?? [];
    if (gateTools.length > 0 && failUnder === undefined && noWorseThan === undefined)
      throw new UsageError(
        "--tool names the tools a gate checks: add --fail-under or --no-worse-than.",
      );
    const loaded = await loadReport(settings.runsDir, suite, runIds).catch(
      async (error: unknown) => {
        throw runIds === undefined ? await unknownSuiteOr(error, suite, settings, io.cwd) : error;
      },
    );
    for (const note of await describeUnfinishedRuns(loaded.runs)) io.stderr.write(`lab: ${note}\n`);
    const report = buildReport(
      suite,
      loaded.runs,
      await withSuiteFacts(suite, loaded, settings, io),
      {
        level,
        slices: listOption(args, "slice") ?? [],
        cutoffs: configFrom(args, io).models,
        ...withCluster(stringOption(args, "cluster")),
      },
    );
    if (report.taskSetNote !== null && format !== "markdown")
      io.stderr.write(`lab: ${report.taskSetNote}\n`);
    // Checked before printing so a misnamed --tool fails at once, printed after the report.
    const gate =
      failUnder === undefined && noWorseThan === undefined
        ? null
        : checkGate(report, { failUnder, useInterval, noWorseThan, tools: gateTools });
    if (htmlFile !== undefined) {
      const page = renderReportHtml({
        report,
        records: loaded.runs.map((run) => run.record),
        tasks: loaded.tasks,
        details: readTrialDetails(
          loaded.runs,
          report.tools.map((tool) => tool.label),
        ),
        labVersion: LAB_VERSION,
      });
      await writeFileAtomic(htmlFile, page);
      io.stderr.write(`lab: wrote ${htmlFile}\n`);
    }
    if (format === "swebench") {
      // Upstream's run report, one per run, for comparing verdicts with the official harness.
      const documents: Record<string, SwebenchRunReport> = {};
      for (const run of loaded.runs) {
        const results = await readTrialResults(run.paths);
        documents[run.record.runId] = renderSwebenchReport(
          run.record,
          results,
          Object.keys(loaded.tasks),
          await firstTrialLogs(run.paths, results),
        );
      }
      // One shape however many runs: run id to its document.
      io.stdout.write(`${JSON.stringify(documents, null, 2)}\n`);
      return gateExit(gate, io);
    }
    const summaries = report.tools.map((tool) => tool.summary);
    const output =
      format === "json"
        ? `${reportJson(summaries)}\n`
        : format === "json-full"
          ? `${reportJson(report)}\n`
          : format === "csv"
            ? renderCsv(summaries)
            : renderReportMarkdown(report);
    io.stdout.write(output);
    return gateExit(gate, io);
  },
});

/** The --cluster option as report options: absent means the default, repo. */
function withCluster(field: string | undefined): { cluster?: string } {
  return field === undefined ? {} : { cluster: field };
}

/** Says how the gate went on stderr, and its exit code: 1 when it failed. */
function gateExit(gate: ReturnType<typeof checkGate> | null, io: CliIO): number {
  if (gate === null) return 0;
  for (const failure of gate.failures) io.stderr.write(`lab: gate failed: ${failure}\n`);
  if (gate.failures.length > 0) return 1;
  io.stderr.write(`lab: gate held (${gate.checked.join("; ")}).\n`);
  return 0;
}

/**
 * The file --html names, checked before any work: a page is written into a folder that exists,
 * never over a folder and never into folders it would have to make.
 */
function htmlFileFrom(args: ParsedArgs, cwd: string): string | undefined {
  const given = stringOption(args, "html");
  if (given === undefined) return undefined;
  if (given.trim() === "")
    throw new UsageError(
      "--html was given an empty value.",
      "Name the HTML file to write, e.g. --html report.html.",
    );
  const file = path.resolve(cwd, given);
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory() === true)
    throw new UsageError(
      `--html ${given} is a folder, not a file.`,
      `Name a file in it, e.g. --html ${path.join(given, "report.html")}.`,
    );
  const folder = path.dirname(file);
  if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true)
    throw new UsageError(
      `--html ${given}: the folder ${folder} does not exist.`,
      `Create it first (mkdir -p ${quoteShell(folder)}), or name a file in a folder that exists.`,
    );
  return file;
}

/**
 * The report's task facts with what the suite folder adds when it is still there: each task's
 * oracle audit outcome (`lab audit`), for the slice by audit outcome.
 */
async function withSuiteFacts(
  suiteName: string,
  loaded: LoadedReport,
  settings: LabSettings,
  io: CliIO,
): Promise<RunTasks> {
  const suite = await loadSuite(suiteName, { evalsDir: settings.evalsDir, cwd: io.cwd }).catch(
    () => null,
  );
  if (suite === null) return loaded.tasks;
  return withAuditOutcomes(loaded.tasks, await readAuditOutcomes(suite.dir));
}

/**
 * Each first trial's grader log (and an infrastructure error's message), for upstream's failure
 * classification; a trial without a log has none.
 */
async function firstTrialLogs(
  run: RunPaths,
  results: readonly TrialResult[],
): Promise<Map<string, string>> {
  const logs = new Map<string, string>();
  for (const result of results) {
    if (result.trial !== 1 || result.resolved === true) continue;
    const log = await readFile(trialPaths(run, result.taskId, 1).graderLog, "utf8").catch(() => "");
    const message = result.outcome.kind === "infra_error" ? result.outcome.message : "";
    logs.set(result.taskId, [log, message].filter((text) => text !== "").join("\n"));
  }
  return logs;
}
