/**
 * `lab run --max-cost-total`: a run's spending cap over the cost its trials report (a command
 * tool writing costUsd to $LAB_TELEMETRY_FILE), its stopped end state, and resuming past it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const common = ["--suite", "fixture", "--evals-dir", evalsDir, "--runs-dir", runsDir];
/** Fixes the bug and says it cost $0.50. */
const paidCommand =
  "sed -i 's/a - b/a + b/' src/*/__init__.py; echo '{\"costUsd\": 0.5}' > \"$LAB_TELEMETRY_FILE\"";

function lab(args: readonly string[]) {
  return runLab([...args, ...common], { cwd: root });
}

function paidRun(cap: string | undefined) {
  return lab([
    "run",
    "command",
    "--run-id",
    "paid",
    "--command",
    paidCommand,
    ...(cap === undefined ? [] : ["--max-cost-total", cap]),
  ]);
}

/** The trials of a run that have a result. */
function finishedTrials(runId: string): number {
  const trialsDir = path.join(runsDir, runId, "trials");
  if (!existsSync(trialsDir)) return 0;
  return readdirSync(trialsDir).filter((task) =>
    existsSync(path.join(trialsDir, task, "1", "result.json")),
  ).length;
}

function runJson(runId: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(runsDir, runId, "run.json"), "utf8")) as Record<
    string,
    unknown
  >;
}

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [
    addTask("alpha"),
    addTask("beta"),
    addTask("gamma"),
    addTask("delta"),
  ]);
});

describe("lab run --max-cost-total", () => {
  it("stops starting trials once the reported cost reaches the cap, and says so", async () => {
    const result = await paidRun("1");
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      "run paid stopped for budget: spent $1.00 of --max-cost-total $1.00; 2 trial(s) not started. Rerun the same command with a higher --max-cost-total to continue.",
    );
    expect(result.stderr).toContain("run paid stopped: 2 of 4 trials done, 2 resolved");
    expect(finishedTrials("paid")).toBe(2);
    expect(runJson("paid")).toMatchObject({
      status: "stopped",
      budgetStop: { maxCostUsd: 1, spentUsd: 1, notStarted: 2 },
    });
    const list = await runLab(["runs", "list", "--runs-dir", runsDir], { cwd: root });
    expect(list.stdout).toMatch(/^paid\s+fixture\s+command\s+stopped\s+2\/4\s+2\s/m);
  }, 300_000);

  it("rerun with the same cap: says the cap is reached and starts nothing", async () => {
    const result = await paidRun("1");
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      "run paid: the cap is reached: spent $1.00 of --max-cost-total $1.00; no trial starts.",
    );
    expect(result.stderr).not.toMatch(/\[\d+\/\d+\]/);
    expect(finishedTrials("paid")).toBe(2);
  }, 300_000);

  it("rerun with a higher cap continues from what was spent, and without one completes", async () => {
    const higher = await paidRun("1.4");
    expect(higher.code, higher.stderr).toBe(3);
    expect(higher.stderr).toContain(
      "spent $1.50 of --max-cost-total $1.40; 1 trial(s) not started",
    );
    expect(finishedTrials("paid")).toBe(3);
    const rest = await paidRun("10");
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/run paid completed: 4\/4 resolved/);
    expect(finishedTrials("paid")).toBe(4);
    const record = runJson("paid");
    expect(record.status).toBe("completed");
    expect(record.budgetStop).toBeUndefined();
  }, 300_000);

  it("says once when no trial reports a cost: they count $0 and the cap cannot stop the run", async () => {
    const result = await lab([
      "run",
      "noop",
      "--tasks",
      "alpha,beta",
      "--run-id",
      "free",
      "--max-cost-total",
      "0.01",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const notes = result.stderr.match(/no trial reported a cost/g) ?? [];
    expect(notes, result.stderr).toHaveLength(1);
    expect(result.stderr).toContain("counts a trial without one as $0");
    expect(finishedTrials("free")).toBe(2);
  }, 300_000);

  it("refuses a cap that is not a positive amount, and a queue run", async () => {
    for (const cap of ["abc", "0", "-3"]) {
      const result = await lab(["run", "noop", "--max-cost-total", cap]);
      expect(result.code, cap).toBe(2);
      expect(result.stderr, cap).toContain("--max-cost-total expects a positive amount in USD");
    }
    const queued = await lab([
      "run",
      "noop",
      "--max-cost-total",
      "5",
      "--queue",
      "redis://127.0.0.1:1",
    ]);
    expect(queued.code, queued.stderr).toBe(2);
    expect(queued.stderr).toContain("--max-cost-total does not go with --queue yet");
  });
});
