/**
 * The report's statistics: pure functions over numbers, no I/O.
 * Each one names the reference it is tested against in test/fixtures/stats/reference.py.
 * Distributions come from stdlib; only the exact signed-rank null distribution (a counting
 * recurrence, no approximation) is computed here.
 */
import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";

/** A two-sided interval. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** How a percentile bootstrap resamples. */
export interface BootstrapOptions {
  /** Number of resamples; 10 000 by default. */
  readonly resamples?: number;
  /** Coverage of the interval; 0.95 by default. */
  readonly confidence?: number;
  /** Seed of the generator, so a report is the same every time it is made; 0 by default. */
  readonly seed?: number;
}

/** The arithmetic mean, NaN when there are no values; matches numpy.mean. */
export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return values.length === 0 ? Number.NaN : sum / values.length;
}

/** The median, NaN when there are no values; matches numpy.median. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The p-th percentile (p in 0..100) by linear interpolation; matches numpy.percentile's default. */
export function percentile(values: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile: p must be in 0..100, got ${p}`);
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const position = ((sorted.length - 1) * p) / 100;
  const below = Math.floor(position);
  const low = at(sorted, below);
  const high = at(sorted, Math.min(below + 1, sorted.length - 1));
  return low + (high - low) * (position - below);
}

/** The sample variance (n - 1 in the denominator), NaN below two values; matches numpy.var(ddof=1). */
export function sampleVariance(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const center = mean(values);
  let sum = 0;
  for (const value of values) sum += (value - center) ** 2;
  return sum / (values.length - 1);
}

/** Count, mean, median and 90th percentile of some measurements (latency, tokens, cost). */
export function describeValues(values: readonly number[]): {
  readonly n: number;
  readonly mean: number;
  readonly median: number;
  readonly p90: number;
} {
  return {
    n: values.length,
    mean: mean(values),
    median: median(values),
    p90: percentile(values, 90),
  };
}

/**
 * Wilson score interval for a proportion; {0, 1} when n = 0.
 * Matches statsmodels proportion_confint(method="wilson") and scipy binomtest().proportion_ci.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Interval {
  checkCount(successes, n);
  checkConfidence(confidence);
  if (n === 0) return { low: 0, high: 1 };
  const z = normalQuantile(1 - (1 - confidence) / 2, 0, 1);
  const share = successes / n;
  const denominator = 1 + (z * z) / n;
  const center = (share + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((share * (1 - share)) / n + (z * z) / (4 * n * n))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/**
 * Percentile bootstrap interval of a statistic, resampling the values with replacement.
 * Agrees with scipy.stats.bootstrap(method="percentile") up to resampling noise; the same seed
 * gives the same interval. NaN bounds when there are no values.
 */
export function bootstrapInterval(
  values: readonly number[],
  statistic: (sample: readonly number[]) => number,
  options: BootstrapOptions = {},
): Interval {
  const { resamples = 10_000, confidence = 0.95, seed = 0 } = options;
  checkConfidence(confidence);
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`bootstrap: resamples must be a positive integer, got ${resamples}`);
  }
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN };
  const random = createRandom(seed);
  const sample = new Array<number>(values.length);
  const estimates = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++) {
      sample[i] = at(values, Math.floor(random() * values.length));
    }
    estimates[r] = statistic(sample);
  }
  const tail = ((1 - confidence) / 2) * 100;
  return { low: percentile(estimates, tail), high: percentile(estimates, 100 - tail) };
}

/** Bootstrap interval of a suite's resolve rate, resampling tasks (one rate per task). */
export function bootstrapResolveRate(
  perTaskRates: readonly number[],
  options: BootstrapOptions = {},
): Interval {
  return bootstrapInterval(perTaskRates, mean, options);
}

/**
 * Bootstrap interval of mean(a - b), resampling tasks so each keeps its pair; matches
 * scipy.stats.bootstrap(paired=True, method="percentile") up to resampling noise.
 */
export function pairedBootstrapDifference(
  a: readonly number[],
  b: readonly number[],
  options: BootstrapOptions = {},
): Interval {
  checkPaired(a, b);
  return bootstrapInterval(
    a.map((value, i) => value - at(b, i)),
    mean,
    options,
  );
}

/**
 * Unbiased pass@k from c successes in n trials (Chen et al. 2021): 1 - C(n-c, k) / C(n, k),
 * as a product so large n does not overflow; matches exact binomial coefficients.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkPassArguments(n, c, k);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** pass^k, the chance that k trials drawn without replacement all succeed (tau-bench): C(c, k) / C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  checkPassArguments(n, c, k);
  let allSucceed = 1;
  for (let i = 0; i < k; i++) allSucceed *= (c - i) / (n - i);
  return Math.max(0, allSucceed);
}

/** One tool's graded trials on one task; infra errors are not trials. */
export interface TaskTally {
  /** Trials that resolved the task. */
  readonly resolved: number;
  /** Graded trials. */
  readonly trials: number;
}

/** Per-task tallies keyed by dataset task id. */
export type TaskTallies = ReadonlyMap<string, TaskTally>;

/** A suite's pass@k: the mean over tasks of passAtK; every task needs at least k trials. */
export function meanPassAtK(tallies: readonly TaskTally[], k: number): number {
  return mean(tallies.map((tally) => passAtK(tally.trials, tally.resolved, k)));
}

/** A suite's pass^k: the mean over tasks of passHatK; every task needs at least k trials. */
export function meanPassHatK(tallies: readonly TaskTally[], k: number): number {
  return mean(tallies.map((tally) => passHatK(tally.trials, tally.resolved, k)));
}

/**
 * Share of a task's trials that agree with its majority outcome, max(r, n - r) / n, in 0.5..1.
 * An even split has no majority and scores 0.5, the least consistent a task can be. NaN when empty.
 */
export function consistency(outcomes: readonly boolean[]): number {
  const resolved = outcomes.filter(Boolean).length;
  return Math.max(resolved, outcomes.length - resolved) / outcomes.length;
}

/** Share of consecutive trial pairs (in trial order) whose outcomes differ; 0 below two trials. */
export function flipRate(outcomes: readonly boolean[]): number {
  if (outcomes.length < 2) return 0;
  let flips = 0;
  for (let i = 1; i < outcomes.length; i++) if (outcomes[i] !== outcomes[i - 1]) flips++;
  return flips / (outcomes.length - 1);
}

/** A suite's mean consistency over tasks, each given as its trials' outcomes. */
export function meanConsistency(perTaskOutcomes: readonly (readonly boolean[])[]): number {
  return mean(perTaskOutcomes.map(consistency));
}

/** Variance of the suite's resolve rate across trial numbers (one rate per trial number); ddof = 1. */
export function resolveRateVariance(perTrialRates: readonly number[]): number {
  return sampleVariance(perTrialRates);
}

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

/** A comparison's plain-words outcome, read as "a is ... b". */
export type Verdict = "better" | "tied" | "worse";

/** "better" or "worse" when p < level, by the sign of the difference a - b; otherwise "tied". */
export function decideVerdict(difference: number, pValue: number, level = 0.05): Verdict {
  if (!(pValue < level) || difference === 0 || Number.isNaN(difference)) return "tied";
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
 * Compares a with b on the tasks both attempted (ids present in both with at least one trial).
 * With no such task, rates are NaN, p-values 1 and the verdict "tied".
 */
export function comparePair(
  a: TaskTallies,
  b: TaskTallies,
  options: CompareOptions = {},
): PairComparison {
  // Sorted, so the bootstrap's resamples do not depend on the order the tallies were read in.
  const tallyPairs: [TaskTally, TaskTally][] = [];
  for (const id of [...a.keys()].sort()) {
    const ta = a.get(id);
    const tb = b.get(id);
    if (ta !== undefined && tb !== undefined && ta.trials > 0 && tb.trials > 0) {
      tallyPairs.push([ta, tb]);
    }
  }
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
 * over all pairs when more than two tools are compared.
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
  const adjusted = holmAdjust(pairs.map((pair) => pair.pValue));
  return pairs.map((pair, i) => {
    const pAdjusted = at(adjusted, i);
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

/** mulberry32: a small, fast, seedable generator of uniform numbers in [0, 1). */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Element i, which the caller knows is there. */
function at<T>(items: ArrayLike<T>, index: number): T {
  return items[index] as T;
}

function checkCount(successes: number, n: number): void {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError(
      `expected whole counts with 0 <= successes <= n, got ${successes} of ${n}`,
    );
  }
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be between 0 and 1, got ${confidence}`);
  }
}

function checkPaired(a: readonly number[], b: readonly number[]): void {
  if (a.length !== b.length) {
    throw new RangeError(`paired samples differ in length: ${a.length} and ${b.length}`);
  }
}

function checkPassArguments(n: number, c: number, k: number): void {
  checkCount(c, n);
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new RangeError(`k must be a whole number in 1..n (n = ${n}), got ${k}`);
  }
}
