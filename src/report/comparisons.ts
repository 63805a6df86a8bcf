/**
 * The report's paired comparisons as it states them: each pair's test (compare.ts), the
 * interval shown with the verdict, adjusted as its p-value is, the smallest difference the pair
 * could have found, and the verdict in words. When the interval and the test still part (they
 * are different methods), the sentence says why.
 */
import {
  clusterCount,
  clusteredStandardError,
  clusterPairedBootstrapDifference,
  widening,
  WIDENING_WORTH_SAYING,
} from "./cluster.js";
import { compareTools, sharedTallies, type NamedComparison, verdictWords } from "./compare.js";
import { percent, points, pValue } from "./format.js";
import { minimumDetectableDifference } from "./power.js";
import { pairedBootstrapDifference, type Interval, type TaskTallies } from "./stats.js";
import type { Clustering } from "./summary.js";

/** The smallest difference a pair's tasks and trials detect with 80% power. */
export interface DetectableDifference {
  /** In rate (0.15 is 15 points); null when even a rate of 100% would not be found. */
  readonly difference: number | null;
  /** The rate it is measured up from: the lower of the two tools' rates. */
  readonly baseline: number;
  /** Trials per task it assumes: 1 for McNemar's test, else the fewest either tool has on a shared task. */
  readonly trials: number;
  readonly power: number;
}

/** A pair's difference with its tasks' clustering respected. */
export interface ClusteredDifference {
  /** "repo" or the metadata field clustered by. */
  readonly field: string;
  /** Clusters among the pair's shared tasks. */
  readonly clusters: number;
  /** Cluster-robust (CR1) standard error of the difference. */
  readonly se: number | null;
  /** Cluster-paired bootstrap interval (clusters, then tasks) at the verdict's confidence. */
  readonly interval: Interval;
  /** Its width over the task-level interval's. */
  readonly widening: number;
}

/** A pair of tools compared, with the verdict in words. */
export interface ComparisonReport extends NamedComparison {
  /** pAdjusted is Holm's correction over every pair compared. */
  readonly isHolmAdjusted: boolean;
  /**
   * The interval shown with the verdict, at the confidence the pair's test is held to
   * (1 - level, or Holm's step 1 - level / (m - j) for the pair ranked j of m): the
   * cluster-paired bootstrap when the tasks are clustered, else the paired bootstrap over tasks.
   */
  readonly verdictInterval: Interval;
  /** Which interval the verdict rests on. */
  readonly verdictIntervalKind: "tasks" | "clusters";
  /** The paired bootstrap over tasks at the verdict's confidence, kept beside a clustered one. */
  readonly taskInterval: Interval;
  /** The difference with clustering respected; null when the tasks are not clustered. */
  readonly clustered: ClusteredDifference | null;
  readonly verdictConfidence: number;
  /** Why the verdict and its interval disagree, when they do; null when they agree. */
  readonly discrepancy: string | null;
  /** The smallest difference these tasks and trials could detect at 80% power; null when not compared. */
  readonly detectable: DetectableDifference | null;
  readonly sentence: string;
}

/** How the comparisons are made. */
export interface ComparisonOptions {
  readonly level: number;
  readonly resamples: number;
  readonly seed: number;
  /** How tasks cluster (repositories); null or absent: task-level only. */
  readonly clustering?: Clustering | null;
}

function testName(comparison: NamedComparison): string {
  return comparison.test === "mcnemar" ? "McNemar exact test" : "Wilcoxon signed-rank test";
}

/** "95%", "98.3%": a confidence as a sentence shows it. */
export function confidenceText(confidence: number): string {
  const value = Number((confidence * 100).toFixed(1));
  return `${String(value)}%`;
}

/** The rate difference a + b share, and what the verdict's interval is held to. */
function holmConfidences(compared: readonly NamedComparison[], level: number): number[] {
  const tested = compared
    .map((comparison, index) => ({ comparison, index }))
    .filter(({ comparison }) => comparison.verdict !== "not_compared");
  const m = tested.length;
  const confidences = compared.map(() => 1 - level);
  if (m <= 1) return confidences;
  [...tested]
    .sort((x, y) => x.comparison.pValue - y.comparison.pValue || x.index - y.index)
    .forEach(({ index }, rank) => {
      confidences[index] = 1 - level / (m - rank);
    });
  return confidences;
}

/**
 * Why the interval and the verdict part, in one sentence; null when they agree. They can: the
 * interval is a percentile bootstrap over tasks, the verdict an exact or rank test, and Holm's
 * procedure stops at the first pair it cannot call different.
 */
function explainDiscrepancy(
  comparison: NamedComparison,
  interval: Interval,
  confidence: number,
  level: number,
  stoppedAt: NamedComparison | null,
  clustered: ClusteredDifference | null = null,
): string | null {
  if (comparison.verdict === "not_compared") return null;
  const excludesZero = interval.low > 0 || interval.high < 0;
  const isDifferent = comparison.verdict === "better" || comparison.verdict === "worse";
  if (excludesZero === isDifferent) return null;
  const ci = `${confidenceText(confidence)} interval`;
  const discordant = comparison.aOnly + comparison.bOnly;
  const resampled =
    clustered === null
      ? "a bootstrap"
      : `a cluster-paired bootstrap (${String(clustered.clusters)} ${clusterWordsOf(clustered.field, clustered.clusters)}, then tasks)`;
  const methods =
    comparison.test === "mcnemar"
      ? `the interval is ${resampled} over all ${String(comparison.tasks)} tasks, while McNemar's exact test weighs only the ${String(discordant)} task${discordant === 1 ? "" : "s"} where exactly one tool resolved`
      : `the interval is ${resampled} of the mean difference over ${String(comparison.tasks)} tasks, while the Wilcoxon test ranks the per-task differences`;
  if (isDifferent)
    return `The ${ci} reaches 0 although the test finds a difference: ${methods}; at this edge the two part, and the verdict follows the test.`;
  if (stoppedAt !== null)
    return `The ${ci} excludes 0, but Holm's procedure stopped at ${stoppedAt.a} vs ${stoppedAt.b}, a pair with a smaller p-value that it could not call different, so this pair is not called different either.`;
  // With d discordant tasks McNemar's exact p cannot go below 2 / 2^d.
  const floor = Math.min(1, 2 * 0.5 ** discordant);
  if (comparison.test === "mcnemar" && floor >= level)
    return `The ${ci} excludes 0, but with ${String(discordant)} task${discordant === 1 ? "" : "s"} where exactly one tool resolved, McNemar's exact test cannot reach the ${String(level)} level (its smallest p is ${pValue(floor).replace("p = ", "")}); the ${clustered === null ? "bootstrap over tasks" : "cluster-paired bootstrap"} has no such floor, and the verdict follows the test.`;
  return `The ${ci} excludes 0, but the test does not reach the ${String(level)} level (${pValue(comparison.pAdjusted)}): ${methods}, and with so few the test is the stricter; the verdict follows the test.`;
}

/** The verdict in plain words, naming first the tool with the higher resolve rate. */
export function describeComparison(
  comparison: NamedComparison,
  interval: Interval,
  confidence: number,
  level: number,
  pairs: number,
  clustered: ClusteredDifference | null = null,
): string {
  const clusterText = clustered === null ? null : clusterIntervalText(clustered);
  const { a, b, tasks, difference } = comparison;
  if (comparison.verdict === "not_compared")
    return `${a} and ${b} have no graded task in common: not compared.`;
  // The tool with the higher rate is named first, so the effect reads as a positive number.
  const isWorse = difference < 0;
  const sign = isWorse ? -1 : 1;
  const low = isWorse ? -interval.high : interval.low;
  const high = isWorse ? -interval.low : interval.high;
  const effect = `${points(sign * difference)} points [${confidenceText(confidence)} CI ${points(low)}, ${points(high)}${clusterText === null ? "" : `, ${clusterText}`}]`;
  const holm = pairs > 1 ? `, Holm-adjusted over ${String(pairs)} pairs` : "";
  const p = `${pValue(comparison.pAdjusted)} (${testName(comparison)}${holm})`;
  const shared = `on ${String(tasks)} shared task${tasks === 1 ? "" : "s"}`;
  const [first, second] = isWorse ? [b, a] : [a, b];
  if (comparison.verdict === "not_significant")
    return `${first} and ${second} are not significantly different (${pValue(comparison.pAdjusted)}, ${testName(comparison)}${holm}, level ${String(level)}): ${effect}, ${shared}.`;
  return `${first} is better than ${second}: ${effect}, ${p}, ${shared}.`;
}

/** "cluster-paired bootstrap over 12 repositories": what a clustered interval resamples. */
function clusterIntervalText(clustered: ClusteredDifference): string {
  return `cluster-paired bootstrap over ${String(clustered.clusters)} ${clusterWordsOf(clustered.field, clustered.clusters)}`;
}

function clusterWordsOf(field: string, count: number): string {
  if (field === "repo") return count === 1 ? "repository" : "repositories";
  return `${field} value${count === 1 ? "" : "s"}`;
}

/**
 * What the clustered interval adds to a pair's sentence: that the verdict rests on it, the
 * task-level interval beside it, its widening when over 1.5x, and a difference the test found
 * that the clustered interval does not bear out.
 */
function describeClustered(
  comparison: NamedComparison,
  clustered: ClusteredDifference,
  taskInterval: Interval,
  confidence: number,
  isOverruled: boolean,
): string {
  const isWorse = comparison.difference < 0;
  const low = isWorse ? -taskInterval.high : taskInterval.low;
  const high = isWorse ? -taskInterval.low : taskInterval.high;
  const words = clusterWordsOf(clustered.field, clustered.clusters);
  const parts = [
    `The verdict rests on the cluster-paired interval (${words} resampled, then tasks within them); over tasks alone the ${confidenceText(confidence)} interval is [${points(low)}, ${points(high)}].`,
  ];
  if (clustered.widening > WIDENING_WORTH_SAYING)
    parts.push(
      `Clustering by ${clusterWordsOf(clustered.field, 1)} widens it ${Number.isFinite(clustered.widening) ? `${clustered.widening.toFixed(1)} times` : "from nothing"}: tasks of one ${clusterWordsOf(clustered.field, 1)} move together.`,
    );
  if (isOverruled)
    parts.push(
      `The ${testName(comparison)} alone finds a difference (${pValue(comparison.pAdjusted)}), but it takes tasks as independent, and the cluster-paired interval reaches 0.`,
    );
  return ` ${parts.join(" ")}`;
}

/** What the pair could detect, as the sentence of a pair not found different adds it. */
function describeDetectable(detectable: DetectableDifference, tasks: number): string {
  const design = `${String(tasks)} task${tasks === 1 ? "" : "s"} of ${String(detectable.trials)} trial${detectable.trials === 1 ? "" : "s"}`;
  return detectable.difference === null
    ? ` With ${design}, no difference from ${percent(detectable.baseline)} would be found 80% of the time.`
    : ` With ${design}, only a difference of ${points(detectable.difference).replace("+", "")} points or more (from ${percent(detectable.baseline)}) would be found 80% of the time.`;
}

/**
 * Compares every pair of tools (tallies in report order) and states each comparison: the
 * verdict's interval at its test's confidence, a discrepancy explained, what it could detect.
 */
export function buildComparisons(
  tallies: ReadonlyMap<string, TaskTallies>,
  options: ComparisonOptions,
): ComparisonReport[] {
  const { level, resamples, seed } = options;
  const clustering = options.clustering ?? null;
  const compared = compareTools(tallies, { level, resamples, seed });
  const tested = compared.filter((comparison) => comparison.verdict !== "not_compared");
  const isHolmAdjusted = tallies.size > 2;
  const pairs = isHolmAdjusted ? tested.length : 1;
  const confidences = holmConfidences(compared, level);
  const byP = [...tested].sort((x, y) => x.pValue - y.pValue);
  return compared.map((pair, index) => {
    let comparison = pair;
    const confidence = confidences[index] ?? 1 - level;
    const aTallies = tallies.get(comparison.a) ?? new Map();
    const bTallies = tallies.get(comparison.b) ?? new Map();
    const shared = sharedTallies(aTallies, bTallies);
    const aRates = shared.map(([ta]) => ta.resolved / ta.trials);
    const bRates = shared.map(([, tb]) => tb.resolved / tb.trials);
    const taskInterval =
      comparison.verdict === "not_compared" || Math.abs(confidence - 0.95) < 1e-12
        ? comparison.interval
        : pairedBootstrapDifference(aRates, bRates, { resamples, seed, confidence });
    const clustered =
      comparison.verdict === "not_compared" || clustering === null
        ? null
        : clusterDifference(
            aRates,
            bRates,
            sharedIds(aTallies, bTallies).map(clustering.clusterOf),
            clustering.field,
            taskInterval,
            { resamples, seed, confidence },
          );
    const verdictInterval = clustered?.interval ?? taskInterval;
    // With clustered tasks a difference stands only when the cluster-paired interval bears it out.
    const isOverruled =
      clustered !== null &&
      (comparison.verdict === "better" || comparison.verdict === "worse") &&
      verdictInterval.low <= 0 &&
      verdictInterval.high >= 0;
    if (isOverruled) comparison = { ...comparison, verdict: "not_significant" };
    // Holm stops at the first pair, by p-value, it cannot call different.
    const firstKept = byP.find((pair) => pair.verdict === "not_significant");
    const stoppedAt =
      isHolmAdjusted &&
      firstKept !== undefined &&
      firstKept !== comparison &&
      byP.indexOf(firstKept) < byP.indexOf(comparison)
        ? firstKept
        : null;
    const discrepancy = explainDiscrepancy(
      comparison,
      verdictInterval,
      confidence,
      level,
      stoppedAt,
      clustered,
    );
    const trials =
      comparison.test === "mcnemar"
        ? 1
        : shared.reduce((fewest, [ta, tb]) => Math.min(fewest, ta.trials, tb.trials), Infinity);
    const detectable: DetectableDifference | null =
      comparison.verdict === "not_compared"
        ? null
        : {
            difference: minimumDetectableDifference({
              tasks: comparison.tasks,
              trials,
              baseline: Math.min(comparison.aRate, comparison.bRate),
              level,
            }),
            baseline: Math.min(comparison.aRate, comparison.bRate),
            trials,
            power: 0.8,
          };
    const sentence =
      describeComparison(comparison, verdictInterval, confidence, level, pairs, clustered) +
      (clustered === null
        ? ""
        : describeClustered(comparison, clustered, taskInterval, confidence, isOverruled)) +
      (discrepancy === null ? "" : ` ${discrepancy}`) +
      (comparison.verdict === "not_significant" && detectable !== null
        ? describeDetectable(detectable, comparison.tasks)
        : "");
    return {
      ...comparison,
      isHolmAdjusted,
      verdictInterval,
      verdictIntervalKind: clustered === null ? "tasks" : "clusters",
      taskInterval,
      clustered,
      verdictConfidence: confidence,
      discrepancy,
      detectable,
      sentence,
    };
  });
}

/** A difference with its verdict interval, in points: "+5.0 [-10.0, +20.0]"; "–" when not compared. */
export function describeDifference(comparison: ComparisonReport): string {
  if (comparison.verdict === "not_compared") return "–";
  const { difference, verdictInterval: interval } = comparison;
  return `${points(difference)} [${points(interval.low)}, ${points(interval.high)}]`;
}

/** The verdict of a comparison as a table cell. */
export function verdictCell(comparison: ComparisonReport): string {
  return verdictWords(comparison.verdict);
}

/** The ids of the tasks both tools have graded trials on, in sharedTallies' order. */
function sharedIds(a: TaskTallies, b: TaskTallies): string[] {
  return [...a.keys()]
    .sort()
    .filter((id) => (a.get(id)?.trials ?? 0) > 0 && (b.get(id)?.trials ?? 0) > 0);
}

/**
 * The pair's difference over clustered tasks; null when its shared tasks fall in fewer than two
 * clusters, or each in its own (no clustering to respect).
 */
function clusterDifference(
  aRates: readonly number[],
  bRates: readonly number[],
  clusters: readonly string[],
  field: string,
  taskInterval: Interval,
  options: { resamples: number; seed: number; confidence: number },
): ClusteredDifference | null {
  const count = clusterCount(clusters);
  if (count < 2 || count >= clusters.length) return null;
  const interval = clusterPairedBootstrapDifference(aRates, bRates, clusters, options);
  const se = clusteredStandardError(
    aRates.map((rate, i) => rate - (bRates[i] ?? 0)),
    clusters,
  );
  return {
    field,
    clusters: count,
    se: Number.isFinite(se) ? se : null,
    interval,
    widening: widening(interval, taskInterval),
  };
}
