/** Cohen's kappa of two raters over the same items, with its asymptotic 95% interval. */
export interface Kappa {
  /** Items both raters judged. */
  readonly n: number;
  /** Share of items on which they agree; null with no items. */
  readonly observed: number | null;
  /** Agreement expected by chance from each rater's own answer shares; null with no items. */
  readonly expected: number | null;
  /**
   * (observed − expected) / (1 − expected); null when undefined: no items, or both raters gave
   * one same answer to every item (expected = 1), where agreement says nothing about skill.
   */
  readonly kappa: number | null;
  /** Fleiss, Cohen and Everitt's (1969) large-sample standard error; null with kappa. */
  readonly standardError: number | null;
  /**
   * kappa ± 1.96 standard errors, clipped to [-1, 1]; null with kappa, and below
   * MIN_ITEMS_FOR_INTERVAL items, where the large-sample interval collapses (often to a point).
   */
  readonly low: number | null;
  /** Upper end of the interval. */
  readonly high: number | null;
}

const Z_95 = 1.959963984540054;

/** Fewest items for which cohenKappa gives an interval. */
export const MIN_ITEMS_FOR_INTERVAL = 10;

/**
 * Cohen's (unweighted) kappa of paired answers `[first rater's, second rater's]`. Matches
 * sklearn.metrics.cohen_kappa_score, and statsmodels' cohens_kappa for the standard error;
 * test/fixtures/review/kappa-reference.py makes the reference values.
 */
export function cohenKappa(pairs: readonly (readonly [string, string])[]): Kappa {
  const n = pairs.length;
  const none = {
    n,
    observed: null,
    expected: null,
    kappa: null,
    standardError: null,
    low: null,
    high: null,
  };
  if (n === 0) return none;
  const categories = [...new Set(pairs.flat())];
  const index = new Map(categories.map((category, i) => [category, i]));
  const k = categories.length;
  // counts[i][j]: items the first rater put in category i and the second in j.
  const counts = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (const [a, b] of pairs) {
    const row = counts[index.get(a) ?? 0];
    const column = index.get(b) ?? 0;
    if (row !== undefined) row[column] = (row[column] ?? 0) + 1;
  }
  const cell = (i: number, j: number): number => (counts[i]?.[j] ?? 0) / n;
  const rows = categories.map((_, i) => categories.reduce((sum, __, j) => sum + cell(i, j), 0));
  const columns = categories.map((_, j) => categories.reduce((sum, __, i) => sum + cell(i, j), 0));
  const row = (i: number): number => rows[i] ?? 0;
  const column = (j: number): number => columns[j] ?? 0;
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < k; i++) {
    observed += cell(i, i);
    expected += row(i) * column(i);
  }
  // Floating sums of shares can land a hair below 1 when every answer is the same.
  if (expected > 1 - 1e-12) return { ...none, observed, expected: 1 };
  const kappa = (observed - expected) / (1 - expected);
  let termA = 0;
  let termB = 0;
  for (let i = 0; i < k; i++) {
    termA += cell(i, i) * (1 - (row(i) + column(i)) * (1 - kappa)) ** 2;
    for (let j = 0; j < k; j++) if (i !== j) termB += cell(i, j) * (column(i) + row(j)) ** 2;
  }
  termB *= (1 - kappa) ** 2;
  const termC = (kappa - expected * (1 - kappa)) ** 2;
  const variance = Math.max(0, (termA + termB - termC) / (1 - expected) ** 2 / n);
  const standardError = Math.sqrt(variance);
  return {
    n,
    observed,
    expected,
    kappa,
    standardError,
    low: n < MIN_ITEMS_FOR_INTERVAL ? null : Math.max(-1, kappa - Z_95 * standardError),
    high: n < MIN_ITEMS_FOR_INTERVAL ? null : Math.min(1, kappa + Z_95 * standardError),
  };
}

/** Landis and Koch's (1977) words for a kappa: "slight", "fair", "moderate", ... */
export function describeKappa(kappa: number | null): string {
  if (kappa === null) return "undefined";
  if (kappa < 0) return "worse than chance";
  if (kappa <= 0.2) return "slight";
  if (kappa <= 0.4) return "fair";
  if (kappa <= 0.6) return "moderate";
  if (kappa <= 0.8) return "substantial";
  return "almost perfect";
}
