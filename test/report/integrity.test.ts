import { describe, expect, it } from "vitest";
import { buildIntegrity, groupByTask, renderIntegrityMarkdown } from "../../src/report/index.js";
import type { TrialRow } from "../../src/store/index.js";

function row(taskId: string, kind: TrialRow["kind"], flagged = false): TrialRow {
  return {
    taskId,
    trial: 1,
    kind,
    resolved: kind === "infra_error" ? null : false,
    patchApplied: kind === "infra_error" ? null : true,
    patchEmpty: kind === "infra_error" ? null : false,
    costUsd: null,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    toolMs: null,
    durationMs: 1,
    flagged,
    model: null,
  };
}

const tasks = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, "0")}`);

describe("the report's integrity figures", () => {
  it("count flagged trials per tool and warn about a tool with clearly more infra errors on the same tasks", () => {
    const shady = tasks.map((task, i) =>
      row(task, i < 8 ? "infra_error" : "graded", i === 9 || i === 10),
    );
    const honest = tasks.map((task, i) => row(task, i === 0 ? "infra_error" : "graded"));
    const integrity = buildIntegrity(
      [
        { label: "shady", groups: groupByTask(shady) },
        { label: "honest", groups: groupByTask(honest) },
      ],
      0.05,
    );
    expect(integrity.tools).toEqual([
      { label: "shady", flagged: 2, flaggedTasks: ["t09", "t10"], infraErrors: 8, infraTasks: 8 },
      { label: "honest", flagged: 0, flaggedTasks: [], infraErrors: 1, infraTasks: 1 },
    ]);
    expect(integrity.warnings).toHaveLength(1);
    // 7 discordant tasks, all shady's: P(X >= 7) = 1/128.
    expect(integrity.warnings[0]).toMatchObject({
      tool: "shady",
      other: "honest",
      onlyTool: 7,
      onlyOther: 0,
      shared: 12,
      pValue: 1 / 128,
    });
    const markdown = renderIntegrityMarkdown(integrity);
    expect(markdown).toContain(
      "| shady  |                   2 | t09, t10      |            8 |                       8 |",
    );
    expect(markdown).toContain(
      "**Warning:** shady has clearly more infrastructure errors than honest on the same tasks: on 7 of 12 shared tasks only shady had one, on 0 only honest (p = 0.008, one-sided sign test).",
    );
  });

  it("does not warn over a few errors that chance explains", () => {
    const a = tasks.map((task, i) => row(task, i < 3 ? "infra_error" : "graded"));
    const b = tasks.map((task, i) => row(task, i === 5 ? "infra_error" : "graded"));
    const integrity = buildIntegrity(
      [
        { label: "a", groups: groupByTask(a) },
        { label: "b", groups: groupByTask(b) },
      ],
      0.05,
    );
    expect(integrity.warnings).toEqual([]);
  });
});
