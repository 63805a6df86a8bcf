import { describe, expect, it } from "vitest";
import reference from "../fixtures/review/kappa-reference.json" with { type: "json" };
import { cohenKappa, describeKappa, MIN_ITEMS_FOR_INTERVAL } from "../../src/review/kappa.js";

function pairsOf(a: readonly string[], b: readonly string[]): [string, string][] {
  return a.map((answer, i) => [answer, b[i] ?? ""]);
}

describe("Cohen's kappa", () => {
  it("is checked against values recorded with scikit-learn and statsmodels", () => {
    expect(Object.keys(reference.versions).sort()).toEqual([
      "numpy",
      "scikit-learn",
      "statsmodels",
    ]);
    expect(reference.kappa.length).toBeGreaterThanOrEqual(10);
  });

  it.each(reference.kappa)(
    "$name: kappa matches sklearn, its standard error and interval statsmodels",
    ({ a, b, n, observed, kappa, standardError, low, high }) => {
      const result = cohenKappa(pairsOf(a, b));
      expect(result.n).toBe(n);
      expect(result.observed).toBeCloseTo(observed, 12);
      if (kappa === null) {
        expect(result.kappa).toBeNull();
        expect(result.standardError).toBeNull();
        expect(result.low).toBeNull();
        return;
      }
      expect(result.kappa).toBeCloseTo(kappa, 12);
      expect(result.standardError).toBeCloseTo(standardError, 12);
      if (n < MIN_ITEMS_FOR_INTERVAL) {
        // Too few items for a large-sample interval: lab gives none rather than a point.
        expect(result.low).toBeNull();
        expect(result.high).toBeNull();
      } else {
        expect(result.low).toBeCloseTo(low, 12);
        expect(result.high).toBeCloseTo(high, 12);
      }
    },
  );

  it("is the same whichever reviewer is taken first", () => {
    for (const { a, b, kappa } of reference.kappa) {
      if (kappa === null) continue;
      const forward = cohenKappa(pairsOf(a, b));
      const backward = cohenKappa(pairsOf(b, a));
      expect(backward.kappa).toBeCloseTo(forward.kappa ?? Number.NaN, 12);
      expect(backward.standardError).toBeCloseTo(forward.standardError ?? Number.NaN, 12);
    }
  });

  it("says nothing about no items", () => {
    expect(cohenKappa([])).toEqual({
      n: 0,
      observed: null,
      expected: null,
      kappa: null,
      standardError: null,
      low: null,
      high: null,
    });
  });

  it("puts Landis and Koch's words on a kappa", () => {
    expect([null, -0.2, 0, 0.2, 0.3, 0.5, 0.7, 0.81, 1].map(describeKappa)).toEqual([
      "undefined",
      "worse than chance",
      "slight",
      "slight",
      "fair",
      "moderate",
      "substantial",
      "almost perfect",
      "almost perfect",
    ]);
  });
});
