/**
 * Issue 27 §1 and §4 in the report: clustered intervals beside the task-level ones, verdicts
 * that rest on a cluster-paired interval, changed task sets said at the top, and runs made
 * without isolation marked in every format.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clusteredStandardError, naiveStandardError } from "../../src/report/cluster.js";
import { buildReport, loadReport } from "../../src/report/index.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";
import {
  syntheticTask,
  writeSyntheticRuns,
  type SyntheticOutcome,
} from "../helpers/synthetic-runs.js";

const root = tempDir();

/** Five repositories of ten tasks: r0t0 .. r4t9. */
const IDS = Array.from(
  { length: 50 },
  (_, i) => `r${String(Math.floor(i / 10))}t${String(i % 10)}`,
);
const TASKS = IDS.map((id) => syntheticTask(id, `owner/${id.slice(0, 2)}`, { area: id[1] ?? "" }));
const outcomes = (pick: (id: string, i: number) => boolean) =>
  Object.fromEntries(IDS.map((id, i) => [id, [pick(id, i)] as SyntheticOutcome[]]));

describe("a suite whose tasks span several repositories", () => {
  // a resolves every task of r0 and half of the rest; b only that half. Every difference is in
  // one repository: ten tasks to McNemar's test, one cluster to a cluster bootstrap.
  const dir = path.join(root, "clustered");
  const half = (id: string, i: number) => !id.startsWith("r0") && i % 2 === 0;
  writeSyntheticRuns(dir, [
    {
      tool: "a",
      suite: "s",
      tasks: TASKS,
      outcomes: outcomes((id, i) => id.startsWith("r0") || half(id, i)),
    },
    { tool: "b", suite: "s", tasks: TASKS, outcomes: outcomes(half) },
  ]);

  it("gives each rate a clustered standard error and cluster bootstrap interval beside the task-level ones", async () => {
    const loaded = await loadReport(dir, "s");
    const report = buildReport("s", loaded.runs, loaded.tasks);
    expect(report.clustering).toEqual({ field: "repo", clusters: 5, tasks: 50 });
    const a = report.tools[0]?.summary;
    const rates = IDS.map((id, i) => (id.startsWith("r0") || half(id, i) ? 1 : 0));
    const clusters = IDS.map((id) => id.slice(0, 2));
    expect(a).toMatchObject({ cluster_field: "repo", clusters: 5 });
    expect(a?.resolve_rate_cluster_se).toBeCloseTo(clusteredStandardError(rates, clusters), 12);
    expect(a?.resolve_rate_se).toBeCloseTo(naiveStandardError(rates), 12);
    expect(a?.resolve_rate_boot_low).not.toBeNull();
    const width =
      (a?.resolve_rate_cluster_boot_high ?? 0) - (a?.resolve_rate_cluster_boot_low ?? 0);
    expect(width).toBeGreaterThan(
      (a?.resolve_rate_boot_high ?? 0) - (a?.resolve_rate_boot_low ?? 0),
    );
  });

  it("rests the verdict on the cluster-paired interval, which overrules a difference found in one repository", async () => {
    const loaded = await loadReport(dir, "s");
    const [pair] = buildReport("s", loaded.runs, loaded.tasks).comparisons;
    // McNemar alone: 10 tasks only a resolved, none only b: p = 2 / 2^10.
    expect(pair?.pValue).toBeCloseTo(2 / 1024, 12);
    expect(pair).toMatchObject({ verdict: "not_significant", verdictIntervalKind: "clusters" });
    expect(pair?.clustered).toMatchObject({ field: "repo", clusters: 5 });
    expect(pair?.taskInterval.low).toBeGreaterThan(0);
    expect(pair?.verdictInterval.low).toBeLessThanOrEqual(0);
    expect(pair?.sentence).toMatch(
      /^a and b are not significantly different \(p = 0\.002, McNemar exact test, level 0\.05\): \+20\.0 points \[95% CI \+0\.0, \+\d+\.\d, cluster-paired bootstrap over 5 repositories\], on 50 shared tasks\. The verdict rests on the cluster-paired interval/,
    );
    expect(pair?.sentence).toContain("Clustering by repository widens it");
    expect(pair?.sentence).toContain(
      "The McNemar exact test alone finds a difference (p = 0.002), but it takes tasks as independent, and the cluster-paired interval reaches 0.",
    );
  });

  it("shows the clustered figures in Markdown and says when clustering widens an interval over 1.5 times", async () => {
    const { code, stdout } = await runLab(["report", "--suite", "s", "--runs-dir", dir], {
      cwd: root,
    });
    expect(code).toBe(0);
    expect(stdout).toContain("95% CI (cluster bootstrap over repositories)");
    expect(stdout).toContain("SE (clustered, points)");
    expect(stdout).toContain("The 50 tasks fall in 5 repositories");
    expect(stdout).toContain("| not significantly different |");
    expect(stdout).not.toMatch(/\btied\b/);
    // All or nothing by repository: the task-level interval is far too narrow.
    const blocks = path.join(root, "blocks");
    writeSyntheticRuns(blocks, [
      { tool: "c", suite: "s", tasks: TASKS, outcomes: outcomes((id) => id < "r2") },
    ]);
    const widened = await runLab(["report", "--suite", "s", "--runs-dir", blocks], { cwd: root });
    expect(widened.stdout).toMatch(
      /Clustering by repository widens the bootstrap interval more than 1\.5 times: c \d+\.\d times\./,
    );
  });

  it("clusters by another field with --cluster, and names a field no task has", async () => {
    const byArea = await runLab(
      ["report", "--suite", "s", "--runs-dir", dir, "--cluster", "area", "--format", "json-full"],
      { cwd: root },
    );
    expect(byArea.code, byArea.stderr).toBe(0);
    expect((JSON.parse(byArea.stdout) as { clustering: unknown }).clustering).toEqual({
      field: "area",
      clusters: 5,
      tasks: 50,
    });
    const wrong = await runLab(
      ["report", "--suite", "s", "--runs-dir", dir, "--cluster", "colour"],
      {
        cwd: root,
      },
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--cluster "colour": no task of the report has that field.');
  });

  it("says why when the cluster-paired interval excludes 0 and the test cannot reach the level", async () => {
    // Five repositories of four tasks, one task in each that only a resolves: McNemar's exact
    // p is 2 / 2^5 however it is spread, while every repository shows a's lead.
    const spread = path.join(root, "spread");
    const ids = IDS.filter((id) => Number(id.slice(3)) < 4);
    const only = (id: string) => id.endsWith("t0");
    writeSyntheticRuns(spread, [
      {
        tool: "a",
        suite: "s",
        tasks: TASKS,
        outcomes: Object.fromEntries(ids.map((id) => [id, [only(id)] as SyntheticOutcome[]])),
      },
      {
        tool: "b",
        suite: "s",
        tasks: TASKS,
        outcomes: Object.fromEntries(ids.map((id) => [id, [false] as SyntheticOutcome[]])),
      },
    ]);
    const loaded = await loadReport(spread, "s");
    const [pair] = buildReport("s", loaded.runs, loaded.tasks).comparisons;
    expect(pair).toMatchObject({ verdict: "not_significant", verdictIntervalKind: "clusters" });
    expect(pair?.verdictInterval.low).toBeGreaterThan(0);
    expect(pair?.discrepancy).toBe(
      "The 95% interval excludes 0, but with 5 tasks where exactly one tool resolved, McNemar's exact test cannot reach the 0.05 level (its smallest p is 0.063); the cluster-paired bootstrap has no such floor, and the verdict follows the test.",
    );
  });

  it("gives no clustered figures to a tool whose tasks are all in one repository", async () => {
    const one = path.join(root, "one-repo");
    const r0 = IDS.filter((id) => id.startsWith("r0"));
    writeSyntheticRuns(one, [
      { tool: "wide", suite: "s", tasks: TASKS, outcomes: outcomes((_, i) => i % 2 === 0) },
      {
        tool: "narrow",
        suite: "s",
        tasks: TASKS,
        outcomes: Object.fromEntries(r0.map((id, i) => [id, [i % 2 === 0] as SyntheticOutcome[]])),
      },
    ]);
    const loaded = await loadReport(one, "s");
    const report = buildReport("s", loaded.runs, loaded.tasks);
    const narrow = report.tools.find((tool) => tool.label === "narrow")?.summary;
    expect(narrow).toMatchObject({
      clusters: 1,
      resolve_rate_cluster_se: null,
      resolve_rate_cluster_boot_low: null,
      resolve_rate_cluster_boot_high: null,
    });
    // Their pair shares one repository's tasks: compared on tasks alone.
    expect(report.comparisons[0]).toMatchObject({ clustered: null, verdictIntervalKind: "tasks" });
  });

  it("keeps to task-level figures when every task is its own repository", async () => {
    const flat = path.join(root, "flat");
    writeSyntheticRuns(flat, [
      {
        tool: "a",
        suite: "s",
        tasks: IDS.map((id) => syntheticTask(id, id)),
        outcomes: outcomes((_, i) => i % 2 === 0),
      },
    ]);
    const loaded = await loadReport(flat, "s");
    const report = buildReport("s", loaded.runs, loaded.tasks);
    expect(report.clustering).toBeNull();
    expect(report.tools[0]?.summary).toMatchObject({
      cluster_field: null,
      clusters: null,
      resolve_rate_cluster_se: null,
      resolve_rate_cluster_boot_low: null,
    });
  });
});

describe("runs over different task sets", () => {
  it("says so at the top and names the runs, in Markdown, and on stderr beside JSON", async () => {
    const dir = path.join(root, "sets");
    writeSyntheticRuns(dir, [
      { tool: "wide", suite: "s", outcomes: { a: [true], b: [true], c: [false] } },
      { tool: "narrow", suite: "s", outcomes: { b: [false], c: [false] } },
    ]);
    const markdown = await runLab(["report", "--suite", "s", "--runs-dir", dir], { cwd: root });
    const note =
      "The runs read cover different task sets: narrow (s-narrow): 2 tasks; wide (s-wide): 3 tasks. Each comparison uses only the tasks its two runs share, and says how many.";
    const top = markdown.stdout.split("###")[0] ?? "";
    expect(top).toContain(note);
    expect(markdown.stdout).toContain("on 2 shared tasks");
    const json = await runLab(["report", "--suite", "s", "--runs-dir", dir, "--json"], {
      cwd: root,
    });
    expect(json.stderr).toContain(`lab: ${note}`);
    const same = path.join(root, "same-sets");
    writeSyntheticRuns(same, [
      { tool: "x", suite: "s", outcomes: { a: [true], b: [true] } },
      { tool: "y", suite: "s", outcomes: { a: [false], b: [true] } },
    ]);
    const quiet = await runLab(["report", "--suite", "s", "--runs-dir", same], { cwd: root });
    expect(quiet.stdout).not.toContain("different task sets");
  });
});

describe("a run made with --sandbox none", () => {
  it("is marked not isolated in every format", async () => {
    const dir = path.join(root, "none");
    writeSyntheticRuns(dir, [
      {
        tool: "loose",
        suite: "s",
        outcomes: { a: [true], b: [false] },
        config: { sandbox: { provider: "none", isolatesFilesystem: false } },
      },
      {
        tool: "boxed",
        suite: "s",
        outcomes: { a: [true], b: [false] },
        config: { sandbox: { provider: "bwrap", isolatesFilesystem: true } },
      },
    ]);
    const report = (...args: string[]) =>
      runLab(["report", "--suite", "s", "--runs-dir", dir, ...args], { cwd: root });
    const words = "not isolated: the tool could read the oracle";
    const markdown = (await report()).stdout;
    expect(markdown).toContain(`- loose (s-loose): ${words} (--sandbox none).`);
    expect(markdown).not.toContain("- boxed (s-boxed)");
    const rows = JSON.parse((await report("--json")).stdout) as {
      label: string;
      is_isolated: boolean;
    }[];
    expect(rows.map((row) => [row.label, row.is_isolated])).toEqual([
      ["boxed", true],
      ["loose", false],
    ]);
    const full = JSON.parse((await report("--format", "json-full")).stdout) as {
      runs: { run_id: string; is_isolated: boolean; note: string | null }[];
    };
    expect(full.runs.find((run) => run.run_id === "s-loose")).toMatchObject({
      is_isolated: false,
      note: `${words} (--sandbox none)`,
    });
    const csv = (await report("--csv")).stdout.trim().split("\n");
    const column = csv[0]?.split(",").indexOf("is_isolated") ?? -1;
    expect(column).toBeGreaterThan(-1);
    expect(csv.slice(1).map((line) => line.split(",")[column])).toEqual(["true", "false"]);
    const html = path.join(root, "none.html");
    await report("--html", html);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(html, "utf8")).toContain(words);
  });
});
