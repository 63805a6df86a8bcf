import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CSV_COLUMNS } from "../../src/report/index.js";
import { runPaths, trialPaths } from "../../src/store/index.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";
import { syntheticTask, writeSyntheticRuns } from "../helpers/synthetic-runs.js";

const root = tempDir();
const runsDir = path.join(root, "runs");
const T = true;
const F = false;

beforeAll(() => {
  const tasks = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"].map((id, i) =>
    syntheticTask(id, i < 4 ? "textkit" : "ledger", {
      kind: i % 2 === 0 ? "logic" : "prose",
      goldLines: 2 + i,
    }),
  );
  writeSyntheticRuns(runsDir, [
    {
      tool: "alpha",
      suite: "s",
      tasks,
      outcomes: Object.fromEntries(
        tasks.map((task, i) => [task.id, i === 4 ? [F, F, F] : [T, T, i % 3 === 0 ? F : T]]),
      ),
      telemetry: () => ({ costUsd: 0.25, inputTokens: 5000, outputTokens: 700, toolMs: 4000 }),
    },
    {
      tool: "beta",
      suite: "s",
      toolVersion: "<b>2</b>",
      tasks,
      outcomes: Object.fromEntries(
        tasks.map((task, i) => [task.id, i === 6 ? [T, T, T] : [F, F, i === 1 ? "infra" : F]]),
      ),
    },
  ]);
  // Text a page must show as text: markup in a log, a log far over the page's per-file limit.
  const beta = trialPaths(runPaths(runsDir, "s-beta"), "t1", 1);
  writeFileSync(
    beta.toolLog,
    '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned=2">\n',
  );
  writeFileSync(beta.graderLog, `${"x".repeat(200)}\n`.repeat(2000) + "THE LAST LINE\n");
  writeFileSync(beta.patch, "");
  mkdirSync(beta.artifactsDir, { recursive: true });
  writeFileSync(
    path.join(beta.artifactsDir, "transcript.jsonl"),
    '{"role":"assistant","content":"I looked at </pre> and <b>x</b>"}\n',
  );
});

const report = (...args: string[]) =>
  runLab(["report", "--suite", "s", "--runs-dir", runsDir, ...args], { cwd: root });

describe("lab report's outputs", () => {
  it("prints Markdown whose first table is the one it always printed, then the new sections", async () => {
    const { code, stdout } = await report();
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    // First the runs it read, then the table it always printed.
    expect(lines.slice(0, 7)).toEqual([
      "## s",
      "",
      "Runs read:",
      "",
      "| tool  | version  | run     | status    | trials done | updated              |",
      "|-------|----------|---------|-----------|------------:|----------------------|",
      "| alpha | 1        | s-alpha | completed |       24/24 | 2025-01-01 00:00 UTC |",
    ]);
    expect(lines.slice(9, 10)).toEqual([
      "| tool  | version  | tasks | resolved | resolve rate | apply rate | empty changes | cost/task | cost/trial | mean latency | median latency | infra errors |",
    ]);
    // Apply rate over the 18 non-empty changes (every failed trial here is an empty change);
    // cost per task is 3 trials of $0.25, cost per trial apart.
    expect(stdout).toMatch(
      /^\| alpha +\| 1 +\| +8 \| +18\/24 \| +75\.0% \| +100\.0% \| +6 \| +\$0\.7500 \| +\$0\.2500 \| +4\.0 s \| +4\.0 s \| +0 \|$/m,
    );
    // beta lost a trial of t2 to an infrastructure error: its rate weighs each task the same.
    expect(stdout).toMatch(/^\| beta +\| <b>2<\/b> \| +8 \| +3\/23 \| +12\.5% \|.* +1 \|$/m);
    expect(stdout).toContain(
      "Tasks have unequal numbers of graded trials (beta: 2 to 3): the resolve rate weighs every task the same",
    );
    for (const heading of [
      "### Resolve rate, cost and tokens",
      "### Repeated trials",
      "### Paired comparisons",
      "### Slices",
      "#### By repository",
      "#### By gold patch lines changed",
    ])
      expect(stdout).toContain(`\n${heading}\n`);
    expect(stdout).toContain("Infrastructure errors, left out of every rate: beta 1.");
    expect(stdout).toMatch(
      /^- alpha is better than beta: \+6\d\.\d points \[95% CI .*, cluster-paired bootstrap over 2 repositories\], p = 0\.0\d\d \(Wilcoxon signed-rank test\), on 8 shared tasks\. The verdict rests on the cluster-paired interval/m,
    );
    expect(stdout).toMatch(/^\| alpha \| pass@k \| +75\.0% \| +87\.5% \| +87\.5% \|$/m);
  });

  it("--slice adds a table per field, and --level changes the verdicts", async () => {
    const sliced = await report("--slice", "kind", "--level", "0.01");
    expect(sliced.stdout).toContain("#### By kind\n");
    expect(sliced.stdout).toMatch(/^\| logic +\| +4 \|/m);
    expect(sliced.stdout).toMatch(
      /^- alpha and beta are not significantly different \(p = 0\.0\d\d, Wilcoxon signed-rank test, level 0\.01\): /m,
    );
    const wrong = await report("--slice", "colour");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--slice "colour": no task of the report has that field');
    expect(wrong.stderr).toContain("Fields the tasks have: goldLines, kind, repo.");
    expect((await report("--level", "5")).stderr).toContain(
      '--level expects a significance level between 0 and 1, e.g. 0.05; got "5".',
    );
  });

  it("--json keeps the original fields of each tool's object and adds the new ones beside them", async () => {
    const rows = JSON.parse((await report("--json")).stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    const [alpha] = rows;
    expect(Object.keys(alpha ?? {}).slice(0, 13)).toEqual([
      "tool",
      "tool_version",
      "run_id",
      "suite",
      "tasks",
      "trials",
      "resolved",
      "resolve_rate",
      "apply_rate",
      "cost_per_task",
      "latency_mean_s",
      "latency_median_s",
      "infra_errors",
    ]);
    expect(alpha).toMatchObject({
      tool: "alpha",
      resolved: 18,
      trials: 24,
      resolve_rate: 0.75,
      label: "alpha",
      run_status: "completed",
      run_trials_done: 24,
      run_trials_planned: 24,
    });
    // Twelve significant digits: no float noise in the output.
    expect(alpha?.cost_per_resolved).toBe(0.333333333333);
    expect(alpha?.resolve_rate_ci_low).toBeCloseTo(0.551005559948, 9);
    expect(rows[1]).toMatchObject({
      tool: "beta",
      tool_version: "<b>2</b>",
      infra_errors: 1,
      cost_per_task: null,
    });
  });

  it("--format json-full prints the whole report: pass@k, comparisons, slices and per-task records", async () => {
    const full = JSON.parse((await report("--format", "json-full")).stdout) as {
      suite: string;
      tools: {
        label: string;
        passAtK: { k: number; passAtK: number }[];
        tasks: { taskId: string }[];
      }[];
      comparisons: {
        a: string;
        b: string;
        tasks: number;
        verdict: string;
        sentence: string;
        oddsRatio: number | null;
      }[];
      slices: { field: string }[];
    };
    expect(full.suite).toBe("s");
    expect(full.tools[0]?.passAtK.map((point) => point.k)).toEqual([1, 2, 3]);
    expect(full.tools[0]?.tasks).toHaveLength(8);
    expect(full.comparisons[0]).toMatchObject({
      a: "alpha",
      b: "beta",
      tasks: 8,
      verdict: "better",
      oddsRatio: null,
    });
    expect(full.slices.map((slice) => slice.field)).toEqual(["repo", "goldLines"]);
  });

  it("--csv prints a header and one row per tool", async () => {
    const { stdout } = await report("--csv");
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(CSV_COLUMNS.join(","));
    const alpha = Object.fromEntries(
      CSV_COLUMNS.map((column, i) => [column, lines[1]?.split(",")[i]]),
    );
    expect(alpha).toMatchObject({
      tool: "alpha",
      resolved: "18",
      resolve_rate: "0.75",
      cache_read_tokens_mean: "",
    });
    expect(lines[2]?.startsWith("beta,<b>2</b>,s-beta,s,8,23,3,")).toBe(true);
  });

  it("refuses two output formats at once", async () => {
    const both = await report("--json", "--csv");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("Choose one output format: --format, --json or --csv.");
    expect((await report("--format", "yaml")).stderr).toMatch(
      /--format expects markdown, json, json-full, csv(, [a-z-]+)*; got "yaml"\./,
    );
  });

  it("--html writes one self-contained page that shows text from the store as text", async () => {
    const file = path.join(root, "out", "report.html");
    // --html writes into a folder that exists (a missing one is a usage error: bad-input tests).
    mkdirSync(path.join(root, "out"), { recursive: true });
    const result = await report("--html", "out/report.html", "--csv");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`lab: wrote ${file}`);
    expect(result.stdout.startsWith("tool,tool_version,")).toBe(true);
    const page = readFileSync(file, "utf8");
    for (const id of ["runs", "summary", "chart", "repeated", "comparisons", "slices", "tasks"])
      expect(page).toContain(`<section id="${id}">`);
    expect(page).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(page).toContain("default-src 'none'");
    // Only the page's own two script elements end; the log's markup is escaped in the data.
    expect(page.match(/<\/script>/g)).toHaveLength(2);
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("\\u003cimg src=x onerror=");
    expect(page).toContain("&lt;b&gt;2&lt;/b&gt;");
    expect(page).not.toContain("<b>2</b>");
    expect(page).toContain("THE LAST LINE");
    expect(page).toMatch(
      /KB, cut: showing the last 128\.0 KB\. The whole file is s-beta\/trials\/t1\/1\/grader\.log in the runs folder\./,
    );
    expect(page).toContain("transcript.jsonl");
  });
});
