import { UsageError } from "../core/index.js";
import {
  adjustedDetectableDifference,
  adjustedTasksNeeded,
  clusterConcentration,
  DEFAULT_ICC,
  percent,
  points,
  renderMarkdownTable,
  RUN_TO_RUN_SD,
  tasksNeeded,
  testFor,
  type PlanAdjustments,
} from "../report/index.js";
import { loadSuite, loadTask, type Suite } from "../suite/index.js";
import { parsePositiveInt } from "../config/index.js";
import { defineCommand, flagOption, stringOption, type ParsedArgs } from "./command.js";
import { commonOptions, settingsFrom } from "./shared.js";

/** Trials per task the plan shows when --trials is not given. */
const DEFAULT_TRIALS = [1, 2, 3, 5, 10];

/** A rate given as 0.4 or 40%; `name` names the option in errors. */
export function rateOption(
  args: ParsedArgs,
  name: string,
  options: { required: boolean },
): number | undefined {
  const text = stringOption(args, name);
  if (text === undefined) {
    if (options.required)
      throw new UsageError(
        `lab plan needs --${name}.`,
        "For example: lab plan --suite starter --baseline 0.4 --difference 0.05",
      );
    return undefined;
  }
  const match = /^\s*(\d*\.?\d+)\s*(%?)\s*$/.exec(text);
  const value = match === null ? Number.NaN : Number(match[1]) / (match[2] === "%" ? 100 : 1);
  if (!(value >= 0 && value <= 1))
    throw new UsageError(
      `--${name} expects a rate between 0 and 1, such as 0.4 or 40%; got "${text}".`,
    );
  return value;
}

const TEST_NAMES = {
  mcnemar: "McNemar exact test",
  wilcoxon: "Wilcoxon signed-rank test",
} as const;

/** `lab plan --suite S --baseline 0.4 --difference 0.05 [--trials K]`. */
export const planCommand = defineCommand({
  name: "plan",
  summary:
    "Plan a comparison: how many tasks and trials it takes to detect a difference in resolve rate at 80% power, with the paired tests lab report uses (McNemar's exact test with one trial per task, Wilcoxon's signed-rank test with more), and the smallest difference a suite's tasks can detect.",
  usage:
    "plan [--suite S] --baseline RATE --difference RATE [--trials K] [--clusters G] [--icc R] [--level P] [--power P] [--json]",
  options: {
    suite: {
      type: "string",
      value: "S",
      description:
        "The suite to plan for: says whether its tasks are enough, and what they can detect",
    },
    baseline: {
      type: "string",
      value: "RATE",
      description: "The resolve rate of the tool compared against, e.g. 0.4 or 40%",
    },
    difference: {
      type: "string",
      value: "RATE",
      description: "The difference to detect, in rate: 0.05 or 5% is 5 points",
    },
    trials: {
      type: "string",
      value: "K",
      description: `Trials of each tool per task (default: ${DEFAULT_TRIALS.join(", ")} side by side)`,
    },
    clusters: {
      type: "string",
      value: "G",
      description:
        "The tasks fall in G repositories of equal size (default: the suite's own repositories, when --suite is given)",
    },
    icc: {
      type: "string",
      value: "R",
      description: `Intraclass correlation of a pair's per-task differences within a repository (default ${String(DEFAULT_ICC)})`,
    },
    level: { type: "string", value: "P", description: "Significance level (default 0.05)" },
    power: { type: "string", value: "P", description: "The chance of detecting it (default 0.8)" },
    json: { type: "boolean", description: "Print the plan as JSON" },
    ...commonOptions,
  },
  details: `The model: tool b resolves each trial with the baseline rate, tool a with baseline +
difference, on every task; trials independent, and the two tools independent on a task. Real
tools tend to fail the same hard tasks; that shared difficulty cancels in a paired comparison,
so real suites need at most this many tasks. McNemar's power is exact under the model; the
signed-rank test's is a normal approximation, checked by simulation to within 5 points.

Two things the model alone leaves out are counted. Tasks of one repository move together:
with G repositories (--clusters, or the suite's own) the tasks needed grow by the design effect
1 + (m - 1) * ICC, m the mean repository size a task sees; past some size more tasks in the
same repositories add nothing, and the plan says so. And runs of one agent differ by at least
${String(RUN_TO_RUN_SD * 100)} points (arXiv 2602.07150): each tool's run-to-run standard
deviation is never taken below that (divided by the square root of the trials per task).

Examples:
  lab plan --suite starter --baseline 0.4 --difference 0.05
  lab plan --baseline 40% --difference 10% --trials 3
  lab plan --suite swebench --baseline 0.3 --difference 0.15 --json`,
  async run(args, io) {
    const baseline = rateOption(args, "baseline", { required: true }) ?? 0;
    const difference = rateOption(args, "difference", { required: true }) ?? 0;
    if (baseline >= 1)
      throw new UsageError("--baseline must be below 1: a tool at 100% cannot be beaten.");
    if (!(difference > 0)) throw new UsageError("--difference must be above 0.");
    if (baseline + difference > 1)
      throw new UsageError(
        `--baseline ${String(baseline)} plus --difference ${String(difference)} is above a rate of 1.`,
        `The largest difference over ${percent(baseline)} is ${points(1 - baseline).replace("+", "")} points.`,
      );
    const level = rateOption(args, "level", { required: false }) ?? 0.05;
    const power = rateOption(args, "power", { required: false }) ?? 0.8;
    if (!(level > 0 && level < 1))
      throw new UsageError("--level expects a number between 0 and 1, e.g. 0.05.");
    if (!(power > 0 && power < 1))
      throw new UsageError("--power expects a number between 0 and 1, e.g. 0.8.");
    const trialsText = stringOption(args, "trials");
    const trialCounts =
      trialsText === undefined ? DEFAULT_TRIALS : [parsePositiveInt(trialsText, "--trials")];
    const suiteName = stringOption(args, "suite");
    const settings = settingsFrom(args, io);
    const suite =
      suiteName === undefined
        ? null
        : await loadSuite(suiteName, { evalsDir: settings.evalsDir, cwd: io.cwd });
    const suiteTasks = suite?.taskIds.length ?? null;
    const clusters = await clustersFrom(args, suite);
    const icc = rateOption(args, "icc", { required: false }) ?? DEFAULT_ICC;
    const adjustments: PlanAdjustments = {
      concentration: clusters?.concentration ?? 0,
      icc: clusters === null ? 0 : icc,
      runSd: RUN_TO_RUN_SD,
    };

    const designs = trialCounts.map((trials) => {
      const tasks = adjustedTasksNeeded(
        { trials, baseline, difference, level },
        adjustments,
        power,
      );
      return {
        trials,
        test: testFor(trials),
        tasks,
        independentTasks: tasksNeeded({ trials, baseline, difference, level }, power),
        trialsPerTool: tasks === null ? null : tasks * trials,
        fitsSuite: suiteTasks === null || tasks === null ? null : tasks <= suiteTasks,
      };
    });
    const detectable =
      suiteTasks === null || suiteTasks === 0
        ? []
        : trialCounts.map((trials) => ({
            trials,
            difference: adjustedDetectableDifference(
              { tasks: suiteTasks, trials, baseline, level },
              adjustments,
              power,
            ),
          }));

    if (flagOption(args, "json")) {
      io.stdout.write(
        `${JSON.stringify({ suite: suite?.name ?? null, suiteTasks, baseline, difference, level, power, clusters: clusters === null ? null : { count: clusters.count, source: clusters.source, concentration: clusters.concentration, icc }, runToRunSd: RUN_TO_RUN_SD, designs, detectable }, null, 2)}\n`,
      );
      return 0;
    }
    const head = `Detecting ${points(difference)} points over a ${percent(baseline)} baseline (${percent(baseline + difference)} against ${percent(baseline)}) at ${percent(power)} power, level ${String(level)}, with the paired tests lab report uses:`;
    const header = [
      "trials per task",
      "test",
      "tasks needed",
      "trials per tool",
      "independent tasks",
    ];
    if (suite !== null) header.push(`${suite.name} (${String(suiteTasks)} tasks)`);
    const rows = designs.map((design) => {
      const row = [
        String(design.trials),
        TEST_NAMES[design.test],
        design.tasks === null
          ? design.independentTasks === null
            ? "over 1 000 000"
            : "none enough"
          : String(design.tasks),
        design.trialsPerTool === null ? "–" : String(design.trialsPerTool),
        design.independentTasks === null ? "over 1 000 000" : String(design.independentTasks),
      ];
      if (suite !== null) row.push(design.fitsSuite === true ? "enough" : "too few");
      return row;
    });
    const lines = [
      head,
      "",
      renderMarkdownTable(header, rows, [true, false, true, true, true, false]),
      "",
    ];
    if (suite !== null && detectable.length > 0) {
      const found = detectable.map(
        ({ trials, difference: smallest }) =>
          `${smallest === null ? "no difference at all" : `${points(smallest)} points`} with ${String(trials)} trial${trials === 1 ? "" : "s"} per task`,
      );
      lines.push(
        `With its ${String(suiteTasks)} tasks, ${suite.name} detects at ${percent(power)} power, over ${percent(baseline)}: ${found.join("; ")}.`,
        "",
      );
    }
    lines.push(
      "The model: every task resolved at the same rate by each tool, trials and tools independent. Tools that fail the same hard tasks need fewer tasks than this, so the figures are on the safe side.",
      "",
      `${clusters === null ? "Tasks taken as independent of their repository (no --clusters, and no suite with tasks in several repositories)" : `Tasks in ${String(clusters.count)} repositories (${clusters.source}), intraclass correlation ${String(icc)}: tasks needed include the design effect`}; each tool's run-to-run standard deviation is floored at ${String(RUN_TO_RUN_SD * 100)} points (arXiv 2602.07150). Independent tasks: what the model alone needs.${designs.some((design) => design.tasks === null && design.independentTasks !== null) ? " None enough: the run-to-run floor or the repositories cap what more tasks can add; run more trials per task, or add repositories." : ""}`,
      "",
    );
    io.stdout.write(lines.join("\n"));
    return 0;
  },
});

/** How the planned tasks cluster: --clusters G, else the suite's own repositories; null for neither. */
async function clustersFrom(
  args: ParsedArgs,
  suite: Suite | null,
): Promise<{ count: number; concentration: number; source: string } | null> {
  const text = stringOption(args, "clusters");
  if (text !== undefined) {
    const count = parsePositiveInt(text, "--clusters");
    return count < 2 ? null : { count, concentration: 1 / count, source: "--clusters" };
  }
  if (suite === null) return null;
  const sizes = new Map<string, number>();
  for (const id of suite.taskIds) {
    const { repo } = (await loadTask(suite, id)).info;
    sizes.set(repo, (sizes.get(repo) ?? 0) + 1);
  }
  // One repository, or every task in its own: nothing clusters.
  if (sizes.size < 2 || sizes.size >= suite.taskIds.length) return null;
  return {
    count: sizes.size,
    concentration: clusterConcentration([...sizes.values()]),
    source: `${suite.name}'s own`,
  };
}
