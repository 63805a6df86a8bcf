/**
 * The planning maths checked by simulation: for each design, lab's answer (tasks needed, or the
 * smallest detectable difference) is taken as given, a thousand suites are drawn from the model
 * it assumes, and each is compared with the report's own paired comparison (McNemar's exact
 * test with one trial per task, else Wilcoxon's signed-rank test). The share of suites whose
 * verdict is "better" must be within TOLERANCE of the 80% asked for: 0.05 covers the normal
 * approximation used for the signed-rank test from 30 tasks (it loses up to about 3 points), the
 * seeded simulation lab itself runs below 30 (a standard error of 0.9 points), and this test's
 * own error (a standard error of 1.3 points at 1 000 suites).
 */
import { describe, expect, it } from "vitest";
import { comparePair } from "../../src/report/compare.js";
import {
  minimumDetectableDifference,
  pairedPower,
  tasksNeeded,
  type PairedDesign,
} from "../../src/report/power.js";
import type { TaskTally } from "../../src/report/stats.js";
import { seededRandom } from "../helpers/synthetic-runs.js";

const TARGET = 0.8;
const TOLERANCE = 0.05;
const SUITES = 1000;

/** The share of simulated suites in which the report finds a better than b. */
function simulatedPower(design: PairedDesign, seed: number): number {
  const random = seededRandom(seed);
  const rateA = design.baseline + design.difference;
  const resolved = (rate: number): number => {
    let count = 0;
    for (let trial = 0; trial < design.trials; trial++) if (random() < rate) count++;
    return count;
  };
  let better = 0;
  for (let suite = 0; suite < SUITES; suite++) {
    const a = new Map<string, TaskTally>();
    const b = new Map<string, TaskTally>();
    for (let task = 0; task < design.tasks; task++) {
      const id = `t${String(task).padStart(6, "0")}`;
      a.set(id, { trials: design.trials, resolved: resolved(rateA) });
      b.set(id, { trials: design.trials, resolved: resolved(design.baseline) });
    }
    // One resample: the bootstrap interval plays no part in the verdict.
    if (comparePair(a, b, { level: design.level ?? 0.05, resamples: 1 }).verdict === "better")
      better++;
  }
  return better / SUITES;
}

describe("planning power, checked by simulation", () => {
  const designs: Omit<PairedDesign, "tasks">[] = [
    { trials: 1, baseline: 0.4, difference: 0.1 },
    { trials: 1, baseline: 0.4, difference: 0.05 },
    { trials: 1, baseline: 0.1, difference: 0.15 },
    { trials: 3, baseline: 0.4, difference: 0.1 },
    { trials: 3, baseline: 0.05, difference: 0.1 },
    { trials: 5, baseline: 0.4, difference: 0.05 },
    { trials: 10, baseline: 0.3, difference: 0.1 },
    { trials: 5, baseline: 0.2, difference: 0.25 },
  ];

  it.each(designs)(
    "the tasks lab plans for reach 80% power (K=$trials, baseline $baseline, +$difference)",
    (design) => {
      const tasks = tasksNeeded(design);
      expect(tasks).not.toBeNull();
      const full = { ...design, tasks: tasks ?? 0 };
      const simulated = simulatedPower(full, 7);
      expect(
        Math.abs(simulated - TARGET),
        `simulated ${String(simulated)} at N=${String(tasks)}`,
      ).toBeLessThanOrEqual(TOLERANCE);
      // Half the tasks is clearly not enough: the answer is not merely large.
      expect(simulatedPower({ ...full, tasks: Math.ceil((tasks ?? 0) / 2) }, 8)).toBeLessThan(
        TARGET - 0.15,
      );
    },
    120_000,
  );

  it("the smallest detectable difference of a suite is detected 80% of the time", () => {
    for (const design of [
      { tasks: 50, trials: 1, baseline: 0.3 },
      { tasks: 50, trials: 3, baseline: 0.3 },
      { tasks: 12, trials: 1, baseline: 0 },
      // Below 30 tasks the signed-rank test's power is simulated, not approximated.
      { tasks: 10, trials: 3, baseline: 0.4 },
      { tasks: 10, trials: 10, baseline: 0.4 },
      { tasks: 20, trials: 2, baseline: 0.1 },
    ]) {
      const difference = minimumDetectableDifference(design);
      expect(difference).not.toBeNull();
      const simulated = simulatedPower({ ...design, difference: difference ?? 0 }, 11);
      expect(
        Math.abs(simulated - TARGET),
        JSON.stringify({ design, difference, simulated }),
      ).toBeLessThanOrEqual(TOLERANCE);
    }
  }, 120_000);

  it("McNemar's power is exact: it matches a direct count on a small suite", () => {
    // Four tasks, one trial: every outcome of the four pairs enumerated by hand.
    const design = { tasks: 6, trials: 1, baseline: 0.2, difference: 0.6 };
    const pA = 0.8;
    const pB = 0.2;
    let power = 0;
    for (let mask = 0; mask < 4 ** 6; mask++) {
      let probability = 1;
      let aOnly = 0;
      let bOnly = 0;
      for (let task = 0; task < 6; task++) {
        const cell = (mask >> (2 * task)) & 3;
        const a = (cell & 1) === 1;
        const b = (cell & 2) === 2;
        probability *= (a ? pA : 1 - pA) * (b ? pB : 1 - pB);
        if (a && !b) aOnly++;
        if (b && !a) bOnly++;
      }
      // Six discordant tasks all one way: p = 2 / 64 < 0.05; five: 2 / 32 is not.
      if (aOnly === 6 && bOnly === 0) power += probability;
    }
    expect(pairedPower(design)).toBeCloseTo(power, 12);
  });

  it("needs more tasks for a smaller difference and fewer with more trials", () => {
    const base = { baseline: 0.4, difference: 0.05 };
    const one = tasksNeeded({ ...base, trials: 1 }) ?? 0;
    const three = tasksNeeded({ ...base, trials: 3 }) ?? 0;
    expect(three).toBeLessThan(one);
    expect(tasksNeeded({ ...base, difference: 0.1, trials: 1 }) ?? 0).toBeLessThan(one / 3);
    expect(minimumDetectableDifference({ tasks: 10, trials: 1, baseline: 0.99 })).toBeNull();
  });
});
