import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

/** Debian's chromium; scripts/test.sh installs it. Never skipped: a missing browser fails. */
const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = path.join(repoRoot, ".cache", "test-artifacts");

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const pageFile = path.join(root, "report.html");
const firstPageFile = path.join(root, "first-run.html");
let browser: Browser | undefined;
let page: Page;
const requests: string[] = [];
const errors: string[] = [];

/** Fixes every task but gamma, reports cost and tokens, keeps a transcript, logs markup. */
const FIXER = [
  `case "$(cat {prompt_file})" in *gamma*) echo 'no idea';; *) sed -i 's/a - b/a + b/' src/*/__init__.py;; esac`,
  `printf '{"costUsd":0.042,"inputTokens":12000,"outputTokens":800}' > "$LAB_TELEMETRY_FILE"`,
  `printf 'user: fix the bug\\nassistant: done <b>bold?</b>\\n' > "$(dirname "$LAB_TELEMETRY_FILE")/transcript.txt"`,
  `echo '</script><img src=x onerror="window.pwned=1">'`,
].join("; ");

const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runsDir];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the HTML report is tested in Debian's chromium. Install it with \`apt-get install -y chromium\` (scripts/test.sh does, as root).`,
    );
  }
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta"), addTask("gamma")]);
  // Difficulty facts, as generated suites carry them, so the page has difficulty slices.
  ["alpha", "beta", "gamma"].forEach((id, index) => {
    const file = path.join(evalsDir, "fixture", "tasks", id, "task.json");
    const info = JSON.parse(readFileSync(file, "utf8")) as { metadata: Record<string, unknown> };
    info.metadata = {
      ...info.metadata,
      goldLines: 2 + index * 10,
      hasStackTrace: index === 1,
      hasReproduction: index !== 1,
    };
    writeFileSync(file, JSON.stringify(info, null, 2));
  });
  for (const argv of [
    at("run", "gold", "--suite", "fixture", "--concurrency", "2"),
    at("run", "noop", "--suite", "fixture", "--concurrency", "2"),
    at(
      "run",
      "command",
      "--suite",
      "fixture",
      "--trials",
      "2",
      "--concurrency",
      "2",
      "--command",
      FIXER,
    ),
  ]) {
    const result = await runLab(argv, { cwd: root });
    expect(result.code, result.stderr).toBe(0);
  }
  const report = await runLab(at("report", "--suite", "fixture", "--html", pageFile), {
    cwd: root,
  });
  expect(report.code, report.stderr).toBe(0);
  // The most common first run: gold and noop, no cost reported.
  const first = await runLab(
    at(
      "report",
      "--suite",
      "fixture",
      "--run-id",
      "fixture-gold",
      "--run-id",
      "fixture-noop",
      "--html",
      firstPageFile,
    ),
    { cwd: root },
  );
  expect(first.code, first.stderr).toBe(0);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(`file://${pageFile}`);
}, 600_000);

afterAll(async () => {
  await browser?.close();
});

describe("the HTML report of real runs, in Chromium", () => {
  it("the runner kept each run's task facts and results index in the store", () => {
    for (const run of readdirSync(runsDir)) {
      const tasks = JSON.parse(readFileSync(path.join(runsDir, run, "tasks.json"), "utf8")) as {
        tasks: Record<string, { repo: string; metadata: Record<string, unknown> }>;
      };
      expect(Object.keys(tasks.tasks)).toEqual(["alpha", "beta", "gamma"]);
      expect(tasks.tasks.alpha).toMatchObject({ repo: "alpha", metadata: { kind: "fixture" } });
      const lines = readFileSync(path.join(runsDir, run, "results.jsonl"), "utf8")
        .trim()
        .split("\n");
      expect(lines).toHaveLength(run.startsWith("fixture-command") ? 6 : 3);
    }
  });

  it("shows every section, loads nothing but itself, and runs without errors", async () => {
    for (const id of ["runs", "summary", "comparisons", "chart", "repeated", "slices", "tasks"]) {
      await expect(page.locator(`section#${id}`).isVisible()).resolves.toBe(true);
    }
    await expect(page.locator("#summary-table tbody tr").count()).resolves.toBe(3);
    await expect(page.locator("#comparison-table tbody tr").count()).resolves.toBe(3);
    await expect(page.locator("#cost-chart circle").count()).resolves.toBe(3);
    await expect(page.locator("#pass-chart polyline").count()).resolves.toBe(2);
    await expect(page.locator("#task-grid button.t").count()).resolves.toBe(12);
    await expect(page.locator("li.verdict").first().textContent()).resolves.toMatch(
      /not significantly different \(p = [^)]*, level 0\.05\): .* on 3 shared tasks\. With 3 tasks of 1 trial/,
    );
    expect(requests.every((url) => url.startsWith("file://"))).toBe(true);
    expect(errors).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "report.png"), fullPage: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "report-top.png") });
    // The page from its runs to its first slices: docs/report-html.png is this picture.
    await page.screenshot({
      path: path.join(SCREENSHOTS, "report-docs.png"),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1400, height: 2300 },
    });
  });

  it("draws every chart with marks: rates with both intervals, pair differences, slices, cost, pass@k", async () => {
    for (const id of ["rate-chart", "diff-chart", "cost-chart", "pass-chart"])
      await expect(page.locator(`svg#${id}`).count(), id).resolves.toBe(1);
    // Each tool's rate has its point, its Wilson and its bootstrap interval (3 lines each).
    await expect(page.locator("#rate-chart circle.mark").count()).resolves.toBe(3);
    await expect(page.locator("#rate-chart line.mark").count()).resolves.toBe(18);
    await expect(page.locator("#diff-chart circle.mark").count()).resolves.toBe(3);
    // Scripts run in the page, given as text: the tests are compiled without the DOM's types.
    const sliceCharts = await page.evaluate<string[]>(
      `[...document.querySelectorAll("svg.slice-chart")].map((chart) => chart.id)`,
    );
    expect(sliceCharts).toEqual([
      "slice-chart-repo",
      "slice-chart-goldLines",
      "slice-chart-hasReproduction",
      "slice-chart-hasStackTrace",
    ]);
    const marks = await page.evaluate<{ id: string; drawn: number }[]>(
      `[...document.querySelectorAll("svg.chart")].map((chart) => ({
        id: chart.id,
        drawn: [...chart.querySelectorAll(".mark")].filter((mark) => {
          const box = mark.getBBox();
          return box.width > 0 || box.height > 0;
        }).length,
      }))`,
    );
    expect(marks.length).toBeGreaterThanOrEqual(8);
    for (const chart of marks) expect(chart.drawn, chart.id).toBeGreaterThan(0);
  });

  it("names slices in words, not field names", async () => {
    const headers = await page.locator("#slices thead th").allTextContents();
    expect(headers).toContain("stack trace in the issue");
    expect(headers).toContain("gold patch lines changed");
    expect(headers.filter((text) => /[a-z][A-Z]/.test(text))).toEqual([]);
    await expect(page.locator("#slices h3").allTextContents()).resolves.toContain(
      "By stack trace in the issue",
    );
  });

  it("keeps every name in the cost chart clear of every bar, point and other name", async () => {
    type Rect = { x1: number; y1: number; x2: number; y2: number };
    const boxes = await page.evaluate<{ names: (Rect & { text: string })[]; marks: Rect[] }>(
      `(() => {
        const chart = document.getElementById("cost-chart");
        const rect = (element) => {
          const box = element.getBoundingClientRect();
          return { x1: box.left, y1: box.top, x2: box.right, y2: box.bottom };
        };
        return {
          names: [...chart.querySelectorAll("text.name")].map((text) => ({ text: text.textContent, ...rect(text) })),
          marks: [...chart.querySelectorAll(".mark")].map(rect),
        };
      })()`,
    );
    expect(boxes.names).toHaveLength(3);
    const meet = (a: Rect, b: Rect) => a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2;
    for (const name of boxes.names) {
      expect(
        boxes.marks.filter((mark) => meet(name, mark)),
        name.text,
      ).toEqual([]);
      expect(
        boxes.names.filter((other) => other !== name && meet(name, other)),
        name.text,
      ).toEqual([]);
    }
    await page.locator("#chart").screenshot({ path: path.join(SCREENSHOTS, "report-cost.png") });
  });

  it("says 'no change' for an empty change, not 'patch applied: no'", async () => {
    await page.locator('#task-grid button[aria-label^="noop · alpha · trial 1"]').click();
    await page.locator("aside#trial.open").waitFor();
    const facts = (await page.locator("#trial-facts").textContent()) ?? "";
    expect(facts).toContain("no change (the tool left the work tree as it was)");
    expect(facts).not.toContain("patch applied");
    await page.keyboard.press("Escape");
  });

  it("opens a trial's patch when its grid cell is clicked, and its logs and transcript by tab", async () => {
    await page.locator('#task-grid button[aria-label^="gold · alpha · trial 1: resolved"]').click();
    await page.locator("aside#trial.open").waitFor();
    await expect(page.locator("#trial-title").textContent()).resolves.toContain(
      "gold · alpha · trial 1",
    );
    await expect(page.locator("#trial-file").textContent()).resolves.toContain("+    return a + b");
    await expect(page.locator("#trial-file span.add").count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, "report-trial.png") });

    await page.locator('#task-grid button[aria-label^="command · gamma · trial 2"]').click();
    await expect(page.locator("#trial-title").textContent()).resolves.toContain(
      "command · gamma · trial 2",
    );
    await expect(page.locator("#trial-facts").textContent()).resolves.toContain("$0.0420");
    await page.locator("#trial-tabs button", { hasText: "tool.log" }).click();
    await expect(page.locator("#trial-file").textContent()).resolves.toContain(
      '</script><img src=x onerror="window.pwned=1">',
    );
    await page.locator("#trial-tabs button", { hasText: "transcript.txt" }).click();
    await expect(page.locator("#trial-file").textContent()).resolves.toContain(
      "assistant: done <b>bold?</b>",
    );
    await page.locator("#trial-tabs button", { hasText: "grader.log" }).click();
    await expect(page.locator("#trial-file").textContent()).resolves.toMatch(/FAILED|failed/);
    await expect(
      page.evaluate(() => (globalThis as { pwned?: number }).pwned),
    ).resolves.toBeUndefined();
    await expect(page.locator("#trial-file b").count()).resolves.toBe(0);

    await page.keyboard.press("Escape");
    await expect(page.locator("aside#trial.open").count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });
});

describe("the page of a first run (gold and noop, no cost reported), in Chromium", () => {
  it("still draws the rate, difference and slice charts, and says why there is no cost chart", async () => {
    const first = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    await first.goto(`file://${firstPageFile}`);
    await expect(first.locator("#rate-chart circle.mark").count()).resolves.toBe(2);
    await expect(first.locator("#diff-chart circle.mark").count()).resolves.toBe(1);
    await expect(first.locator("svg.slice-chart").count()).resolves.toBe(4);
    await expect(first.locator("#cost-chart").count()).resolves.toBe(0);
    await expect(first.locator("#chart").textContent()).resolves.toContain(
      "No tool reported its cost",
    );
    await expect(first.locator("li.verdict").first().textContent()).resolves.toMatch(
      /^gold and noop are not significantly different \(p = [^)]*, level 0\.05\): \+100\.0 points/,
    );
    await first.screenshot({ path: path.join(SCREENSHOTS, "report-first-run.png") });
    await first.close();
  });
});
