/**
 * Failures that show: tools that cannot start (exit 127, their script hidden by the sandbox's
 * private /tmp), that time out, that are killed at the memory limit, and a task whose
 * environment cannot be installed, each run by a real `lab run` process under bwrap. Every
 * report format names how they failed, and the run ends with a warning naming the cause.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCgroups } from "../../src/sandbox/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { startLab } from "../helpers/lab-process.js";
import { tempDir } from "../helpers/temp.js";

const cgroups = await detectCgroups();
const hasMemoryLimit = cgroups.memory !== null;

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
// Under /tmp itself whatever TMPDIR says: the point is the sandbox's private /tmp.
const agents = mkdtempSync("/tmp/lab-agents-");
const script = path.join(agents, "agent.sh");
const htmlFile = path.join(root, "report.html");

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `lab ARGS` in a process of its own, over this file's suite and runs. */
async function lab(...args: string[]): Promise<Ran> {
  const child = startLab([...args, "--evals-dir", evalsDir, "--runs-dir", runsDir], {
    cwd: root,
  });
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

const runs: Record<string, Ran> = {};

beforeAll(async () => {
  writeFixtureSuite(evalsDir, "fixture", [
    addTask("alpha"),
    addTask("beta"),
    // A pin no index has: the grade's environment cannot be installed.
    addTask("broken", { pins: ["pytest==8.3.4", "lab-no-such-package-for-tests==0.0.1"] }),
  ]);
  writeFileSync(script, "#!/usr/bin/env bash\nsed -i 's/a - b/a + b/' src/*/__init__.py\n");
  chmodSync(script, 0o755);
  const jobs: [string, string[]][] = [
    ["missing", ["--tasks", "alpha,beta", "--command", `${script} {prompt_file}`]],
    ["shown", ["--tasks", "alpha", "--command", `${script} {prompt_file}`, "--path", agents]],
    ["slow", ["--tasks", "alpha", "--command", "sleep 60", "--timeout", "2s"]],
    ...(hasMemoryLimit
      ? ([
          [
            "hog",
            [
              "--tasks",
              "alpha",
              "--command",
              "head -c 4G /dev/zero | tail -c 4G >/dev/null",
              "--memory",
              "64m",
            ],
          ],
        ] as [string, string[]][])
      : []),
  ];
  for (const [label, args] of jobs) {
    runs[label] = await lab(
      "run",
      "command",
      "--suite",
      "fixture",
      "--label",
      label,
      "--run-id",
      label,
      "--sandbox",
      "bwrap",
      ...args,
    );
  }
  runs.env = await lab(
    "run",
    "gold",
    "--suite",
    "fixture",
    "--tasks",
    "broken",
    "--run-id",
    "env",
    "--label",
    "env",
  );
  for (const [label, ran] of Object.entries(runs))
    expect(ran.code, `${label}: ${ran.stderr}`).toBe(0);
}, 600_000);

afterAll(() => {
  rmSync(agents, { recursive: true, force: true });
});

/** Each tool's row of a JSON report, by label. */
function rowsByLabel(text: string): Record<string, Record<string, unknown>> {
  const rows = JSON.parse(text) as Record<string, unknown>[];
  return Object.fromEntries(rows.map((row) => [String(row.label), row]));
}

describe("failures that show", () => {
  it("ends a run with a warning naming the likely cause when most trials fail one way", () => {
    expect(runs.missing?.stderr).toContain(
      "warning: run missing: the tool exited 127 (command not found) in 2 of 2 trials: the sandbox hides /tmp",
    );
    expect(runs.missing?.stderr).toContain("name its folder in paths (lab.config.json) or --path");
    expect(runs.slow?.stderr).toContain(
      "warning: run slow: the tool timed out in 1 of 1 trials: raise --timeout",
    );
    expect(runs.env?.stderr).toContain(
      "warning: run env: an infrastructure error (environment) in 1 of 1 trials",
    );
    // --path shows the script's folder: the tool runs, fixes the task, and no warning is given.
    expect(runs.shown?.stderr).not.toContain("warning: run shown");
    if (hasMemoryLimit)
      expect(runs.hog?.stderr).toContain(
        "warning: run hog: the tool was stopped by the sandbox's memory limit in 1 of 1 trials: raise --memory",
      );
  });

  it("--path shows a command's folder in the sandbox, as paths does in lab.config.json", async () => {
    const json = await lab("report", "--suite", "fixture", "--json", "--run-id", "shown");
    expect(rowsByLabel(json.stdout).shown).toMatchObject({
      resolved: 1,
      tool_exited_nonzero: 0,
      failure_warning: null,
    });
  });

  it("shows each tool's failure class in Markdown, JSON, CSV, json-full and HTML", async () => {
    const all = ["missing", "slow", "env", ...(hasMemoryLimit ? ["hog"] : [])];
    const ids = all.flatMap((id) => ["--run-id", id]);

    const markdown = await lab("report", "--suite", "fixture", ...ids);
    expect(markdown.code, markdown.stderr).toBe(0);
    const failures = markdown.stdout.slice(markdown.stdout.indexOf("### Failures"));
    // tool, trials, resolve rate, infra error rate, by class, exited non-zero, exit codes, timed out, over a limit, empty
    const cells = (label: string) =>
      (failures.split("\n").find((text) => text.startsWith(`| ${label} `)) ?? "")
        .split("|")
        .slice(1, -1)
        .map((text) => text.trim());
    expect(cells("missing")).toEqual([
      "missing",
      "2",
      "0.0%",
      "0.0%",
      "–",
      "2/2",
      "127 ×2",
      "0/2",
      "–",
      "2/2",
    ]);
    expect(cells("slow")).toEqual([
      "slow",
      "1",
      "0.0%",
      "0.0%",
      "–",
      "0/1",
      "–",
      "1/1",
      "–",
      "1/1",
    ]);
    expect(cells("env")).toEqual([
      "env",
      "1",
      "0.0%",
      "100.0%",
      "environment 1",
      "0/1",
      "–",
      "0/1",
      "–",
      "0/1",
    ]);
    expect(failures).toContain(
      "**Warning:** missing: the tool exited 127 (command not found) in 2 of 2 trials: the sandbox hides /tmp",
    );
    if (hasMemoryLimit) expect(cells("hog")[8]).toBe("memory 1");

    const json = rowsByLabel((await lab("report", "--suite", "fixture", ...ids, "--json")).stdout);
    expect(json.missing).toMatchObject({
      resolve_rate: 0,
      tool_exited_nonzero: 2,
      tool_exit_codes: "127 ×2",
    });
    expect(json.slow).toMatchObject({ tool_timed_out: 1, tool_exited_nonzero: 0 });
    expect(json.env).toMatchObject({ infra_errors: 1, infra_error_rate: 1, infra_environment: 1 });
    if (hasMemoryLimit) expect(json.hog).toMatchObject({ limit_memory: 1 });

    const csv = (await lab("report", "--suite", "fixture", ...ids, "--csv")).stdout
      .trim()
      .split("\n")
      .map((text) => text.split(","));
    const header = csv[0] ?? [];
    const cell = (label: string, column: string) =>
      csv.find((row) => row[header.indexOf("label")] === label)?.[header.indexOf(column)];
    expect(cell("missing", "tool_exit_codes")).toBe("127 ×2");
    expect(cell("slow", "tool_timed_out")).toBe("1");
    expect(cell("env", "infra_environment")).toBe("1");
    if (hasMemoryLimit) expect(cell("hog", "limit_memory")).toBe("1");

    const full = JSON.parse(
      (await lab("report", "--suite", "fixture", ...ids, "--format", "json-full")).stdout,
    ) as { failures: { tools: { label: string; exitCodes: unknown; timedOut: number }[] } };
    const byLabel = Object.fromEntries(full.failures.tools.map((tool) => [tool.label, tool]));
    expect(byLabel.missing).toMatchObject({ exitCodes: [{ code: "127", trials: 2 }] });
    expect(byLabel.slow).toMatchObject({ timedOut: 1 });
    expect(byLabel.env).toMatchObject({ infraClasses: { environment: 1 } });
    if (hasMemoryLimit) expect(byLabel.hog).toMatchObject({ overLimit: { memory: 1 } });

    const html = await lab("report", "--suite", "fixture", ...ids, "--html", htmlFile);
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(htmlFile, "utf8");
    const section = page.slice(page.indexOf('<section id="failures">'));
    expect(section).toContain("127 ×2");
    expect(section).toContain("environment 1");
    expect(section).toContain("the tool exited 127 (command not found) in 2 of 2 trials");
    if (hasMemoryLimit) expect(section).toContain("memory 1");
  }, 120_000);
});
