import { describe, expect, it } from "vitest";
import reference from "../fixtures/stats/reference.json" with { type: "json" };
import {
  compareTools,
  comparePair,
  decideVerdict,
  holmAdjust,
  mcnemarExact,
  wilcoxonSignedRank,
} from "../../src/report/compare.js";
import {
  bootstrapInterval,
  bootstrapResolveRate,
  consistency,
  describeValues,
  flipRate,
  mean,
  meanConsistency,
  meanPassAtK,
  meanPassHatK,
  median,
  pairedBootstrapDifference,
  passAtK,
  passHatK,
  percentile,
  resolveRateVariance,
  wilsonInterval,
  type TaskTallies,
} from "../../src/report/stats.js";

/** Tallies from per-task outcome lists, task ids t01, t02, ... */
function talliesOf(perTask: readonly (readonly boolean[])[]): TaskTallies {
  return new Map(
    perTask.map((outcomes, i) => [
      `t${String(i + 1).padStart(2, "0")}`,
      { resolved: outcomes.filter(Boolean).length, trials: outcomes.length },
    ]),
  );
}

describe("reference values", () => {
  it("were computed with the scipy, statsmodels and numpy versions recorded", () => {
    expect(Object.keys(reference.versions).sort()).toEqual(["numpy", "scipy", "statsmodels"]);
  });

  it.each(reference.wilson)(
    "the Wilson interval of $successes in $n at $confidence matches statsmodels",
    ({ successes, n, confidence, low, high }) => {
      const interval = wilsonInterval(successes, n, confidence);
      expect(interval.low).toBeCloseTo(low, 12);
      expect(interval.high).toBeCloseTo(high, 12);
    },
  );

  it.each(reference.mcnemar)(
    "McNemar's exact p for b=$b, c=$c matches statsmodels",
    ({ b, c, p }) => {
      expect(mcnemarExact(b, c)).toBeCloseTo(p, 12);
    },
  );

  it.each(reference.wilcoxon)("the signed-rank p for $name matches scipy", ({ name, x, y, p }) => {
    const result = wilcoxonSignedRank(x, y);
    if (p === null) {
      // scipy answers NaN when every difference is zero and there are more than 13 pairs.
      expect(name).toContain("every difference zero");
      expect(result).toMatchObject({ pValue: 1, method: "none" });
    } else {
      expect(result.pValue).toBeCloseTo(p, 12);
    }
  });

  it.each(reference.holm)("Holm's adjustment of $p matches statsmodels", ({ p, adjusted }) => {
    const ours = holmAdjust(p);
    expect(ours).toHaveLength(adjusted.length);
    ours.forEach((value, i) => {
      expect(value).toBeCloseTo(adjusted[i]!, 14);
    });
  });

  it.each(reference.percentile)(
    "the percentile, median and mean of $values match numpy",
    ({ values, p, percentile: expected, median: expectedMedian, mean: expectedMean }) => {
      expect(percentile(values, p)).toBeCloseTo(expected, 12);
      expect(median(values)).toBeCloseTo(expectedMedian, 12);
      expect(mean(values)).toBeCloseTo(expectedMean, 12);
    },
  );

  it.each(reference.pass)(
    "pass@$k and pass^$k for $c of $n match exact binomial coefficients",
    ({ n, c, k, passAtK: expectedAt, passHatK: expectedHat }) => {
      expect(passAtK(n, c, k)).toBeCloseTo(expectedAt, 12);
      expect(passHatK(n, c, k)).toBeCloseTo(expectedHat, 12);
    },
  );

  it.each(reference.trials)(
    "consistency and flip rate of $outcomes match numpy",
    ({ outcomes, consistency: expected, flipRate: expectedFlips }) => {
      expect(consistency(outcomes)).toBeCloseTo(expected, 14);
      expect(flipRate(outcomes)).toBeCloseTo(expectedFlips, 14);
    },
  );

  it.each(reference.variance)(
    "the variance of rates $rates matches numpy",
    ({ rates, variance }) => {
      expect(resolveRateVariance(rates)).toBeCloseTo(variance, 14);
    },
  );

  it.each(reference.bootstrap.mean)(
    "the bootstrap interval of the mean of $name agrees with scipy's to resampling noise",
    ({ values, low, high }) => {
      const interval = bootstrapResolveRate(values, { resamples: 20_000, seed: 3 });
      expect(Math.abs(interval.low - low)).toBeLessThan(0.01);
      expect(Math.abs(interval.high - high)).toBeLessThan(0.01);
    },
  );

  it.each(reference.bootstrap.pairedDifference)(
    "the paired bootstrap interval of $name agrees with scipy's to resampling noise",
    ({ a, b, low, high }) => {
      const interval = pairedBootstrapDifference(a, b, { resamples: 20_000, seed: 3 });
      expect(Math.abs(interval.low - low)).toBeLessThan(0.01);
      expect(Math.abs(interval.high - high)).toBeLessThan(0.01);
    },
  );
});

describe("summary statistics", () => {
  it("empty inputs give NaN rather than a made-up number", () => {
    expect(mean([])).toBeNaN();
    expect(median([])).toBeNaN();
    expect(percentile([], 90)).toBeNaN();
    expect(resolveRateVariance([0.5])).toBeNaN();
    expect(describeValues([])).toMatchObject({ n: 0 });
  });

  it("describeValues gives the count, mean, median and 90th percentile", () => {
    expect(describeValues([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toEqual({
      n: 10,
      mean: 5.5,
      median: 5.5,
      p90: 9.1,
    });
  });

  it("a percentile outside 0..100 is refused", () => {
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});

describe("Wilson interval", () => {
  it("with no trials the interval is everything", () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it("the interval contains the observed rate and stays within 0..1", () => {
    for (const [successes, n] of [
      [0, 4],
      [4, 4],
      [3, 7],
      [70, 300],
    ] as const) {
      const { low, high } = wilsonInterval(successes, n);
      expect(low).toBeGreaterThanOrEqual(0);
      expect(high).toBeLessThanOrEqual(1);
      expect(low).toBeLessThanOrEqual(successes / n);
      expect(high).toBeGreaterThanOrEqual(successes / n);
    }
  });

  it("counts that are not whole or exceed n are refused", () => {
    expect(() => wilsonInterval(5, 4)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 4)).toThrow(RangeError);
    expect(() => wilsonInterval(1, 4, 1)).toThrow(RangeError);
  });
});

describe("bootstrap", () => {
  const rates = [0, 0.2, 1, 1, 0.6, 0.4, 0, 0.8, 1, 0.2, 0.6, 0.6];

  it("the same seed gives the same interval and another seed a different one", () => {
    const first = bootstrapResolveRate(rates, { seed: 42, resamples: 2000 });
    expect(bootstrapResolveRate(rates, { seed: 42, resamples: 2000 })).toEqual(first);
    expect(bootstrapResolveRate(rates, { seed: 43, resamples: 2000 })).not.toEqual(first);
  });

  it("the interval contains the point estimate", () => {
    const { low, high } = bootstrapResolveRate(rates);
    expect(low).toBeLessThanOrEqual(mean(rates));
    expect(high).toBeGreaterThanOrEqual(mean(rates));
  });

  it("the fast path for the mean gives exactly what the general resampling loop gives", () => {
    const general = (sample: readonly number[]) => mean(sample);
    for (const seed of [0, 7, 123456]) {
      expect(bootstrapInterval(rates, mean, { seed, resamples: 3000 })).toEqual(
        bootstrapInterval(rates, general, { seed, resamples: 3000 }),
      );
    }
  });

  it("all-equal values give a zero-width interval at that value", () => {
    expect(bootstrapInterval([0.5, 0.5, 0.5], mean)).toEqual({ low: 0.5, high: 0.5 });
  });

  it("no values give NaN bounds", () => {
    const { low, high } = bootstrapInterval([], mean);
    expect(low).toBeNaN();
    expect(high).toBeNaN();
  });

  it("a higher confidence gives a wider interval", () => {
    const narrow = bootstrapResolveRate(rates, { confidence: 0.8 });
    const wide = bootstrapResolveRate(rates, { confidence: 0.99 });
    expect(wide.low).toBeLessThanOrEqual(narrow.low);
    expect(wide.high).toBeGreaterThanOrEqual(narrow.high);
  });

  it("paired samples of different lengths are refused", () => {
    expect(() => pairedBootstrapDifference([1, 0], [1])).toThrow(RangeError);
  });
});

describe("pass@k and pass^k", () => {
  it("pass@1 and pass^1 are the share of successes", () => {
    for (const [n, c] of [
      [1, 0],
      [1, 1],
      [5, 2],
      [10, 7],
    ] as const) {
      expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 14);
      expect(passHatK(n, c, 1)).toBeCloseTo(c / n, 14);
    }
  });

  it("pass@k rises and pass^k falls as k grows", () => {
    for (let k = 1; k < 10; k++) {
      expect(passAtK(10, 3, k + 1)).toBeGreaterThanOrEqual(passAtK(10, 3, k));
      expect(passHatK(10, 7, k + 1)).toBeLessThanOrEqual(passHatK(10, 7, k));
    }
  });

  it("pass@k is 1 and pass^k 0 once k exceeds the failures and successes", () => {
    expect(passAtK(5, 3, 3)).toBe(1);
    expect(passHatK(5, 3, 4)).toBe(0);
  });

  it("k outside 1..n is refused", () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
    expect(() => passHatK(3, 1, 0)).toThrow(RangeError);
  });

  it("suite-level values are the mean over tasks", () => {
    const tallies = [
      { resolved: 1, trials: 2 },
      { resolved: 2, trials: 2 },
    ];
    expect(meanPassAtK(tallies, 2)).toBeCloseTo(1, 14);
    expect(meanPassHatK(tallies, 2)).toBeCloseTo(0.5, 14);
  });
});

describe("consistency", () => {
  it("an even split scores 0.5 and a unanimous task 1", () => {
    expect(consistency([true, false, false, true])).toBe(0.5);
    expect(consistency([false, false, false])).toBe(1);
  });

  it("a single trial never flips", () => {
    expect(flipRate([true])).toBe(0);
  });

  it("the suite's consistency is the mean over tasks", () => {
    expect(meanConsistency([[true, true], [true, false], [false]])).toBeCloseTo(2.5 / 3, 14);
  });
});

describe("McNemar and Wilcoxon edge cases", () => {
  it("no discordant tasks give p = 1", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
  });

  it("McNemar's p does not depend on which tool is a", () => {
    expect(mcnemarExact(9, 2)).toBe(mcnemarExact(2, 9));
  });

  it("the signed-rank test is symmetric in x and y", () => {
    const x = [0.2, 0.6, 1, 0.4, 0, 0.8, 0.2, 1, 0.6, 0.4, 0.2, 0.8, 1, 0, 0.6];
    const y = [0.4, 0.2, 1, 0, 0.2, 0.6, 0, 0.6, 0.2, 0.4, 0.4, 0.2, 0.8, 0.2, 0];
    expect(wilcoxonSignedRank(x, y).pValue).toBeCloseTo(wilcoxonSignedRank(y, x).pValue, 14);
  });

  it("the method follows scipy's choice", () => {
    expect(wilcoxonSignedRank([1, 2, 3], [0, 0, 0]).method).toBe("exact");
    expect(wilcoxonSignedRank([1, 1, 3], [0, 0, 0]).method).toBe("permutation");
    expect(wilcoxonSignedRank([1, 2, 0], [0, 0, 0]).method).toBe("permutation");
    const many = Array.from({ length: 14 }, (_, i) => (i % 3) + 1);
    expect(wilcoxonSignedRank(many, new Array<number>(14).fill(0)).method).toBe("normal");
  });
});

describe("Holm's correction", () => {
  it("keeps the order of the p-values and never exceeds 1", () => {
    const p = [0.03, 0.5, 0.001, 0.2, 0.04, 0.9];
    const adjusted = holmAdjust(p);
    const byP = p.map((value, i) => [value, adjusted[i]!] as const).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < byP.length; i++) expect(byP[i]![1]).toBeGreaterThanOrEqual(byP[i - 1]![1]);
    adjusted.forEach((value, i) => {
      expect(value).toBeLessThanOrEqual(1);
      expect(value).toBeGreaterThanOrEqual(p[i]!);
    });
  });

  it("an empty list stays empty", () => {
    expect(holmAdjust([])).toEqual([]);
  });
});

describe("comparing tools", () => {
  const strong = talliesOf(Array.from({ length: 30 }, (_, i) => [i % 10 !== 0]));
  const weak = talliesOf(Array.from({ length: 30 }, (_, i) => [i % 3 === 0]));

  it("a clearly stronger tool is better, with McNemar on single trials", () => {
    const result = comparePair(strong, weak, { seed: 1 });
    expect(result).toMatchObject({ tasks: 30, test: "mcnemar", verdict: "better" });
    expect(result.difference).toBeCloseTo(27 / 30 - 10 / 30, 14);
    expect(result.interval.low).toBeLessThanOrEqual(result.difference);
    expect(result.interval.high).toBeGreaterThanOrEqual(result.difference);
    expect(result.pValue).toBe(mcnemarExact(result.aOnly, result.bOnly));
    expect(comparePair(weak, strong).verdict).toBe("worse");
  });

  it("only tasks both tools attempted are counted", () => {
    const partial = new Map([...weak].slice(0, 12));
    partial.set("elsewhere", { resolved: 1, trials: 1 });
    partial.set("t13", { resolved: 0, trials: 0 });
    expect(comparePair(strong, partial).tasks).toBe(12);
  });

  it("no common task is not compared: NaN rates and p-values, never a p = 1 tie", () => {
    const result = comparePair(strong, new Map());
    expect(result.tasks).toBe(0);
    expect(result.difference).toBeNaN();
    expect(result.pValue).toBeNaN();
    expect(result.pAdjusted).toBeNaN();
    expect(result.verdict).toBe("not_compared");
  });

  it("repeated trials are compared with the signed-rank test on per-task rates", () => {
    const a = talliesOf(Array.from({ length: 20 }, (_, i) => [true, i % 2 === 0, true]));
    const b = talliesOf(Array.from({ length: 20 }, (_, i) => [false, i % 4 === 0, true]));
    const result = comparePair(a, b);
    expect(result.test).toBe("wilcoxon");
    expect(result.pValue).toBe(result.pWilcoxon);
    expect(result.verdict).toBe("better");
  });

  it("identical tools are not significantly different", () => {
    expect(comparePair(strong, strong)).toMatchObject({
      difference: 0,
      verdict: "not_significant",
    });
  });

  it("the verdict needs p below the level and a non-zero difference", () => {
    expect(decideVerdict(0.2, 0.049)).toBe("better");
    expect(decideVerdict(-0.2, 0.049)).toBe("worse");
    expect(decideVerdict(0.2, 0.05)).toBe("not_significant");
    expect(decideVerdict(0.2, 0.03, 0.01)).toBe("not_significant");
  });

  it("two tools are not corrected, three or more get Holm's correction", () => {
    const two = compareTools(
      new Map([
        ["strong", strong],
        ["weak", weak],
      ]),
    );
    expect(two).toHaveLength(1);
    expect(two[0]!.pAdjusted).toBe(two[0]!.pValue);

    const three = compareTools(
      new Map([
        ["strong", strong],
        ["weak", weak],
        ["also-strong", strong],
      ]),
    );
    expect(three.map((pair) => `${pair.a}-${pair.b}`)).toEqual([
      "strong-weak",
      "strong-also-strong",
      "weak-also-strong",
    ]);
    const expected = holmAdjust(three.map((pair) => pair.pValue));
    three.forEach((pair, i) => {
      expect(pair.pAdjusted).toBe(expected[i]);
    });
  });
});
