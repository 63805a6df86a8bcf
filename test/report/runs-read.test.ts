/**
 * Reports that say what they read (issue 18, item 2): which runs, how complete, which tool is
 * which, comparisons that cannot be made, verdicts that agree with their intervals, rates whose
 * intervals describe them, and output without float noise.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildReport, cleanNumber, loadReport } from "../../src/report/index.js";
import { minimumDetectableDifference } from "../../src/report/power.js";
import { runLab } from "../helpers/lab.js";
import {
  syntheticTask,
  writeSyntheticRuns,
  type SyntheticOutcome,
} from "../helpers/synthetic-runs.js";
import { tempDir } from "../helpers/temp.js";

const T = true;
const F = false;
const root = tempDir();

/** `lab report` over one runs folder, in-process. */
const report = (runsDir: string, ...args: string[]) =>
  runLab(["report", "--suite", "s", "--runs-dir", runsDir, ...args], { cwd: root });

const outcomes = (ids: readonly string[], pick: (index: number) => SyntheticOutcome[]) =>
  Object.fromEntries(ids.map((id, index) => [id, pick(index)]));

const TEN = ["t01", "t02", "t03", "t04", "t05", "t06", "t07", "t08", "t09", "t10"];

describe("which runs a report reads", () => {
  const runsDir = path.join(root, "which");
  writeSyntheticRuns(runsDir, [
    {
      tool: "gold",
      suite: "s",
      outcomes: outcomes(TEN, () => [T]),
      updatedAt: "2025-01-01T10:00:00.000Z",
    },
    // A newer run of gold, stopped after three tasks: not the one to read.
    {
      tool: "gold",
      suite: "s",
      runId: "s-gold-again",
      status: "cancelled",
      outcomes: outcomes(TEN.slice(0, 3), () => [F]),
      plannedTasks: TEN,
      updatedAt: "2025-02-01T10:00:00.000Z",
    },
    // noop has only an unfinished run.
    {
      tool: "noop",
      suite: "s",
      status: "started",
      outcomes: outcomes(TEN.slice(0, 4), () => [F]),
      plannedTasks: TEN,
    },
    // Two command lines are two tools, whatever their run's age.
    {
      tool: "command",
      suite: "s",
      runId: "s-command-aaa",
      fingerprint: "aaa",
      outcomes: outcomes(TEN, (i) => [i < 6]),
    },
    {
      tool: "command",
      suite: "s",
      runId: "s-command-bbb",
      fingerprint: "bbb",
      outcomes: outcomes(TEN, (i) => [i < 3]),
      updatedAt: "2025-03-01T10:00:00.000Z",
    },
  ]);

  it("starts every report by naming the runs: id, tool and version, status, trials done of planned, when", async () => {
    const markdown = (await report(runsDir)).stdout;
    const lines = markdown.split("\n");
    expect(lines.slice(2, 10)).toEqual([
      "Runs read:",
      "",
      "| tool          | version | run           | status               | trials done | updated              |",
      "|---------------|---------|---------------|----------------------|------------:|----------------------|",
      "| command       | 1       | s-command-aaa | completed            |       10/10 | 2025-01-01 00:00 UTC |",
      "| s-command-bbb | 1       | s-command-bbb | completed            |       10/10 | 2025-03-01 10:00 UTC |",
      "| gold          | 1       | s-gold        | completed            |       10/10 | 2025-01-01 10:00 UTC |",
      "| noop          | 1       | s-noop        | started (incomplete) |        4/10 | 2025-01-01 00:00 UTC |",
    ]);
    expect(markdown).toContain(
      "- gold (s-gold): the latest completed run; newer incomplete run not read: s-gold-again (cancelled).",
    );
    expect(markdown).toContain(
      "- noop (s-noop): the only run of this tool is incomplete; the latest (started) is read.",
    );

    const full = JSON.parse((await report(runsDir, "--format", "json-full")).stdout) as Record<
      string,
      unknown
    > & { runs: Record<string, unknown>[] };
    expect(Object.keys(full)[0]).toBe("runs");
    expect(full.runs.find((run) => run.run_id === "s-noop")).toMatchObject({
      tool: "noop",
      status: "started",
      trials_done: 4,
      trials_planned: 10,
      is_complete: false,
    });

    const rows = JSON.parse((await report(runsDir, "--json")).stdout) as Record<string, unknown>[];
    expect(rows.map((row) => [row.label, row.run_status, row.run_trials_done])).toEqual([
      ["command", "completed", 10],
      ["s-command-bbb", "completed", 10],
      ["gold", "completed", 10],
      ["noop", "started", 4],
    ]);

    const file = path.join(root, "which.html");
    expect((await report(runsDir, "--html", file)).code).toBe(0);
    const page = readFileSync(file, "utf8");
    expect(page.indexOf('<section id="runs">')).toBeLessThan(
      page.indexOf('<section id="summary">'),
    );
    expect(page).toContain('<span class="badge incomplete">started (incomplete)</span>');
  });

  it("keeps two command lines apart in every table: the first keeps the name, the later is named by run id, saying why, or by --label", async () => {
    const markdown = (await report(runsDir)).stdout;
    expect(markdown).toMatch(/^\| command +\| 1 +\| +10 \| +6\/10 \| +60\.0% \|/m);
    expect(markdown).toMatch(/^\| s-command-bbb \| 1 +\| +10 \| +3\/10 \| +30\.0% \|/m);
    expect(markdown).toContain(
      '- s-command-bbb (s-command-bbb): named by its run id: "command" is the name of another tool of this suite, run first in s-command-aaa; name this one with --label.',
    );

    const labelled = path.join(root, "labelled");
    writeSyntheticRuns(labelled, [
      {
        tool: "command",
        suite: "s",
        runId: "r1",
        fingerprint: "aaa",
        label: "fast",
        outcomes: outcomes(TEN, () => [T]),
      },
      {
        tool: "command",
        suite: "s",
        runId: "r2",
        fingerprint: "bbb",
        label: "careful",
        outcomes: outcomes(TEN, () => [F]),
      },
    ]);
    const named = (await report(labelled)).stdout;
    expect(named).toMatch(/^\| careful \| 1 +\| r2 +\| completed/m);
    expect(named).toMatch(/^\| fast +\| 1 +\| +10 \| +10\/10 \|/m);
    expect(named).toContain("- fast is better than careful:");
  });

  it("reads a run given by --run-id even when incomplete, and marks it", async () => {
    const result = await report(runsDir, "--run-id", "s-gold-again", "--run-id", "s-gold");
    expect(result.stdout).toMatch(
      /^\| s-gold-again \| 1 +\| s-gold-again \| cancelled \(incomplete\) \| +3\/10 \|/m,
    );
    expect(result.stdout).toContain(
      "- s-gold-again (s-gold-again): named with --run-id; it is cancelled, not completed.",
    );
  });
});

describe("pairs that share no task", () => {
  const runsDir = path.join(root, "apart");
  writeSyntheticRuns(runsDir, [
    { tool: "left", suite: "s", outcomes: { a: [T], b: [T] } },
    { tool: "right", suite: "s", outcomes: { c: [F], d: [F] } },
    { tool: "wide", suite: "s", outcomes: { a: [F], b: [F], c: [T], d: [T] } },
  ]);

  it("show dashes and 'not compared' in every table, never p = 1 'tied'", async () => {
    const markdown = (await report(runsDir)).stdout;
    expect(markdown).toContain("- left and right have no graded task in common: not compared.");
    expect(markdown).toMatch(
      /^\| left +\| right +\| +0 \| +– \| +– \| +– \| +– \| +– \| +– \| +– \| +– \| +– \| not compared +\|$/m,
    );
    expect(markdown).not.toMatch(/left and right are (tied|not significantly different)/);
    const full = JSON.parse((await report(runsDir, "--format", "json-full")).stdout) as {
      comparisons: { a: string; b: string; verdict: string; pValue: unknown; pAdjusted: unknown }[];
    };
    const apart = full.comparisons.find((c) => c.a === "left" && c.b === "right");
    expect(apart).toMatchObject({ verdict: "not_compared", pValue: null, pAdjusted: null });
    // Holm's family is the two pairs that share tasks.
    expect(full.comparisons.filter((c) => c.verdict !== "not_compared")).toHaveLength(2);
    const file = path.join(root, "apart.html");
    await report(runsDir, "--html", file);
    const page = readFileSync(file, "utf8");
    expect(page).toContain('<span class="badge not_compared">not compared</span>');
    expect(page).toContain("no shared task");
  });
});

describe("verdicts and their intervals", () => {
  it("say why when the interval excludes 0 and the test cannot reach the level", async () => {
    // Five tasks only a resolves: McNemar's p = 2/32 = 0.0625, while the bootstrap over twenty
    // tasks almost never draws none of the five.
    const runsDir = path.join(root, "edge");
    const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    writeSyntheticRuns(runsDir, [
      { tool: "a", suite: "s", outcomes: outcomes(ids, (i) => [i < 10]) },
      { tool: "b", suite: "s", outcomes: outcomes(ids, (i) => [i >= 5 && i < 10]) },
    ]);
    const loaded = await loadReport(runsDir, "s");
    const [pair] = buildReport("s", loaded.runs, loaded.tasks).comparisons;
    expect(pair).toMatchObject({ verdict: "not_significant", aOnly: 5, bOnly: 0 });
    expect(pair?.pValue).toBeCloseTo(0.0625, 12);
    expect(pair?.verdictInterval.low).toBeGreaterThan(0);
    expect(pair?.discrepancy).toContain(
      "The 95% interval excludes 0, but with 5 tasks where exactly one tool resolved, McNemar's exact test cannot reach the 0.05 level (its smallest p is 0.063); the bootstrap over tasks has no such floor, and the verdict follows the test.",
    );
    expect(pair?.sentence).toContain(pair?.discrepancy ?? "?");
    // A pair not found different says what these tasks could have found.
    expect(pair?.sentence).toMatch(
      /With 20 tasks of 1 trial, only a difference of \d+\.\d points or more \(from 25\.0%\) would be found 80% of the time\.$/,
    );
  });

  it("hold each pair's interval to its Holm step when several pairs are compared", async () => {
    const runsDir = path.join(root, "holm");
    writeSyntheticRuns(runsDir, [
      { tool: "all", suite: "s", outcomes: outcomes(TEN, () => [T]) },
      { tool: "half", suite: "s", outcomes: outcomes(TEN, (i) => [i % 2 === 0]) },
      { tool: "none", suite: "s", outcomes: outcomes(TEN, () => [F]) },
    ]);
    const loaded = await loadReport(runsDir, "s");
    const { comparisons } = buildReport("s", loaded.runs, loaded.tasks);
    // all-none has the smallest p: Holm tests it at 0.05 / 3, then 0.05 / 2, then 0.05.
    expect(
      comparisons.map((c) => [`${c.a}-${c.b}`, Number(c.verdictConfidence.toFixed(4))]),
    ).toEqual([
      ["all-half", 0.975],
      ["all-none", 0.9833],
      ["half-none", 0.95],
    ]);
    expect(comparisons[1]?.sentence).toMatch(
      /^all is better than none: \+100\.0 points \[98\.3% CI \+100\.0, \+100\.0\], p = 0\.006 \(McNemar exact test, Holm-adjusted over 3 pairs\)/,
    );
    for (const c of comparisons) {
      const excludesZero = c.verdictInterval.low > 0 || c.verdictInterval.high < 0;
      expect(
        excludesZero === (c.verdict === "better" || c.verdict === "worse") ||
          c.discrepancy !== null,
      ).toBe(true);
    }
  });
});

describe("the smallest detectable difference", () => {
  it("is stated for every pair compared, from its shared tasks, trials and lower rate", async () => {
    const runsDir = path.join(root, "detectable");
    const forty = Array.from({ length: 40 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    writeSyntheticRuns(runsDir, [
      // Three trials each: the signed-rank test, planned over three trials.
      { tool: "p", suite: "s", outcomes: outcomes(forty, (i) => [i < 24, i < 20, i < 28]) },
      { tool: "q", suite: "s", outcomes: outcomes(forty, (i) => [i < 12, i < 16, i < 8]) },
      // One trial, on half the tasks: compared with p and q over those 20 only.
      { tool: "r", suite: "s", outcomes: outcomes(forty.slice(0, 20), (i) => [i % 2 === 0]) },
    ]);
    const loaded = await loadReport(runsDir, "s");
    const { comparisons } = buildReport("s", loaded.runs, loaded.tasks);
    expect(comparisons).toHaveLength(3);
    const markdown = (await report(runsDir)).stdout;
    for (const c of comparisons) {
      const trials = c.a === "r" || c.b === "r" ? 1 : 3;
      const baseline = Math.min(c.aRate, c.bRate);
      const expected = minimumDetectableDifference({ tasks: c.tasks, trials, baseline });
      expect(expected, `${c.a}-${c.b}`).not.toBeNull();
      expect(c.detectable).toMatchObject({ difference: expected, trials, baseline, power: 0.8 });
      // The comparison table's column shows it for every pair, not only for ties.
      const cell = `+${((expected ?? 0) * 100).toFixed(1)}`;
      expect(markdown).toMatch(
        new RegExp(
          `^\\| ${c.a} +\\| ${c.b} +\\| +${String(c.tasks)} \\|.*\\| +\\${cell} \\| \\w`,
          "m",
        ),
      );
    }
    expect(comparisons.find((c) => c.a === "p" && c.b === "q")?.tasks).toBe(40);
    expect(comparisons.find((c) => c.a === "p" && c.b === "r")?.tasks).toBe(20);
  });

  it("is none when both tools resolved every shared task: no rate is left above theirs", async () => {
    // gold beside a labelled run of gold (--sandbox none, say) crashed the report here.
    const runsDir = path.join(root, "detectable-all");
    writeSyntheticRuns(runsDir, [
      { tool: "gold", suite: "s", outcomes: outcomes(TEN, () => [T]) },
      { tool: "again", suite: "s", outcomes: outcomes(TEN.slice(0, 2), () => [T]) },
    ]);
    const loaded = await loadReport(runsDir, "s");
    const { comparisons } = buildReport("s", loaded.runs, loaded.tasks);
    expect(comparisons).toHaveLength(1);
    expect(comparisons[0]?.detectable).toMatchObject({ difference: null, baseline: 1 });
    const markdown = await report(runsDir);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^\| again +\| gold +\| +2 \|.*\| +none \| \w/m);
  });
});

describe("rates over tasks with unequal trial counts", () => {
  it("describe one quantity with both intervals, and pass@k says how many tasks enter each k", async () => {
    const runsDir = path.join(root, "unequal");
    writeSyntheticRuns(runsDir, [
      {
        tool: "x",
        suite: "s",
        // t1 lost two trials to infrastructure errors; t2..t4 have three each.
        outcomes: { t1: [T, "infra", "infra"], t2: [F, F, F], t3: [T, F, F], t4: [T, T, F] },
      },
    ]);
    const loaded = await loadReport(runsDir, "s");
    const [tool] = buildReport("s", loaded.runs, loaded.tasks).tools;
    const summary = tool!.summary;
    // Each task weighs a quarter: (1 + 0 + 1/3 + 2/3) / 4.
    expect(summary.resolve_rate).toBeCloseTo(0.5, 12);
    expect(summary.resolve_rate_ci_low).toBeLessThan(0.5);
    expect(summary.resolve_rate_ci_high).toBeGreaterThan(0.5);
    // Kish's effective count: 16 / (1 + 3 * 1/3) = 8 trials.
    const z = 1.959963984540054;
    const center = (0.5 + (z * z) / 16) / (1 + (z * z) / 8);
    expect((summary.resolve_rate_ci_low + summary.resolve_rate_ci_high) / 2).toBeCloseTo(center, 9);
    expect(summary.resolve_rate_boot_low).toBeLessThanOrEqual(0.5);
    expect(summary.resolve_rate_boot_high).toBeGreaterThanOrEqual(0.5);
    expect(summary).toMatchObject({ trials_per_task: 3, trials_per_task_min: 1 });
    expect(tool!.passAtK.map((point) => [point.k, point.tasks])).toEqual([
      [1, 4],
      [2, 3],
      [3, 3],
    ]);
    const markdown = (await report(runsDir)).stdout;
    expect(markdown).toMatch(/^\| x +\| pass@k \| +50\.0% \| .*\(3 tasks\) \| .*\(3 tasks\) \|$/m);
  });
});

describe("numbers in JSON and CSV", () => {
  it("carry no float noise: a variance of 1.8e-32 is 0", async () => {
    const runsDir = path.join(root, "noise");
    // Every trial number resolves 7 of 10 tasks: the rate variance across trials is 0.
    writeSyntheticRuns(runsDir, [
      { tool: "x", suite: "s", outcomes: outcomes(TEN, (i) => [i < 7, i > 2, i < 4 || i > 6]) },
    ]);
    const json = (await report(runsDir, "--format", "json-full")).stdout;
    expect(json).not.toMatch(/\d[eE]-\d/);
    const full = JSON.parse(json) as { tools: { summary: { rate_variance: number } }[] };
    expect(full.tools[0]?.summary.rate_variance).toBe(0);
    const csv = (await report(runsDir, "--csv")).stdout;
    expect(csv).not.toMatch(/\d[eE]-\d/);
    expect(cleanNumber(2.8e-17)).toBe(0);
    expect(cleanNumber(0.1 + 0.2)).toBe(0.3);
    expect(cleanNumber(1.7e-21, true)).toBe(1.7e-21);
  });
});

describe("--format swebench", () => {
  it("has one shape for one run or several: run id to upstream's report", async () => {
    const runsDir = path.join(root, "swebench");
    writeSyntheticRuns(runsDir, [
      {
        tool: "gold",
        suite: "s",
        outcomes: { a: [T], b: [T] },
        tasks: [syntheticTask("a", "r"), syntheticTask("b", "r")],
      },
      { tool: "noop", suite: "s", outcomes: { a: [F], b: [F] } },
    ]);
    const one = JSON.parse(
      (await report(runsDir, "--format", "swebench", "--run-id", "s-gold")).stdout,
    ) as Record<string, { resolved_ids: string[] }>;
    expect(Object.keys(one)).toEqual(["s-gold"]);
    expect(one["s-gold"]?.resolved_ids).toEqual(["a", "b"]);
    const both = JSON.parse((await report(runsDir, "--format", "swebench")).stdout) as Record<
      string,
      unknown
    >;
    expect(Object.keys(both).sort()).toEqual(["s-gold", "s-noop"]);
  });
});
