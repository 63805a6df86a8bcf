/**
 * Statistics that respect clustering: tasks of one repository (or of one value of a
 * `--cluster FIELD`) are not independent, since a tool's successes on one codebase move
 * together. Pure functions; the standard errors match statsmodels' cluster-robust covariance of
 * an intercept-only OLS (test/fixtures/stats/cluster-reference.py), the two-stage bootstrap a
 * numpy transcription of the same procedure to resampling noise. See docs/design/reports.md.
 */
import { at, checkPaired, type BootstrapOptions, type Interval } from "./stats.js";

/** Tasks grouped by cluster: the indices of each cluster's values, clusters in name order. */
function groupIndices(clusters: readonly string[]): number[][] {
  const groups = new Map<string, number[]>();
  clusters.forEach((cluster, index) => {
    const group = groups.get(cluster);
    if (group === undefined) groups.set(cluster, [index]);
    else group.push(index);
  });
  return [...groups.keys()].sort().map((key) => groups.get(key) ?? []);
}

function checkClusters(values: readonly number[], clusters: readonly string[]): void {
  if (values.length !== clusters.length)
    throw new RangeError(
      `values and clusters differ in length: ${values.length} and ${clusters.length}`,
    );
}

/** The number of distinct clusters. */
export function clusterCount(clusters: readonly string[]): number {
  return new Set(clusters).size;
}

/**
 * The standard error of the mean that treats every value as independent: s / sqrt(n), s with
 * n - 1 in the denominator; statsmodels OLS(y, ones).fit().bse. NaN below two values.
 */
export function naiveStandardError(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  const center = sum / n;
  let squares = 0;
  for (const value of values) squares += (value - center) ** 2;
  return Math.sqrt(squares / (n - 1) / n);
}

/**
 * The cluster-robust (CR1) standard error of the mean: sqrt(G / (G - 1) * sum_g S_g^2) / n, S_g
 * the sum of cluster g's residuals from the mean. This is statsmodels'
 * OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g}).bse, whose small-sample factor
 * G / (G - 1) * (n - 1) / (n - k) is G / (G - 1) for the one parameter. NaN below two clusters:
 * one cluster says nothing about how clusters vary.
 */
export function clusteredStandardError(
  values: readonly number[],
  clusters: readonly string[],
): number {
  checkClusters(values, clusters);
  const groups = groupIndices(clusters);
  const g = groups.length;
  const n = values.length;
  if (g < 2) return Number.NaN;
  let sum = 0;
  for (const value of values) sum += value;
  const center = sum / n;
  let meat = 0;
  for (const group of groups) {
    let residuals = 0;
    for (const index of group) residuals += at(values, index) - center;
    meat += residuals * residuals;
  }
  return Math.sqrt((g / (g - 1)) * meat) / n;
}

/**
 * Two-stage percentile bootstrap interval of the mean: each resample draws G clusters with
 * replacement, then, within each cluster drawn, as many of its values as it has, with
 * replacement; the estimate is the mean of everything drawn. Seeded (mulberry32, as stats.ts),
 * so a report is the same every time. NaN bounds with no values.
 */
export function clusterBootstrapInterval(
  values: readonly number[],
  clusters: readonly string[],
  options: BootstrapOptions = {},
): Interval {
  checkClusters(values, clusters);
  const { resamples = 10_000, confidence = 0.95, seed = 0 } = options;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be between 0 and 1, got ${confidence}`);
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`bootstrap: resamples must be a positive integer, got ${resamples}`);
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN };
  const groups = groupIndices(clusters);
  // Values laid out cluster after cluster, as the draws index them.
  const ordered = Float64Array.from(groups.flat(), (index) => at(values, index));
  const { indices, ends } = drawClusterIndices(
    groups.map((group) => group.length),
    resamples,
    seed,
  );
  const estimates = new Float64Array(resamples);
  for (let r = 0, start = 0; r < resamples; r++) {
    const end = ends[r] as number;
    let sum = 0;
    for (let i = start; i < end; i++) sum += ordered[indices[i] as number] as number;
    estimates[r] = sum / (end - start);
    start = end;
  }
  estimates.sort();
  const tail = ((1 - confidence) / 2) * 100;
  return { low: percentileOf(estimates, tail), high: percentileOf(estimates, 100 - tail) };
}

/** The cluster draws last made, kept because a report draws the same ones for every tool and pair. */
let lastDraw: { key: string; indices: Uint32Array; ends: Uint32Array } | null = null;

/** The largest draw kept: 2^25 indices, 128 MB at most. */
const MAX_KEPT_DRAW = 2 ** 25;

/**
 * The indices of `resamples` two-stage resamples of clusters of these sizes (values laid out
 * cluster after cluster): per resample G clusters with replacement, then within each as many of
 * its values as it has, with replacement; ends[r] is where resample r stops. They depend only
 * on (seed, resamples, sizes), and a report bootstraps every tool and pair over the same tasks,
 * so the last draw is kept (stats.ts keeps its own the same way).
 */
function drawClusterIndices(
  sizes: readonly number[],
  resamples: number,
  seed: number,
): { indices: Uint32Array; ends: Uint32Array } {
  const key = `${String(seed)}/${String(resamples)}/${sizes.join(",")}`;
  if (lastDraw?.key === key) return lastDraw;
  const g = sizes.length;
  const starts: number[] = [];
  let total = 0;
  for (const size of sizes) {
    starts.push(total);
    total += size;
  }
  const random = createRandom(seed);
  let indices = new Uint32Array(Math.max(1, Math.ceil(total * resamples * 1.1)));
  const ends = new Uint32Array(resamples);
  let length = 0;
  for (let r = 0; r < resamples; r++) {
    for (let c = 0; c < g; c++) {
      const cluster = Math.floor(random() * g);
      const size = sizes[cluster] as number;
      const start = starts[cluster] as number;
      if (length + size > indices.length) {
        const grown = new Uint32Array(Math.ceil((length + size) * 1.5));
        grown.set(indices);
        indices = grown;
      }
      for (let i = 0; i < size; i++) indices[length++] = start + Math.floor(random() * size);
    }
    ends[r] = length;
  }
  const draw = { key, indices, ends };
  lastDraw = length <= MAX_KEPT_DRAW ? draw : null;
  return draw;
}

/**
 * The cluster-paired bootstrap interval of mean(a - b): clusters, then tasks within them, each
 * task keeping its pair.
 */
export function clusterPairedBootstrapDifference(
  a: readonly number[],
  b: readonly number[],
  clusters: readonly string[],
  options: BootstrapOptions = {},
): Interval {
  checkPaired(a, b);
  return clusterBootstrapInterval(
    a.map((value, i) => value - at(b, i)),
    clusters,
    options,
  );
}

/** numpy.percentile's linear interpolation over sorted values. */
function percentileOf(sorted: Float64Array, p: number): number {
  const position = ((sorted.length - 1) * p) / 100;
  const below = Math.floor(position);
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return low + (high - low) * (position - below);
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

/** How much wider clustering makes an interval before the report says so in words. */
export const WIDENING_WORTH_SAYING = 1.5;

/** The width of a clustered interval over a task-level one; NaN when either is not a number. */
export function widening(clustered: Interval, taskLevel: Interval): number {
  const wide = clustered.high - clustered.low;
  const narrow = taskLevel.high - taskLevel.low;
  if (!(narrow > 0)) return wide > 0 ? Number.POSITIVE_INFINITY : Number.NaN;
  return wide / narrow;
}
