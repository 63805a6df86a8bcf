import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { holmAdjust } from "../../src/report/compare.js";
import { buildReport, loadReport, type SuiteReport } from "../../src/report/index.js";
import { tempDir } from "../helpers/temp.js";
import {
  syntheticTask,
  writeSyntheticRuns,
  type SyntheticOutcome,
} from "../helpers/synthetic-runs.js";

/**
 * Two tools, three trials on each of eight tasks, and one infrastructure error. Every expected
 * figure below is worked out by hand from these outcomes (Wilson bounds with the formula in
 * Python's math module), not by calling the code under test.
 */
const T = true;
const F = false;
const ALPHA: Record<string, SyntheticOutcome[]> = {
  t1: [T, T, T],
  t2: [T, T, F],
  t3: [T, F, T],
  t4: [T, T, T],
  t5: [F, F, F],
  t6: [T, T, T],
  t7: [T, T, T],
  t8: [T, T, F],
};
const BETA: Record<string, SyntheticOutcome[]> = {
  t1: [F, F, F],
  t2: [F, T, F],
  t3: [F, F, F],
  t4: [T, F, F],
  t5: [F, F, F],
  t6: [F, F, F, "infra"],
  t7: [T, T, T],
  t8: [F, F, F],
};
const GOLD_LINES: Record<string, number> = {
  t1: 2,
  t2: 2,
  t3: 14,
  t4: 3,
  t5: 21,
  t6: 8,
  t7: 2,
  t8: 60,
};
const TASKS = Object.keys(ALPHA).map((id, i) =>
  syntheticTask(id, i < 4 ? "textkit" : "ledger", {
    kind: i % 2 === 0 ? "logic" : "edge-case",
    goldLines: GOLD_LINES[id] ?? 1,
    goldFiles: 1,
    modules: 1,
    hasReproduction: i % 2 === 0,
    hasStackTrace: false,
    descriptionChars: 100 * (i + 1),
  }),
);

const root = tempDir();
const runsDir = path.join(root, "runs");
let report: SuiteReport;

beforeAll(async () => {
  writeSyntheticRuns(runsDir, [
    {
      tool: "alpha",
      suite: "s",
      outcomes: ALPHA,
      tasks: TASKS,
      telemetry: (_task, trial) => ({
        costUsd: 0.1,
        inputTokens: 1000,
        outputTokens: 200,
        toolMs: 1000 * trial,
      }),
    },
    {
      tool: "beta",
      suite: "s",
      outcomes: BETA,
      tasks: TASKS,
      telemetry: () => ({ costUsd: 0.02, toolMs: 500 }),
    },
  ]);
  const loaded = await loadReport(runsDir, "s");
  report = buildReport("s", loaded.runs, loaded.tasks, { slices: ["kind"] });
});

const tool = (label: string) => {
  const found = report.tools.find((entry) => entry.label === label);
  if (found === undefined) throw new Error(`no tool ${label}`);
  return found;
};

describe("the report model over two tools with three trials each", () => {
  it("counts trials, resolutions and infrastructure errors apart", () => {
    expect(tool("alpha").summary).toMatchObject({
      tool: "alpha",
      tasks: 8,
      trials: 24,
      resolved: 18,
      resolve_rate: 0.75,
      // Over non-empty changes: every unresolved trial here left an empty change.
      apply_rate: 1,
      empty_changes: 6,
      infra_errors: 0,
      trials_per_task: 3,
    });
    expect(tool("beta").summary).toMatchObject({
      tasks: 8,
      trials: 24,
      resolved: 5,
      infra_errors: 1,
    });
    const t6 = tool("beta").tasks.find((line) => line.taskId === "t6");
    expect(t6?.trials).toBe(3);
    expect(t6?.cells.map((cell) => cell.status)).toEqual([
      "unresolved",
      "unresolved",
      "unresolved",
      "infra_error",
    ]);
  });

  it("gives each resolve rate its 95% Wilson interval and a seeded bootstrap interval over tasks", () => {
    const alpha = tool("alpha").summary;
    expect(alpha.resolve_rate_ci_low).toBeCloseTo(0.551005559948, 9);
    expect(alpha.resolve_rate_ci_high).toBeCloseTo(0.880006337714, 9);
    expect(tool("beta").summary.resolve_rate_ci_low).toBeCloseTo(0.092448253529, 9);
    expect(tool("beta").summary.resolve_rate_ci_high).toBeCloseTo(0.404704532532, 9);
    expect(alpha.resolve_rate_boot_low).toBeLessThan(0.75);
    expect(alpha.resolve_rate_boot_high).toBeGreaterThan(0.75);
    expect(tool("beta").summary.resolve_rate_boot_low).toBeLessThan(5 / 24);
    expect(tool("beta").summary.resolve_rate_boot_high).toBeGreaterThan(5 / 24);
  });

  it("is the same report every time it is made", async () => {
    const loaded = await loadReport(runsDir, "s");
    expect(buildReport("s", loaded.runs, loaded.tasks, { slices: ["kind"] })).toEqual(report);
  });

  it("reports cost per task and per resolved task, latency with p90, and tokens", () => {
    const alpha = tool("alpha").summary;
    // Three trials of $0.10 on each task: $0.30 a task, $0.10 a trial.
    expect(alpha.cost_per_task).toBeCloseTo(0.3, 12);
    expect(alpha.cost_per_trial).toBeCloseTo(0.1, 12);
    expect(alpha.cost_total).toBeCloseTo(2.4, 12);
    expect(alpha.cost_per_resolved).toBeCloseTo(0.1 / 0.75, 12);
    expect(alpha).toMatchObject({
      latency_mean_s: 2,
      latency_median_s: 2,
      latency_p90_s: 3,
      input_tokens_mean: 1000,
      output_tokens_mean: 200,
      cache_read_tokens_mean: null,
    });
    expect(tool("beta").summary.cost_per_resolved).toBeCloseTo(0.02 / (5 / 24), 12);
  });

  it("computes pass@k and pass^k for k = 1..3", () => {
    const curve = tool("alpha").passAtK;
    expect(curve.map((point) => point.k)).toEqual([1, 2, 3]);
    expect(curve.map((point) => point.tasks)).toEqual([8, 8, 8]);
    expect(curve[0]?.passAtK).toBeCloseTo(0.75, 12);
    expect(curve[1]?.passAtK).toBeCloseTo(7 / 8, 12);
    expect(curve[2]?.passAtK).toBeCloseTo(7 / 8, 12);
    expect(curve[0]?.passHatK).toBeCloseTo(0.75, 12);
    expect(curve[1]?.passHatK).toBeCloseTo(5 / 8, 12);
    expect(curve[2]?.passHatK).toBeCloseTo(0.5, 12);
  });

  it("measures consistency, flip rate and the variance of the rate across trial numbers", () => {
    const alpha = tool("alpha");
    expect(alpha.summary.mean_consistency).toBeCloseTo(7 / 8, 12);
    expect(alpha.summary.flip_rate).toBeCloseTo(0.25, 12);
    expect(alpha.summary.rate_variance).toBeCloseTo(1 / 64, 12);
    expect(alpha.trialRates.map((rate) => rate.rate)).toEqual([7 / 8, 6 / 8, 5 / 8]);
    const t3 = alpha.tasks.find((line) => line.taskId === "t3");
    expect(t3?.consistency).toBeCloseTo(2 / 3, 12);
    expect(t3?.flipRate).toBe(1);
    expect(report.isRepeated).toBe(true);
  });

  it("compares the tools on their shared tasks with a paired test and says so in plain words", () => {
    expect(report.comparisons).toHaveLength(1);
    const [comparison] = report.comparisons;
    expect(comparison).toMatchObject({
      a: "alpha",
      b: "beta",
      tasks: 8,
      aOnly: 6,
      bOnly: 0,
      test: "wilcoxon",
      wilcoxonMethod: "permutation",
      verdict: "better",
      isHolmAdjusted: false,
    });
    expect(comparison?.difference).toBeCloseTo(13 / 24, 12);
    // Six non-zero differences, all positive: 2 / 2^6 under the exact null.
    expect(comparison?.pWilcoxon).toBeCloseTo(2 / 64, 12);
    expect(comparison?.pMcnemar).toBeCloseTo(2 / 64, 12);
    expect(comparison?.interval.low).toBeGreaterThan(0);
    expect(comparison?.sentence).toMatch(
      /^alpha is better than beta: \+54\.2 points \[95% CI \+\d+\.\d, \+\d+\.\d, cluster-paired bootstrap over 2 repositories\], p = 0\.031 \(Wilcoxon signed-rank test\), on 8 shared tasks\. The verdict rests on the cluster-paired interval \(repositories resampled, then tasks within them\); over tasks alone the 95% interval is \[\+\d+\.\d, \+\d+\.\d\]\./,
    );
  });

  it("slices by repository, gold lines, reproduction and a requested field, each row with its n and interval", () => {
    expect(report.slices.map((slice) => slice.field)).toEqual([
      "repo",
      "goldLines",
      "goldFiles",
      "modules",
      "hasReproduction",
      "hasStackTrace",
      "kind",
    ]);
    const repo = report.slices[0];
    expect(repo?.rows.map((row) => row.value)).toEqual(["ledger", "textkit"]);
    const textkit = repo?.rows[1];
    expect(textkit?.tasks).toBe(4);
    expect(textkit?.cells[0]).toMatchObject({ tool: "alpha", tasks: 4, trials: 12, resolved: 10 });
    expect(textkit?.cells[0]?.low).toBeCloseTo(0.551969137747, 9);
    expect(textkit?.cells[0]?.high).toBeCloseTo(0.953034857816, 9);
    expect(textkit?.cells[1]).toMatchObject({ tool: "beta", trials: 12, resolved: 2 });
    const lines = report.slices[1];
    expect(lines?.rows.map((row) => [row.value, row.tasks])).toEqual([
      ["1–2", 3],
      ["3–10", 2],
      ["11–50", 2],
      ["51+", 1],
    ]);
    expect(report.slices[4]?.rows.map((row) => row.value)).toEqual(["yes", "no"]);
    expect(report.slices[6]?.rows.map((row) => [row.value, row.tasks])).toEqual([
      ["edge-case", 4],
      ["logic", 4],
    ]);
  });

  it("cuts a numeric field with many values into quartile buckets labelled by the values inside", async () => {
    const loaded = await loadReport(runsDir, "s");
    const sliced = buildReport("s", loaded.runs, loaded.tasks, { slices: ["descriptionChars"] });
    expect(sliced.slices.at(-1)?.rows.map((row) => [row.value, row.tasks])).toEqual([
      ["100–200", 2],
      ["300–400", 2],
      ["500–600", 2],
      ["700–800", 2],
    ]);
  });

  it("refuses to slice by a field no task has, naming the fields there are", async () => {
    const loaded = await loadReport(runsDir, "s");
    expect(() => buildReport("s", loaded.runs, loaded.tasks, { slices: ["nope"] })).toThrow(
      /--slice "nope": no task of the report has that field/,
    );
  });
});

describe("comparisons of more than two tools", () => {
  it("adjust every pair's p-value with Holm's method and give the verdict on the adjusted one", async () => {
    const dir = path.join(root, "three");
    const all = Object.fromEntries(Object.keys(ALPHA).map((id) => [id, [T]]));
    const none = Object.fromEntries(Object.keys(ALPHA).map((id) => [id, [F]]));
    const half = Object.fromEntries(Object.keys(ALPHA).map((id, i) => [id, [i % 2 === 0]]));
    writeSyntheticRuns(dir, [
      { tool: "all", suite: "s", outcomes: all },
      { tool: "half", suite: "s", outcomes: half },
      { tool: "none", suite: "s", outcomes: none },
    ]);
    const loaded = await loadReport(dir, "s");
    const three = buildReport("s", loaded.runs, loaded.tasks);
    expect(three.comparisons.map((c) => `${c.a}-${c.b}`)).toEqual([
      "all-half",
      "all-none",
      "half-none",
    ]);
    expect(three.comparisons.every((c) => c.test === "mcnemar" && c.isHolmAdjusted)).toBe(true);
    const adjusted = holmAdjust(three.comparisons.map((c) => c.pValue));
    expect(three.comparisons.map((c) => c.pAdjusted)).toEqual(adjusted);
    // all vs none: 8 discordant tasks, p = 2/256, times 3 pairs; the others 4 discordant, p = 1/8.
    expect(three.comparisons[1]?.pAdjusted).toBeCloseTo((3 * 2) / 256, 12);
    expect(three.comparisons.map((c) => c.verdict)).toEqual([
      "not_significant",
      "better",
      "not_significant",
    ]);
    expect(three.comparisons[1]?.sentence).toContain("Holm-adjusted over 3 pairs");
    expect(three.comparisons[0]?.sentence).toMatch(
      /^all and half are not significantly different \(p = 0\.25, McNemar exact test, Holm-adjusted over 3 pairs, level 0\.05\): /,
    );
    expect(three.comparisons[0]?.sentence).not.toMatch(/tied/);
    // Runs made before tasks.json have no facts to slice by.
    expect(three.slices).toEqual([]);
    expect(three.isRepeated).toBe(false);
  });

  it("compare only the tasks both tools attempted, and say how many", async () => {
    const dir = path.join(root, "partial");
    writeSyntheticRuns(dir, [
      { tool: "wide", suite: "s", outcomes: { a: [T], b: [T], c: [T], d: [F] } },
      { tool: "narrow", suite: "s", outcomes: { c: [F], d: [F], e: [T] } },
    ]);
    const loaded = await loadReport(dir, "s");
    const partial = buildReport("s", loaded.runs, loaded.tasks);
    expect(partial.comparisons[0]).toMatchObject({ a: "narrow", b: "wide", tasks: 2 });
    expect(partial.comparisons[0]?.sentence).toContain("on 2 shared tasks");
    expect(partial.taskIds).toEqual(["a", "b", "c", "d", "e"]);
  });
});
