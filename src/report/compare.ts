/**
 * Paired comparisons of tools: McNemar, Wilcoxon signed-rank, Holm, and the verdicts built on
 * them. Pure functions, tested against scipy and statsmodels like stats.ts. Distributions come
 * from stdlib; only the exact signed-rank null distribution (a counting recurrence, no
 * approximation) is computed here.
 */
import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import {
  at,
  checkCount,
  checkPaired,
  mean,
  pairedBootstrapDifference,
  type BootstrapOptions,
  type Interval,
  type TaskTally,
  type TaskTallies,
} from "./stats.js";

/**
 * Exact McNemar p-value from the discordant counts b and c: a two-sided binomial test of
 * min(b, c) in b + c at 1/2, capped at 1; matches statsmodels mcnemar(table, exact=True).
 */
export function mcnemarExact(b: number, c: number): number {
  checkCount(Math.min(b, c), b + c);
  if (b + c === 0) return 1;
  return Math.min(1, 2 * binomialCdf(Math.min(b, c), b + c, 0.5));
}

/** How the signed-rank p-value was found, in scipy's terms. */
export type WilcoxonMethod = "exact" | "permutation" | "normal" | "none";

/** A Wilcoxon signed-rank test's result. */
export interface WilcoxonResult {
  /** min(R+, R-), as scipy reports for a two-sided test. */
  readonly statistic: number;
  readonly pValue: number;
  readonly method: WilcoxonMethod;
}

/**
 * Two-sided Wilcoxon signed-rank test on paired values; matches scipy.stats.wilcoxon(x, y) (1.17)
 * defaults: zeros dropped, average ranks for ties, no continuity correction. Like scipy's
 * method="auto" it is exact for up to 50 pairs without ties or zeros, an exact permutation test
 * (the null of the tied ranks) for up to 13 pairs with them, and the tie-corrected normal
 * approximation otherwise. When every difference is zero it returns p = 1 ("none") where scipy
 * gives NaN for more than 13 pairs.
 */
export function wilcoxonSignedRank(x: readonly number[], y: readonly number[]): WilcoxonResult {
  checkPaired(x, y);
  const differences = x.map((value, i) => value - at(y, i));
  const nonZero = differences.filter((d) => d !== 0);
  const { ranks, tieSizes } = averageRanks(nonZero.map(Math.abs));
  let positive = 0;
  let total = 0;
  nonZero.forEach((d, i) => {
    const rank = at(ranks, i);
    total += rank;
    if (d > 0) positive += rank;
  });
  const statistic = Math.min(positive, total - positive);
  if (nonZero.length === 0) return { statistic, pValue: 1, method: "none" };

  const hasTiesOrZeros = tieSizes.some((size) => size > 1) || nonZero.length < differences.length;
  if (differences.length <= 50 && !hasTiesOrZeros) {
    return { statistic, pValue: signedRankExactP(ranks, positive), method: "exact" };
  }
  // 2^13 sign patterns fit in scipy's 9999 permutations, so its permutation test is exact there.
  if (differences.length <= 13) {
    return { statistic, pValue: signedRankExactP(ranks, positive), method: "permutation" };
  }
  const n = nonZero.length;
  const expected = (n * (n + 1)) / 4;
  const tieCorrection = tieSizes.reduce((sum, t) => sum + t ** 3 - t, 0);
  const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieCorrection / 2) / 24);
  const z = (positive - expected) / se;
  return { statistic, pValue: Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1)), method: "normal" };
}

/** Holm's step-down adjusted p-values, in the input's order; matches statsmodels multipletests(method="holm"). */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((i, j) => at(pValues, i) - at(pValues, j));
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * at(pValues, index)));
    adjusted[index] = running;
  });
  return adjusted;
}

/**
 * A comparison's plain-words outcome, read as "a is ... b"; "not_significant" when the data do
 * not show a difference at the level (never "tied": 2/2 against 0/2 is not a tie, only too
 * little to tell); "not_compared" when the tools share no graded task, so there is nothing to test.
 */
export type Verdict = "better" | "not_significant" | "worse" | "not_compared";

/** A verdict as a table shows it. */
export function verdictWords(verdict: Verdict): string {
  if (verdict === "not_compared") return "not compared";
  return verdict === "not_significant" ? "not significantly different" : verdict;
}

/** "better" or "worse" when p < level, by the sign of the difference a - b; else "not_significant". */
export function decideVerdict(difference: number, pValue: number, level = 0.05): Verdict {
  if (!(pValue < level) || difference === 0 || Number.isNaN(difference)) return "not_significant";
  return difference > 0 ? "better" : "worse";
}

/** How two tools are compared. */
export interface CompareOptions extends BootstrapOptions {
  /** Significance level of the verdict; 0.05 by default. */
  readonly level?: number;
}

/** Tool a against tool b on the tasks both attempted. */
export interface PairComparison {
  /** Tasks with graded trials from both tools; the only ones counted. */
  readonly tasks: number;
  /** Mean per-task resolve rate of each tool on those tasks. */
  readonly aRate: number;
  readonly bRate: number;
  /** aRate - bRate, the effect size. */
  readonly difference: number;
  /** Paired bootstrap interval of the difference. */
  readonly interval: Interval;
  /** Tasks only a resolved and only b resolved (by majority of trials): McNemar's b and c. */
  readonly aOnly: number;
  readonly bOnly: number;
  /** aOnly / bOnly: Infinity when bOnly is 0, NaN when both are. */
  readonly oddsRatio: number;
  readonly pMcnemar: number;
  readonly pWilcoxon: number;
  readonly wilcoxonMethod: WilcoxonMethod;
  /** McNemar when every task has one trial per tool, Wilcoxon on per-task rates otherwise. */
  readonly test: "mcnemar" | "wilcoxon";
  /** The chosen test's p-value, before any correction. */
  readonly pValue: number;
  /** pValue after Holm's correction over all pairs compared (equal to pValue for one pair). */
  readonly pAdjusted: number;
  readonly verdict: Verdict;
}

/**
 * The tallies of the tasks both tools have graded trials on, in task id order: sorted, so the
 * bootstrap's resamples do not depend on the order the tallies were read in.
 */
export function sharedTallies(a: TaskTallies, b: TaskTallies): [TaskTally, TaskTally][] {
  const pairs: [TaskTally, TaskTally][] = [];
  for (const id of [...a.keys()].sort()) {
    const ta = a.get(id);
    const tb = b.get(id);
    if (ta !== undefined && tb !== undefined && ta.trials > 0 && tb.trials > 0)
      pairs.push([ta, tb]);
  }
  return pairs;
}

/**
 * Compares a with b on the tasks both attempted (ids present in both with at least one trial).
 * With no such task there is nothing to compare: rates, interval and p-values are NaN (null in
 * JSON) and the verdict is "not_compared", never a p = 1 "not_significant".
 */
export function comparePair(
  a: TaskTallies,
  b: TaskTallies,
  options: CompareOptions = {},
): PairComparison {
  const tallyPairs = sharedTallies(a, b);
  const aRates = tallyPairs.map(([ta]) => ta.resolved / ta.trials);
  const bRates = tallyPairs.map(([, tb]) => tb.resolved / tb.trials);
  const aOnly = aRates.filter((rate, i) => rate > 0.5 && at(bRates, i) <= 0.5).length;
  const bOnly = aRates.filter((rate, i) => rate <= 0.5 && at(bRates, i) > 0.5).length;
  const pMcnemar = mcnemarExact(aOnly, bOnly);
  const wilcoxon = wilcoxonSignedRank(aRates, bRates);
  const isSingleTrial = tallyPairs.every(([ta, tb]) => ta.trials === 1 && tb.trials === 1);
  const test = isSingleTrial ? "mcnemar" : "wilcoxon";
  const pValue = isSingleTrial ? pMcnemar : wilcoxon.pValue;
  const aRate = mean(aRates);
  const bRate = mean(bRates);
  const difference = aRate - bRate;
  if (tallyPairs.length === 0) {
    return {
      tasks: 0,
      aRate,
      bRate,
      difference,
      interval: { low: Number.NaN, high: Number.NaN },
      aOnly: 0,
      bOnly: 0,
      oddsRatio: Number.NaN,
      pMcnemar: Number.NaN,
      pWilcoxon: Number.NaN,
      wilcoxonMethod: "none",
      test,
      pValue: Number.NaN,
      pAdjusted: Number.NaN,
      verdict: "not_compared",
    };
  }
  return {
    tasks: tallyPairs.length,
    aRate,
    bRate,
    difference,
    interval: pairedBootstrapDifference(aRates, bRates, options),
    aOnly,
    bOnly,
    oddsRatio: aOnly / bOnly,
    pMcnemar,
    pWilcoxon: wilcoxon.pValue,
    wilcoxonMethod: wilcoxon.method,
    test,
    pValue,
    pAdjusted: pValue,
    verdict: decideVerdict(difference, pValue, options.level),
  };
}

/** One pair of named tools, compared. */
export interface NamedComparison extends PairComparison {
  readonly a: string;
  readonly b: string;
}

/**
 * Compares every pair of tools (in the order given, a before b), applying Holm's correction
 * over the pairs compared (those sharing a task) when more than two tools are compared.
 */
export function compareTools(
  tools: ReadonlyMap<string, TaskTallies>,
  options: CompareOptions = {},
): NamedComparison[] {
  const names = [...tools.keys()];
  const pairs: NamedComparison[] = [];
  names.forEach((a, i) => {
    for (const b of names.slice(i + 1)) {
      const comparison = comparePair(tools.get(a) ?? new Map(), tools.get(b) ?? new Map(), options);
      pairs.push({ a, b, ...comparison });
    }
  });
  if (names.length <= 2) return pairs;
  // A pair that shares no task is not a test: it is left out of Holm's family.
  const tested = pairs.filter((pair) => pair.verdict !== "not_compared");
  const adjusted = holmAdjust(tested.map((pair) => pair.pValue));
  return pairs.map((pair) => {
    const index = tested.indexOf(pair);
    if (index === -1) return pair;
    const pAdjusted = at(adjusted, index);
    return {
      ...pair,
      pAdjusted,
      verdict: decideVerdict(pair.difference, pAdjusted, options.level),
    };
  });
}

/** Average ranks (1-based) of the values, and the size of each group of equal values. */
function averageRanks(values: readonly number[]): { ranks: number[]; tieSizes: number[] } {
  const order = values.map((_, i) => i).sort((i, j) => at(values, i) - at(values, j));
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let start = 0; start < order.length;) {
    let end = start + 1;
    while (end < order.length && at(values, at(order, end)) === at(values, at(order, start))) end++;
    for (let i = start; i < end; i++) ranks[at(order, i)] = (start + 1 + end) / 2;
    tieSizes.push(end - start);
    start = end;
  }
  return { ranks, tieSizes };
}

/**
 * Two-sided p-value of R+ against its null of 2^n equally likely sign patterns of the ranks:
 * 2 * min(P(R+ <= observed), P(R+ >= observed)), capped at 1. Ranks are doubled so average
 * ranks of ties stay integers; counts stay exact in a double up to 2^53 patterns.
 */
function signedRankExactP(ranks: readonly number[], positive: number): number {
  const doubled = ranks.map((rank) => Math.round(rank * 2));
  const total = doubled.reduce((sum, rank) => sum + rank, 0);
  const counts = new Float64Array(total + 1);
  counts[0] = 1;
  for (const rank of doubled) {
    for (let sum = total; sum >= rank; sum--)
      counts[sum] = at(counts, sum) + at(counts, sum - rank);
  }
  const observed = Math.round(positive * 2);
  let below = 0;
  let above = 0;
  counts.forEach((count, sum) => {
    if (sum <= observed) below += count;
    if (sum >= observed) above += count;
  });
  return Math.min(1, (2 * Math.min(below, above)) / 2 ** ranks.length);
}
