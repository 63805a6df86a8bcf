import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  afterCutoff,
  buildContamination,
  fisherExact,
  groupByTask,
  permutationTest,
} from "../../src/report/index.js";
import type { TrialRow } from "../../src/store/index.js";
import { runLab } from "../helpers/lab.js";
import { syntheticTask, writeSyntheticRuns } from "../helpers/synthetic-runs.js";
import { tempDir } from "../helpers/temp.js";

describe("the contamination slice's statistics", () => {
  it("Fisher's exact test matches scipy.stats.fisher_exact", () => {
    expect(fisherExact(3, 1, 1, 3)).toBeCloseTo(0.4857142857142857, 12);
    expect(fisherExact(8, 2, 1, 5)).toBeCloseTo(0.03496503496503496, 12);
    expect(fisherExact(30, 10, 8, 12)).toBeCloseTo(0.011317840673717583, 12);
    expect(fisherExact(5, 5, 5, 5)).toBe(1);
  });

  it("the permutation test is seeded, and tells a clear difference from none", () => {
    const high = Array.from({ length: 20 }, () => 1);
    const low = Array.from({ length: 20 }, () => 0);
    expect(permutationTest(high, low, 7)).toBeLessThan(0.001);
    expect(permutationTest([1, 0, 1, 0], [0, 1, 0, 1], 7)).toBeGreaterThan(0.5);
    expect(permutationTest([1, 0.5, 1], [0, 0.5], 3)).toBe(
      permutationTest([1, 0.5, 1], [0, 0.5], 3),
    );
  });

  it("a month's cutoff ends with the month; a day's with the day", () => {
    expect(afterCutoff("2025-03")).toBe("2025-04-01T00:00:00.000Z");
    expect(afterCutoff("2024-12")).toBe("2025-01-01T00:00:00.000Z");
    expect(afterCutoff("2025-03-31")).toBe("2025-04-01T00:00:00.000Z");
  });
});

function row(taskId: string, resolved: boolean, model: string | null): TrialRow {
  return {
    taskId,
    trial: 1,
    kind: "graded",
    resolved,
    patchApplied: true,
    patchEmpty: false,
    costUsd: null,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    toolMs: 1,
    durationMs: 1,
    flagged: false,
    model,
  };
}

describe("buildContamination", () => {
  const ids = Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, "0")}`);
  // Tasks t00..t19 were fixed in 2023, t20..t29 in 2025.
  const tasks = Object.fromEntries(
    ids.map((id, i) => [
      id,
      syntheticTask(id, "acme/widget", {
        createdAt: i < 20 ? "2023-06-01T10:00:00Z" : "2025-06-01T10:00:00Z",
      }),
    ]),
  );

  it("splits a tool's trials at its model's cutoff and says when the difference is significant", () => {
    const rows = ids.map((id, i) =>
      row(id, i < 20 ? i < 17 : i < 22, "claude-sonnet-4-5-20250929"),
    );
    const report = buildContamination(
      [{ label: "claude-code", groups: groupByTask(rows) }],
      tasks,
      { "claude-sonnet-4-5": { cutoff: "2025-03" } },
      { level: 0.05, seed: 0 },
    );
    expect(report.notes).toEqual([]);
    const [only] = report.rows;
    expect(only).toMatchObject({
      tool: "claude-code",
      model: "claude-sonnet-4-5",
      cutoff: "2025-03",
      before: { tasks: 20, trials: 20, resolved: 17 },
      after: { tasks: 10, trials: 10, resolved: 2 },
      test: "fisher",
      significant: true,
    });
    expect(only?.pValue).toBeCloseTo(fisherExact(17, 3, 2, 8), 12);
    expect(only?.sentence).toBe(
      `claude-code (claude-sonnet-4-5, cutoff 2025-03): 85.0% on 20 task(s) fixed before the cutoff against 20.0% on 10 after, +65.0 points, p < 0.001 (Fisher's exact test): significant at the 0.05 level; tasks older than the cutoff may be in its training data.`,
    );
  });

  it("names the tools it cannot place, and takes a cutoff declared for a tool that reports no model", () => {
    const silent = ids.map((id) => row(id, true, null));
    const report = buildContamination(
      [
        { label: "my-agent", groups: groupByTask(silent) },
        { label: "other", groups: groupByTask(silent) },
      ],
      tasks,
      { "my-agent": { cutoff: "2026-01" } },
      { level: 0.05, seed: 0 },
    );
    expect(report.rows.map((entry) => entry.sentence)).toEqual([
      "my-agent (my-agent, cutoff 2026-01): no graded task was fixed after the cutoff; nothing to compare.",
    ]);
    expect(report.notes).toEqual([
      `other: reported no model has no cutoff in lab.config.json's "models".`,
    ]);
  });
});

describe("lab report's contamination section", () => {
  it("appears when lab.config.json declares a cutoff", async () => {
    const root = tempDir();
    const runsDir = path.join(root, "runs");
    const taskInfos = Array.from({ length: 12 }, (_, i) =>
      syntheticTask(`t${String(i)}`, "acme/widget", {
        createdAt: i < 6 ? "2024-01-02T00:00:00Z" : "2025-09-02T00:00:00Z",
      }),
    );
    writeSyntheticRuns(runsDir, [
      {
        tool: "agent-x",
        suite: "demo",
        outcomes: Object.fromEntries(taskInfos.map((task, i) => [task.id, [i % 2 === 0]])),
        tasks: taskInfos,
        telemetry: () => ({ model: "model-x" }),
      },
    ]);
    writeFileSync(
      path.join(root, "lab.config.json"),
      JSON.stringify({ models: { "model-x": { cutoff: "2025-03" } } }),
    );
    const result = await runLab(["report", "--suite", "demo", "--runs-dir", runsDir], {
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "### Contamination: tasks fixed before and after the model's training cutoff",
    );
    expect(result.stdout).toContain(
      "- agent-x (model-x, cutoff 2025-03): 50.0% on 6 task(s) fixed before the cutoff against 50.0% on 6 after, +0.0 points, p = 1.00 (Fisher's exact test): not significant at the 0.05 level.",
    );
    const bad = tempDir();
    writeFileSync(
      path.join(bad, "lab.config.json"),
      JSON.stringify({ models: { "model-x": { cutoff: "March" } } }),
    );
    const refused = await runLab(["report", "--suite", "demo", "--runs-dir", runsDir], {
      cwd: bad,
    });
    expect(refused.stderr).toContain(
      "models.model-x.cutoff: a month (2025-03) or a day (2025-03-31)",
    );
  });
});
