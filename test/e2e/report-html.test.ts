import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
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
    for (const id of ["summary", "comparisons", "chart", "repeated", "slices", "tasks"]) {
      await expect(page.locator(`section#${id}`).isVisible()).resolves.toBe(true);
    }
    await expect(page.locator("#summary-table tbody tr").count()).resolves.toBe(3);
    await expect(page.locator("#comparison-table tbody tr").count()).resolves.toBe(3);
    await expect(page.locator("#cost-chart circle").count()).resolves.toBe(3);
    await expect(page.locator("#pass-chart polyline").count()).resolves.toBe(2);
    await expect(page.locator("#task-grid button.t").count()).resolves.toBe(12);
    await expect(page.locator("li.verdict").first().textContent()).resolves.toMatch(
      /tied at the 0\.05 level: .* on 3 shared tasks\.$/,
    );
    expect(requests.every((url) => url.startsWith("file://"))).toBe(true);
    expect(errors).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "report.png"), fullPage: true });
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
