import { describe, expect, it } from "vitest";
import reference from "../fixtures/stats/cluster-reference.json" with { type: "json" };
import {
  clusterBootstrapInterval,
  clusteredStandardError,
  clusterPairedBootstrapDifference,
  naiveStandardError,
} from "../../src/report/cluster.js";
import { bootstrapResolveRate } from "../../src/report/stats.js";

describe("reference values (test/fixtures/stats/cluster-reference.py)", () => {
  it("were computed with statsmodels and numpy", () => {
    expect(Object.keys(reference.versions).sort()).toEqual(["numpy", "statsmodels"]);
  });

  it.each(reference.standardErrors)(
    "the clustered standard error of $name matches statsmodels' cluster-robust OLS to 1e-9",
    ({ values, clusters, clusteredSe, naiveSe }) => {
      expect(Math.abs(clusteredStandardError(values, clusters) - clusteredSe)).toBeLessThan(1e-9);
      expect(Math.abs(naiveStandardError(values) - naiveSe)).toBeLessThan(1e-9);
    },
  );

  it.each(reference.bootstrap.mean)(
    "the two-stage cluster bootstrap of $name agrees with numpy's to resampling noise",
    ({ values, clusters, low, high }) => {
      const interval = clusterBootstrapInterval(values, clusters, { resamples: 20_000, seed: 3 });
      expect(Math.abs(interval.low - low)).toBeLessThan(0.01);
      expect(Math.abs(interval.high - high)).toBeLessThan(0.01);
    },
  );

  it.each(reference.bootstrap.pairedDifference)(
    "the cluster-paired bootstrap of $name agrees with numpy's to resampling noise",
    ({ a, b, clusters, low, high }) => {
      const interval = clusterPairedBootstrapDifference(a, b, clusters, {
        resamples: 20_000,
        seed: 3,
      });
      expect(Math.abs(interval.low - low)).toBeLessThan(0.01);
      expect(Math.abs(interval.high - high)).toBeLessThan(0.01);
    },
  );
});

describe("clustered statistics", () => {
  it("one cluster has no clustered standard error, and every task its own cluster is the naive one's scale", () => {
    expect(clusteredStandardError([1, 0, 1], ["a", "a", "a"])).toBeNaN();
    const values = [1, 0, 1, 1, 0, 0, 1, 0];
    const own = values.map((_, i) => `t${String(i)}`);
    // With singleton clusters CR1 is HC1, which for a mean is the naive standard error.
    expect(clusteredStandardError(values, own)).toBeCloseTo(naiveStandardError(values), 12);
  });

  it("the same seed gives the same interval, and cluster order does not matter", () => {
    const values = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1];
    const clusters = ["b", "a", "b", "c", "a", "c", "b", "a", "c", "c"];
    const first = clusterBootstrapInterval(values, clusters, { resamples: 2000, seed: 9 });
    expect(clusterBootstrapInterval(values, clusters, { resamples: 2000, seed: 9 })).toEqual(first);
    const order = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
    const shuffled = clusterBootstrapInterval(
      order.map((i) => values[i] ?? 0),
      order.map((i) => clusters[i] ?? ""),
      { resamples: 2000, seed: 9 },
    );
    // Within a cluster the values are drawn by position, so only the set of clusters is fixed:
    // a reordering within clusters changes the draws, not the distribution.
    expect(Math.abs(shuffled.low - first.low)).toBeLessThan(0.15);
    expect(Math.abs(shuffled.high - first.high)).toBeLessThan(0.15);
  });
});

/** mulberry32, for the simulation's suites. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("coverage on simulated clustered suites", () => {
  it("the cluster bootstrap covers the true rate 95% of the time (within 2 points), where the task-level one falls far short", () => {
    // 40 repositories of 10 tasks; each repository's rate is 0.4 plus or minus 0.3 at random (so
    // the true rate, over repositories, is 0.4), tasks within it resolved independently.
    // The intraclass correlation is 0.09 / 0.24 = 0.375: a design effect of 1 + 9 * 0.375 = 4.4.
    const draw = random(2026);
    const truth = 0.4;
    const suites = 1000;
    let clusterCovers = 0;
    let taskCovers = 0;
    for (let suite = 0; suite < suites; suite++) {
      const values: number[] = [];
      const clusters: string[] = [];
      for (let repo = 0; repo < 40; repo++) {
        const rate = truth + (draw() < 0.5 ? 0.3 : -0.3);
        for (let task = 0; task < 10; task++) {
          values.push(draw() < rate ? 1 : 0);
          clusters.push(`r${String(repo)}`);
        }
      }
      const options = { resamples: 1000, seed: suite };
      const clustered = clusterBootstrapInterval(values, clusters, options);
      const taskLevel = bootstrapResolveRate(values, options);
      if (clustered.low <= truth && truth <= clustered.high) clusterCovers++;
      if (taskLevel.low <= truth && truth <= taskLevel.high) taskCovers++;
    }
    expect(Math.abs(clusterCovers / suites - 0.95)).toBeLessThanOrEqual(0.02);
    expect(taskCovers / suites).toBeLessThan(0.8);
  });
});
