/**
 * `lab plan`: the numbers it prints are report/power.ts's (checked by simulation in
 * test/report/power.test.ts); here, that the command reads its options and the suite and says
 * what the plan means for it.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { minimumDetectableDifference, tasksNeeded } from "../../src/report/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const plan = (...args: string[]) =>
  runLab(["plan", ...args, "--evals-dir", evalsDir], { cwd: root });

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta"), addTask("gamma")]);
});

describe("lab plan", () => {
  it("says how many tasks and trials a difference needs, and whether the suite has them", async () => {
    const result = await plan("--suite", "fixture", "--baseline", "0.4", "--difference", "0.05");
    expect(result.code, result.stderr).toBe(0);
    const needed = tasksNeeded({ trials: 1, baseline: 0.4, difference: 0.05 });
    expect(result.stdout).toContain(
      "Detecting +5.0 points over a 40.0% baseline (45.0% against 40.0%) at 80.0% power, level 0.05",
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^\\| +1 \\| McNemar exact test +\\| +${String(needed)} \\| +${String(needed)} \\| too few +\\|$`,
        "m",
      ),
    );
    for (const trials of [2, 3, 5, 10])
      expect(result.stdout).toMatch(
        new RegExp(`^\\| +${String(trials)} \\| Wilcoxon signed-rank test \\|`, "m"),
      );
    expect(result.stdout).toContain(
      "With its 3 tasks, fixture detects at 80.0% power, over 40.0%: no difference at all with 1 trial per task;",
    );
  });

  it("plans one number of trials with --trials, as JSON that matches the maths", async () => {
    const result = await plan(
      "--baseline",
      "40%",
      "--difference",
      "10%",
      "--trials",
      "3",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      suite: null;
      designs: { trials: number; test: string; tasks: number; trialsPerTool: number }[];
    };
    const tasks = tasksNeeded({ trials: 3, baseline: 0.4, difference: 0.1 });
    expect(json.suite).toBeNull();
    expect(json.designs).toEqual([
      { trials: 3, test: "wilcoxon", tasks, trialsPerTool: (tasks ?? 0) * 3, fitsSuite: null },
    ]);
  });

  it("gives a suite's smallest detectable difference per number of trials", async () => {
    const result = await plan(
      "--suite",
      "fixture",
      "--baseline",
      "0",
      "--difference",
      "0.5",
      "--trials",
      "10",
      "--json",
    );
    const json = JSON.parse(result.stdout) as {
      suiteTasks: number;
      detectable: { trials: number; difference: number }[];
    };
    expect(json.suiteTasks).toBe(3);
    expect(json.detectable).toEqual([
      {
        trials: 10,
        difference: minimumDetectableDifference({ tasks: 3, trials: 10, baseline: 0 }),
      },
    ]);
  });

  it("names what is wrong with its options", async () => {
    expect((await plan("--difference", "0.05")).stderr).toContain("lab plan needs --baseline.");
    expect((await plan("--baseline", "often", "--difference", "0.05")).stderr).toContain(
      '--baseline expects a rate between 0 and 1, such as 0.4 or 40%; got "often".',
    );
    const over = await plan("--baseline", "0.9", "--difference", "0.2");
    expect(over.code).toBe(2);
    expect(over.stderr).toContain("--baseline 0.9 plus --difference 0.2 is above a rate of 1.");
    expect(
      (await plan("--suite", "nope", "--baseline", "0.4", "--difference", "0.1")).stderr,
    ).toContain('Unknown suite "nope"');
  });
});
