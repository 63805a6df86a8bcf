/**
 * The report's statistics: pure functions over numbers, no I/O.
 * Each one names the reference it is tested against in test/fixtures/stats/reference.py.
 * The tests and verdicts that compare tools are in compare.ts.
 */
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
  return percentileOfSorted(Float64Array.from(values).sort(), p);
}

/** percentile() of values already in ascending order (a typed array sorts numbers fastest). */
function percentileOfSorted(sorted: Float64Array, p: number): number {
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

/** A resolve rate that weighs each task the same, and the trials it is worth. */
export interface TaskWeightedRate {
  /** The mean over tasks of each task's resolved / trials; NaN with no task. */
  readonly rate: number;
  /**
   * Kish's effective number of trials, T^2 / sum(1 / n_t) for T tasks of n_t trials: every
   * trial counts 1 / n_t, so with equal counts it is the number of trials itself.
   */
  readonly effectiveTrials: number;
}

/**
 * The resolve rate of tasks with possibly unequal trial counts, each task weighing the same
 * (as the bootstrap over tasks and the paired comparisons weigh them). With equal counts it is
 * resolved / trials, computed that way so it matches bit for bit.
 */
export function taskWeightedRate(tallies: readonly TaskTally[]): TaskWeightedRate {
  const counted = tallies.filter((tally) => tally.trials > 0);
  if (counted.length === 0) return { rate: Number.NaN, effectiveTrials: 0 };
  const first = counted[0]?.trials ?? 0;
  if (counted.every((tally) => tally.trials === first)) {
    const resolved = counted.reduce((sum, tally) => sum + tally.resolved, 0);
    return { rate: resolved / (first * counted.length), effectiveTrials: first * counted.length };
  }
  let rates = 0;
  let inverse = 0;
  for (const tally of counted) {
    rates += tally.resolved / tally.trials;
    inverse += 1 / tally.trials;
  }
  return { rate: rates / counted.length, effectiveTrials: counted.length ** 2 / inverse };
}

/**
 * The Wilson score interval of a rate measured over n trials, where n may be an effective
 * (fractional) count: the same formula as wilsonInterval with p = rate. {0, 1} when n = 0.
 */
export function wilsonIntervalOfRate(rate: number, n: number, confidence = 0.95): Interval {
  checkConfidence(confidence);
  if (!(n > 0) || Number.isNaN(rate)) return { low: 0, high: 1 };
  if (rate < 0 || rate > 1) throw new RangeError(`rate must be in 0..1, got ${rate}`);
  const z = normalQuantile(1 - (1 - confidence) / 2, 0, 1);
  const denominator = 1 + (z * z) / n;
  const center = (rate + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((rate * (1 - rate)) / n + (z * z) / (4 * n * n))) / denominator;
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
  let estimates: number[];
  if (statistic === mean) {
    estimates = bootstrapMeans(values, resamples, seed);
  } else {
    const random = createRandom(seed);
    const sample = new Array<number>(values.length);
    estimates = new Array<number>(resamples);
    for (let r = 0; r < resamples; r++) {
      for (let i = 0; i < values.length; i++) {
        sample[i] = at(values, Math.floor(random() * values.length));
      }
      estimates[r] = statistic(sample);
    }
  }
  const tail = ((1 - confidence) / 2) * 100;
  const sorted = Float64Array.from(estimates).sort();
  return { low: percentileOfSorted(sorted, tail), high: percentileOfSorted(sorted, 100 - tail) };
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

/** The resample indices last drawn, kept because a report draws the same ones many times. */
let lastDraw: {
  seed: number;
  n: number;
  resamples: number;
  indices: Uint16Array | Uint32Array;
} | null = null;

/** The largest draw kept: 2^25 indices, 64 MB at most. */
const MAX_KEPT_DRAW = 2 ** 25;

/**
 * The indices of `resamples` resamples of n values: mulberry32's draws, in the order the general
 * loop makes them. They depend only on (seed, n, resamples), and a report bootstraps every tool
 * and every pair of tools over the same tasks with the same seed, so the last draw is kept.
 */
function drawIndices(n: number, resamples: number, seed: number): Uint16Array | Uint32Array {
  if (lastDraw?.seed === seed && lastDraw.n === n && lastDraw.resamples === resamples)
    return lastDraw.indices;
  const indices = n <= 65_536 ? new Uint16Array(n * resamples) : new Uint32Array(n * resamples);
  let state = seed >>> 0;
  for (let i = 0; i < indices.length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    indices[i] = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  }
  lastDraw = indices.length <= MAX_KEPT_DRAW ? { seed, n, resamples, indices } : null;
  return indices;
}

/**
 * The means of bootstrap resamples, bit for bit what the general loop gives with `mean` (same
 * draws, same order of additions), several times faster: the draws are made once per
 * (seed, n, resamples) and no sample array is built. This keeps a report over 100 000 trials,
 * with a bootstrap per tool and per pair of tools, within its time budget.
 */
function bootstrapMeans(values: readonly number[], resamples: number, seed: number): number[] {
  const n = values.length;
  const copy = Float64Array.from(values);
  const indices = drawIndices(n, resamples, seed);
  const estimates = new Array<number>(resamples);
  for (let r = 0, offset = 0; r < resamples; r++, offset += n) {
    let sum = 0;
    // Plain indexing: the generic at() turns megamorphic over the array types and is 3x slower.
    for (let i = 0; i < n; i++) sum += copy[indices[offset + i] as number] as number;
    estimates[r] = sum / n;
  }
  return estimates;
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
export function at<T>(items: ArrayLike<T>, index: number): T {
  return items[index] as T;
}

/** Throws unless 0 <= successes <= n, both whole. */
export function checkCount(successes: number, n: number): void {
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

/** Throws unless the paired samples have the same length. */
export function checkPaired(a: readonly number[], b: readonly number[]): void {
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
