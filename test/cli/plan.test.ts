/**
 * `lab plan`: the numbers it prints are report/power.ts's (checked by simulation in
 * test/report/power.test.ts); here, that the command reads its options and the suite and says
 * what the plan means for it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  adjustedDetectableDifference,
  adjustedTasksNeeded,
  designEffect,
  RUN_TO_RUN_SD,
  tasksNeeded,
} from "../../src/report/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
/** The fixture's tasks are each in a repository of their own: only the run-to-run floor applies. */
const UNCLUSTERED = { concentration: 0, icc: 0, runSd: RUN_TO_RUN_SD };
const plan = (...args: string[]) =>
  runLab(["plan", ...args, "--evals-dir", evalsDir], { cwd: root });

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta"), addTask("gamma")]);
  // Four tasks in two repositories (task.json's repo): a suite that clusters.
  const paired = ["one", "two", "three", "four"];
  writeFixtureSuite(
    evalsDir,
    "paired",
    paired.map((id) => addTask(id)),
  );
  paired.forEach((id, i) => {
    const file = path.join(evalsDir, "paired", "tasks", id, "task.json");
    const task = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...task, repo: i < 2 ? "acme/a" : "acme/b" }));
  });
});

describe("lab plan", () => {
  it("says how many tasks and trials a difference needs, and whether the suite has them", async () => {
    const result = await plan("--suite", "fixture", "--baseline", "0.4", "--difference", "0.05");
    expect(result.code, result.stderr).toBe(0);
    const independent = tasksNeeded({ trials: 1, baseline: 0.4, difference: 0.05 });
    // 5 points with one trial per task is 2.4 standard deviations of two runs 1.5 points apart:
    // short of the 2.8 that 80% power needs, however many tasks.
    expect(
      adjustedTasksNeeded({ trials: 1, baseline: 0.4, difference: 0.05 }, UNCLUSTERED),
    ).toBeNull();
    const three = adjustedTasksNeeded({ trials: 3, baseline: 0.4, difference: 0.05 }, UNCLUSTERED);
    expect(result.stdout).toContain(
      "Detecting +5.0 points over a 40.0% baseline (45.0% against 40.0%) at 80.0% power, level 0.05",
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^\\| +1 \\| McNemar exact test +\\| +none enough \\| +– \\| +${String(independent)} \\| too few +\\|$`,
        "m",
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(
        `^\\| +3 \\| Wilcoxon signed-rank test \\| +${String(three)} \\| +${String((three ?? 0) * 3)} \\|`,
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
    const independentTasks = tasksNeeded({ trials: 3, baseline: 0.4, difference: 0.1 });
    const tasks = adjustedTasksNeeded({ trials: 3, baseline: 0.4, difference: 0.1 }, UNCLUSTERED);
    expect(json.suite).toBeNull();
    expect(json.designs).toEqual([
      {
        trials: 3,
        test: "wilcoxon",
        tasks,
        independentTasks,
        trialsPerTool: (tasks ?? 0) * 3,
        fitsSuite: null,
      },
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
        difference: adjustedDetectableDifference(
          { tasks: 3, trials: 10, baseline: 0 },
          UNCLUSTERED,
        ),
      },
    ]);
  });

  it("counts repositories by their design effect, from --clusters or the suite's own", async () => {
    const design = { trials: 1, baseline: 0.3, difference: 0.15 };
    const independent = tasksNeeded(design) ?? 0;
    const json = async (...args: string[]) =>
      JSON.parse(
        (
          await plan(
            "--baseline",
            "0.3",
            "--difference",
            "0.15",
            "--trials",
            "1",
            "--json",
            ...args,
          )
        ).stdout,
      ) as {
        clusters: { count: number; icc: number } | null;
        designs: { tasks: number | null; independentTasks: number }[];
      };
    const flat = await json();
    const clustered = await json("--clusters", "10", "--icc", "0.01");
    expect(flat.clusters).toBeNull();
    expect(clustered.clusters).toMatchObject({ count: 10, icc: 0.01 });
    const tasks = clustered.designs[0]?.tasks ?? 0;
    // The tasks needed are worth the independent count once their design effect is paid.
    expect(flat.designs[0]?.tasks).toBe(independent);
    expect(tasks / designEffect(tasks, 0.1, 0.01)).toBeGreaterThanOrEqual(independent);
    expect((tasks - 1) / designEffect(tasks - 1, 0.1, 0.01)).toBeLessThan(independent);
    expect(tasks).toBeGreaterThan(independent * 1.15);
    // Three repositories at an ICC of 0.5 are worth at most 6 tasks, whatever their size.
    const capped = await plan(
      "--baseline",
      "0.3",
      "--difference",
      "0.15",
      "--trials",
      "1",
      "--clusters",
      "3",
      "--icc",
      "0.5",
    );
    expect(capped.stdout).toMatch(/^\| +1 \| McNemar exact test +\| +none enough \|/m);
    expect(capped.stdout).toContain("None enough: the run-to-run floor or the repositories cap");
  });

  it("takes a suite's own repositories as its clusters", async () => {
    const result = await plan(
      "--suite",
      "paired",
      "--baseline",
      "0.3",
      "--difference",
      "0.15",
      "--trials",
      "1",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      clusters: { count: number; source: string; concentration: number; icc: number } | null;
    };
    expect(json.clusters).toEqual({
      count: 2,
      source: "paired's own",
      concentration: 0.5,
      icc: 0.05,
    });
    // Each task in a repository of its own: nothing clusters.
    const flat = await plan(
      "--suite",
      "fixture",
      "--baseline",
      "0.3",
      "--difference",
      "0.15",
      "--json",
    );
    expect((JSON.parse(flat.stdout) as { clusters: unknown }).clusters).toBeNull();
  });

  it("never plans below the run-to-run floor: 2 points at 1 trial per task is none enough", async () => {
    const result = await plan("--baseline", "0.4", "--difference", "0.02", "--trials", "1");
    expect(result.code, result.stderr).toBe(0);
    // The model alone would promise it with some ten thousand tasks.
    expect(tasksNeeded({ trials: 1, baseline: 0.4, difference: 0.02 })).not.toBeNull();
    expect(result.stdout).toMatch(/^\| +1 \| McNemar exact test +\| +none enough \|/m);
    expect(result.stdout).toContain("floored at 1.5 points (arXiv 2602.07150)");
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
