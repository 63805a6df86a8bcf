/**
 * Statistical power of the paired comparisons a report makes, for planning (`lab plan`) and
 * for the smallest difference a report's pairs could detect. Pure functions.
 *
 * The model: N tasks, K trials of each tool on each task; tool b resolves a trial with
 * probability `baseline`, tool a with `baseline + difference`, trials independent, and the two
 * tools independent of each other on a task. Real tasks differ in difficulty, and tools tend to
 * find the same tasks hard; that shared difficulty cancels in a paired comparison, so the
 * independent model needs at least as many tasks as the real one: its figures are on the safe
 * side. See docs/design/power.md, and test/report/power.test.ts for the simulation that checks
 * them. McNemar's power is exact; the signed-rank test's is a normal approximation from 30 tasks
 * and a seeded simulation of the test below.
 */
import binomialCdf from "@stdlib/stats-base-dists-binomial-cdf";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import { wilcoxonSignedRank } from "./compare.js";

/** One design of a paired comparison. */
export interface PairedDesign {
  /** Tasks both tools attempt. */
  readonly tasks: number;
  /** Trials of each tool on each task. */
  readonly trials: number;
  /** Tool b's resolve rate. */
  readonly baseline: number;
  /** Tool a's rate minus b's, above 0. */
  readonly difference: number;
  /** Two-sided significance level; 0.05 by default. */
  readonly level?: number;
}

/** The test a report uses for a design: McNemar with one trial per task, else Wilcoxon. */
export type PairedTest = "mcnemar" | "wilcoxon";

/** The test the report applies to a design with `trials` per task. */
export function testFor(trials: number): PairedTest {
  return trials === 1 ? "mcnemar" : "wilcoxon";
}

/**
 * Asymptotic relative efficiency of the signed-rank test to the paired t-test under normal
 * differences (3/pi): per-task rates of several trials are close to normal, and simulation
 * finds the signed-rank test needing about that many more tasks than the t-test.
 */
const WILCOXON_EFFICIENCY = 3 / Math.PI;

/** log(n!) for n = 0..size-1, grown on demand. */
const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++)
    logFactorials.push((logFactorials[i - 1] ?? 0) + Math.log(i));
  return logFactorials[n] ?? 0;
}

function binomialPmf(k: number, n: number, p: number): number {
  if (p <= 0) return k === 0 ? 1 : 0;
  if (p >= 1) return k === n ? 1 : 0;
  return Math.exp(
    logFactorial(n) -
      logFactorial(k) -
      logFactorial(n - k) +
      k * Math.log(p) +
      (n - k) * Math.log(1 - p),
  );
}

/** Whether McNemar's exact test on d discordant tasks says "different" when the smaller count is c. */
function mcnemarRejects(c: number, d: number, level: number): boolean {
  return c < d / 2 && 2 * binomialCdf(c, d, 0.5) < level;
}

/**
 * The chance that McNemar's exact test finds a better than b (the verdict "better"), with one
 * trial per task: exact, summing over the number of discordant tasks d (those where one tool
 * resolved and the other did not) wherever Bin(N, P(discordant)) puts any weight.
 */
export function mcnemarPower(design: PairedDesign): number {
  const { tasks, baseline } = design;
  const level = design.level ?? 0.05;
  const rateA = baseline + design.difference;
  const aOnly = rateA * (1 - baseline);
  const bOnly = (1 - rateA) * baseline;
  const discordant = aOnly + bOnly;
  if (discordant === 0) return 0;
  const share = aOnly / discordant;
  const center = tasks * discordant;
  const spread = 12 * Math.sqrt(tasks * discordant * (1 - discordant)) + 12;
  const first = Math.max(1, Math.floor(center - spread));
  const last = Math.min(tasks, Math.ceil(center + spread));
  // c(d), the largest smaller count the test rejects at, never falls as d grows.
  let c = -1;
  let power = 0;
  for (let d = first; d <= last; d++) {
    while (mcnemarRejects(c + 1, d, level)) c++;
    if (c < 0) continue;
    // a's count is at least d - c: the test rejects, and in a's favor.
    power += binomialPmf(d, tasks, discordant) * (1 - binomialCdf(d - c - 1, d, share));
  }
  return Math.min(1, power);
}

/**
 * Below this many tasks the normal approximation overstates the signed-rank test's power (at
 * 10 tasks of 3 trials it promises 80% where the test finds 61%): its statistic is far from
 * normal, and many tasks have no difference at all. There, power is simulated instead.
 */
const SIMULATE_BELOW_TASKS = 30;

/** Simulated suites per power estimate: a standard error of 0.9 points at 80%. */
const SIMULATIONS = 2000;

/**
 * The chance that the Wilcoxon signed-rank test on per-task rates finds a better than b, with
 * several trials per task. From 30 tasks: the normal approximation of a paired test on the
 * per-task differences, whose variance the model gives, with the signed-rank test's
 * efficiency. Below: the test itself run on simulated suites.
 */
export function wilcoxonPower(design: PairedDesign): number {
  if (design.tasks < SIMULATE_BELOW_TASKS) return simulatedWilcoxonPower(design);
  const { tasks, trials, baseline, difference } = design;
  const level = design.level ?? 0.05;
  const rateA = baseline + difference;
  const variance = (rateA * (1 - rateA) + baseline * (1 - baseline)) / trials;
  if (variance === 0) return difference > 0 ? 1 : 0;
  const z = normalQuantile(1 - level / 2, 0, 1);
  const shift = difference * Math.sqrt((tasks * WILCOXON_EFFICIENCY) / variance);
  // P(Z > z - shift), the upper tail of a standard normal.
  return 1 - normalCdf(z - shift, 0, 1);
}

/**
 * The signed-rank test's power on simulated suites of the model. The draws depend only on the
 * design's size (a fixed seed, the same uniforms compared against each rate), so the estimate
 * is the same every time and grows with the difference, as a bisection needs.
 */
function simulatedWilcoxonPower(design: PairedDesign): number {
  const { tasks, trials, baseline, difference } = design;
  const level = design.level ?? 0.05;
  const rateA = baseline + difference;
  const random = seededUniforms(0x1ab);
  const aRates = new Array<number>(tasks);
  const bRates = new Array<number>(tasks);
  let better = 0;
  for (let suite = 0; suite < SIMULATIONS; suite++) {
    let lead = 0;
    for (let task = 0; task < tasks; task++) {
      let a = 0;
      let b = 0;
      for (let trial = 0; trial < trials; trial++) {
        if (random() < rateA) a++;
        if (random() < baseline) b++;
      }
      aRates[task] = a / trials;
      bRates[task] = b / trials;
      lead += a - b;
    }
    if (lead > 0 && wilcoxonSignedRank(aRates, bRates).pValue < level) better++;
  }
  return better / SIMULATIONS;
}

/** mulberry32, as the report's bootstrap uses: uniforms in [0, 1) from a seed. */
function seededUniforms(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The power of the report's test for a design. */
export function pairedPower(design: PairedDesign): number {
  checkDesign(design);
  return testFor(design.trials) === "mcnemar" ? mcnemarPower(design) : wilcoxonPower(design);
}

/**
 * The fewest tasks that reach `power` (0.8 by default) for a difference; null when no number of
 * tasks up to `maxTasks` does (a difference of 0, or a limit too low).
 */
export function tasksNeeded(
  design: Omit<PairedDesign, "tasks">,
  power = 0.8,
  maxTasks = 1_000_000,
): number | null {
  checkDesign({ ...design, tasks: 1 });
  const reaches = (tasks: number): boolean => pairedPower({ ...design, tasks }) >= power;
  // Doubling, then a bisection: power grows with tasks (McNemar's exact test only roughly, its
  // steps make small dips: a short walk down catches an earlier crossing a dip hid).
  let high = 1;
  while (!reaches(high)) {
    if (high >= maxTasks) return null;
    high = Math.min(maxTasks, high * 2);
  }
  let low = Math.floor(high / 2);
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (reaches(mid)) high = mid;
    else low = mid;
  }
  if (testFor(design.trials) === "mcnemar")
    for (let tasks = high - 1; tasks >= Math.max(1, high - 20); tasks--)
      if (reaches(tasks)) high = tasks;
  return high;
}

/**
 * The smallest difference above `baseline` that N tasks of K trials detect with `power` (0.8 by
 * default), to 0.1 points; null when even a rate of 100% against the baseline would not, and
 * for a baseline of 100% (two tools that resolved every shared task), which has none above it.
 */
export function minimumDetectableDifference(
  design: Omit<PairedDesign, "difference">,
  power = 0.8,
): number | null {
  if (design.baseline === 1) return null;
  checkDesign({ ...design, difference: 0 });
  const most = 1 - design.baseline;
  const reaches = (difference: number): boolean => pairedPower({ ...design, difference }) >= power;
  if (most <= 0 || !reaches(most)) return null;
  let low = 0;
  let high = most;
  while (high - low > 0.0005) {
    const mid = (low + high) / 2;
    if (reaches(mid)) high = mid;
    else low = mid;
  }
  return Math.round(high * 1000) / 1000;
}

function checkDesign(design: PairedDesign): void {
  const { tasks, trials, baseline, difference } = design;
  const level = design.level ?? 0.05;
  if (!Number.isInteger(tasks) || tasks < 1)
    throw new RangeError(`tasks must be a whole number of 1 or more, got ${tasks}`);
  if (!Number.isInteger(trials) || trials < 1)
    throw new RangeError(`trials must be a whole number of 1 or more, got ${trials}`);
  if (!(baseline >= 0 && baseline < 1))
    throw new RangeError(`baseline must be in [0, 1), got ${baseline}`);
  if (!(difference >= 0 && baseline + difference <= 1))
    throw new RangeError(
      `difference must be 0 or more with baseline + difference at most 1, got ${difference}`,
    );
  if (!(level > 0 && level < 1))
    throw new RangeError(`level must be between 0 and 1, got ${level}`);
}

/**
 * The spread of one tool's resolve rate between runs that the plan never assumes away: 1.5
 * points, the smallest standard deviation between runs of one agent that published studies find
 * (arXiv 2602.07150). Each of lab's trials is a run of its own, so K trials divide its variance by K.
 */
export const RUN_TO_RUN_SD = 0.015;

/** The intraclass correlation `lab plan` assumes for clustered tasks unless told another. */
export const DEFAULT_ICC = 0.05;

/** What the plan adds to the paired model: clustered tasks and a floor on run-to-run variance. */
export interface PlanAdjustments {
  /**
   * How concentrated the tasks are in clusters: the sum over clusters of the squared share of
   * tasks, 1 / G for G clusters of equal size; 0 when tasks are not clustered.
   */
  readonly concentration: number;
  /** The intraclass correlation of per-task differences within a cluster. */
  readonly icc: number;
  /** The floor of each tool's run-to-run standard deviation, in rate (0.015 is 1.5 points). */
  readonly runSd: number;
}

/** The concentration of tasks spread over clusters of these sizes: sum of squared shares. */
export function clusterConcentration(sizes: readonly number[]): number {
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total === 0 || sizes.length < 2) return 0;
  return sizes.reduce((sum, size) => sum + (size / total) ** 2, 0);
}

/**
 * Kish's design effect of N tasks clustered with this concentration and correlation:
 * 1 + (N * concentration - 1) * icc, N * concentration being the mean cluster size a task sees.
 */
export function designEffect(tasks: number, concentration: number, icc: number): number {
  if (concentration === 0 || icc === 0) return 1;
  return Math.max(1, 1 + (tasks * concentration - 1) * icc);
}

/**
 * How many independent tasks N clustered tasks are worth to the paired test, once each tool's
 * run-to-run variance is floored: (V / Var) / design effect, V the model's variance of a task's
 * difference and Var the variance of the mean difference with each tool's floored.
 */
export function effectiveTasks(design: PairedDesign, adjustments: PlanAdjustments): number {
  const { tasks, trials, baseline, difference } = design;
  const rateA = baseline + difference;
  const varianceA = (rateA * (1 - rateA)) / trials;
  const varianceB = (baseline * (1 - baseline)) / trials;
  const floor = adjustments.runSd ** 2 / trials;
  const total = Math.max(varianceA / tasks, floor) + Math.max(varianceB / tasks, floor);
  const independent = total === 0 ? tasks : (varianceA + varianceB) / total;
  return independent / designEffect(tasks, adjustments.concentration, adjustments.icc);
}

/**
 * The fewest tasks that reach `power` once clustering and the run-to-run floor are counted: the
 * smallest N worth the tasks the model alone needs; null when no N is (the floor, or clusters too
 * few, cap what more tasks can add).
 */
export function adjustedTasksNeeded(
  design: Omit<PairedDesign, "tasks">,
  adjustments: PlanAdjustments,
  power = 0.8,
  maxTasks = 1_000_000,
): number | null {
  const needed = tasksNeeded(design, power, maxTasks);
  if (needed === null) return null;
  const worth = (tasks: number): number => effectiveTasks({ ...design, tasks }, adjustments);
  // Worth grows with N until the floor or the clusters cap it, then falls: walk up by doubling
  // while it still grows, then bisect the first crossing.
  let high = needed;
  while (worth(high) < needed) {
    const next = Math.min(maxTasks, high * 2);
    if (next === high || worth(next) <= worth(high)) return null;
    high = next;
  }
  let low = Math.max(needed - 1, Math.floor(high / 2));
  if (worth(low) >= needed) return low;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (worth(mid) >= needed) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * The smallest difference N clustered tasks detect with `power` once clustering and the floor
 * are counted, to 0.1 points; null when even a rate of 100% would not be found.
 */
export function adjustedDetectableDifference(
  design: Omit<PairedDesign, "difference">,
  adjustments: PlanAdjustments,
  power = 0.8,
): number | null {
  checkDesign({ ...design, difference: 0 });
  const most = 1 - design.baseline;
  const reaches = (difference: number): boolean => {
    const tasks = Math.floor(effectiveTasks({ ...design, difference }, adjustments));
    return tasks >= 1 && pairedPower({ ...design, tasks, difference }) >= power;
  };
  if (most <= 0 || !reaches(most)) return null;
  let low = 0;
  let high = most;
  while (high - low > 0.0005) {
    const mid = (low + high) / 2;
    if (reaches(mid)) high = mid;
    else low = mid;
  }
  return Math.round(high * 1000) / 1000;
}
