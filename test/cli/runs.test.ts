/**
 * `lab runs list`, `lab runs rm` and `lab show`, over real runs of a fixture suite (a command
 * tool that fixes the bug and reports a cost, and noop) made by the CLI itself.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const common = ["--evals-dir", evalsDir, "--runs-dir", runsDir];
const fixCommand =
  "sed -i 's/a - b/a + b/' src/*/__init__.py; echo hello-from-the-tool; echo '{\"costUsd\": 0.25}' > \"$LAB_TELEMETRY_FILE\"";

function lab(args: readonly string[]) {
  return runLab([...args, ...common], { cwd: root });
}

beforeAll(async () => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
  const fixed = await lab([
    "run",
    "command",
    "--suite",
    "fixture",
    "--run-id",
    "fixer",
    "--label",
    "fixer-tool",
    "--command",
    fixCommand,
  ]);
  expect(fixed.code, fixed.stderr).toBe(0);
  const noop = await lab(["run", "noop", "--suite", "fixture", "--tasks", "alpha"]);
  expect(noop.code, noop.stderr).toBe(0);
}, 300_000);

describe("the commands' help", () => {
  it("lab --help lists runs and show; each has its own --help; an unknown verb is a usage error", async () => {
    const main = await runLab(["--help"], { cwd: root });
    expect(main.stdout).toMatch(/^ {2}runs {2,}List the runs/m);
    expect(main.stdout).toMatch(/^ {2}show {2,}Show one trial/m);
    const runs = await runLab(["runs", "--help"], { cwd: root });
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(/^Usage: lab runs \(list \| rm ID\.\.\.\)/);
    const show = await runLab(["help", "show"], { cwd: root });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^Usage: lab show RUN TASK \[TRIAL\]/);
    expect(show.stdout).toContain("--log NAME");
    const wrong = await lab(["runs", "ls"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('lab runs has no "ls": it takes list or rm.');
  });
});

describe("lab runs list", () => {
  it("lists each run: id, suite, tool, state, trials done of planned, resolved, started", async () => {
    const result = await lab(["runs", "list"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^RUN\s+SUITE\s+TOOL\s+STATE\s+TRIALS\s+RESOLVED\s+STARTED$/);
    expect(lines).toHaveLength(3);
    expect(result.stdout).toMatch(
      /^fixer\s+fixture\s+fixer-tool\s+completed\s+2\/2\s+2\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC$/m,
    );
    expect(result.stdout).toMatch(/^fixture-noop\s+fixture\s+noop\s+completed\s+1\/1\s+0\s/m);
  });

  it("--json: one object per run, with its cost", async () => {
    const result = await lab(["runs", "list", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const runs = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const fixer = runs.find((run) => run.runId === "fixer");
    expect(fixer).toMatchObject({
      suite: "fixture",
      tool: "command",
      label: "fixer-tool",
      state: "completed",
      trialsDone: 2,
      trialsPlanned: 2,
      resolved: 2,
      costUsd: 0.5,
    });
  });

  it("says a run whose lock a live process holds is running, and an unreadable one is unreadable", async () => {
    const running = path.join(runsDir, "busy");
    mkdirSync(running, { recursive: true });
    const record = JSON.parse(readFileSync(path.join(runsDir, "fixer", "run.json"), "utf8")) as {
      runId: string;
    };
    writeFileSync(path.join(running, "run.json"), JSON.stringify({ ...record, runId: "busy" }));
    // This very test process holds it: alive, on this host.
    writeFileSync(
      path.join(running, "run.lock"),
      JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }),
    );
    mkdirSync(path.join(runsDir, "broken"));
    writeFileSync(path.join(runsDir, "broken", "run.json"), "{ not json");
    const result = await lab(["runs", "list"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^busy\\s+fixture\\s+fixer-tool\\s+running \\(pid ${String(process.pid)}\\)`, "m"),
    );
    expect(result.stdout).toMatch(/^broken\s+-\s+-\s+unreadable\s/m);
    expect(result.stderr).toMatch(/broken: .*run\.json is not valid JSON/);
  });
});

describe("lab runs rm", () => {
  it("refuses a running run, naming its process, and removes nothing", async () => {
    const result = await lab(["runs", "rm", "broken", "busy"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Run "busy" is running (lab process ${String(process.pid)}`);
    expect(result.stderr).toContain("No run was removed");
    expect(existsSync(path.join(runsDir, "busy", "run.json"))).toBe(true);
    expect(existsSync(path.join(runsDir, "broken", "run.json"))).toBe(true);
  });

  it("offers the near id for an unknown one, and refuses ids that leave the runs folder", async () => {
    const typo = await lab(["runs", "rm", "fixture-nop"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('No run "fixture-nop"');
    expect(typo.stderr).toContain("Did you mean fixture-noop?");
    // A folder beside the runs folder that looks like a run: never reachable by an id.
    const outside = path.join(root, "outside");
    cpSync(path.join(runsDir, "fixer"), outside, { recursive: true });
    for (const id of ["../outside", "..", "fixer/../../outside", outside]) {
      const escaped = await lab(["runs", "rm", id]);
      expect(escaped.code, id).toBe(2);
      expect(escaped.stderr, id).toContain("is not a run id");
    }
    expect(existsSync(path.join(outside, "run.json"))).toBe(true);
    expect(existsSync(path.join(runsDir, "fixer", "run.json"))).toBe(true);
  });

  it("removes runs that are not running; the list no longer has them", async () => {
    const result = await lab(["runs", "rm", "broken"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("removed run broken");
    expect(existsSync(path.join(runsDir, "broken"))).toBe(false);
    const list = await lab(["runs", "list"]);
    expect(list.stdout).not.toMatch(/^broken/m);
    expect(list.stdout).toMatch(/^fixture-noop/m);
  });
});

describe("lab show", () => {
  it("sums up a resolved trial: outcome, grade, cost, times and where its logs are", async () => {
    const result = await lab(["show", "fixer", "alpha"]);
    expect(result.code, result.stderr).toBe(0);
    const trialDir = path.join(runsDir, "fixer", "trials", "alpha", "1");
    expect(result.stdout).toContain("run fixer, task alpha, trial 1 of 1");
    expect(result.stdout).toContain("outcome: graded");
    expect(result.stdout).toContain("resolved: yes");
    expect(result.stdout).toContain("FAIL_TO_PASS: 0 of 1 failing");
    expect(result.stdout).toContain("tampering: none found");
    expect(result.stdout).toContain("cost: $0.2500");
    expect(result.stdout).toMatch(/time: \d+\.\d s \(/);
    expect(result.stdout).toContain(`tool log:    ${path.join(trialDir, "tool.log")}`);
    expect(result.stdout).toContain(`grader log:  ${path.join(trialDir, "grader.log")}`);
  });

  it("names the failing hidden tests of an unresolved trial", async () => {
    const result = await lab(["show", "fixture-noop", "alpha", "1"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("resolved: no");
    expect(result.stdout).toContain(
      "FAIL_TO_PASS: 1 of 1 failing\n    tests/test_add.py::test_two",
    );
    expect(result.stdout).toContain("PASS_TO_PASS: 0 of 1 failing");
    expect(result.stdout).toContain("cost: not reported");
  });

  it("--log prints the tool's log, the grader's, or the patch", async () => {
    const tool = await lab(["show", "fixer", "beta", "--log", "tool"]);
    expect(tool.code, tool.stderr).toBe(0);
    expect(tool.stdout).toContain("hello-from-the-tool");
    const grader = await lab(["show", "fixer", "beta", "--log", "grader"]);
    expect(grader.stdout).toMatch(/test_two PASSED|PASSED .*test_two/);
    const patch = await lab(["show", "fixer", "beta", "--log", "patch"]);
    expect(patch.stdout).toContain("+    return a + b");
    const bad = await lab(["show", "fixer", "beta", "--log", "test"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--log expects tool, grader, patch");
  });

  it("errors name the runs, tasks and trials there are", async () => {
    const run = await lab(["show", "fixr", "alpha"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Did you mean fixer?");
    const task = await lab(["show", "fixer", "gamma"]);
    expect(task.code).toBe(1);
    expect(task.stderr).toContain('Run "fixer" has no task "gamma"');
    expect(task.stderr).toContain("Its tasks: alpha, beta.");
    const escaped = await lab(["show", "fixer", "../../fixer/trials/alpha"]);
    expect(escaped.code).toBe(1);
    expect(escaped.stderr).toContain("has no task");
    const trial = await lab(["show", "fixer", "alpha", "2"]);
    expect(trial.code).toBe(1);
    expect(trial.stderr).toContain("has no trial 2");
    expect(trial.stderr).toContain("Its trials: 1.");
  });
});
