import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChangeSource, StatedChanges } from "../../src/core/index.js";
import { appendReview, REVIEW_SCHEMA_VERSION } from "../../src/review/index.js";
import { selectTasks } from "../../src/runner/index.js";
import type { Suite } from "../../src/suite/index.js";
import { createNoopTool } from "../../src/tools/index.js";
import { tempDir } from "../helpers/temp.js";

const noop: ChangeSource = { kind: "tool", tool: createNoopTool() };

function suite(taskIds: string[]): Suite {
  const dir = path.join(tempDir(), "demo");
  mkdirSync(dir, { recursive: true });
  return { name: "demo", version: "1", dir, taskIds };
}

function stated(taskIds: string[]): StatedChanges {
  return {
    kind: "stated",
    name: "predictions",
    description: "test predictions",
    version: "model",
    fingerprint: "f",
    origin: "preds.jsonl",
    taskIds,
    patchFor: () => "",
  };
}

describe("selectTasks", () => {
  it("takes every task of the suite when none are asked for, and the ones asked for in their order", async () => {
    const demo = suite(["a", "b", "c"]);
    const all = await selectTasks(demo, { requested: undefined, validOnly: false, source: noop });
    expect(all).toEqual({ taskIds: ["a", "b", "c"], notes: [] });
    const some = await selectTasks(demo, { requested: ["c", "a"], validOnly: false, source: noop });
    expect(some.taskIds).toEqual(["c", "a"]);
  });

  it("fails on a suite without tasks, saying how to generate it", async () => {
    await expect(
      selectTasks(suite([]), { requested: undefined, validOnly: false, source: noop }),
    ).rejects.toMatchObject({
      code: "SUITE_NOT_FOUND",
      hint: "Generate it with `lab gen --suite demo`.",
    });
  });

  it("grades only the predictions' tasks in the suite, warning about the rest, within the tasks asked for", async () => {
    const demo = suite(["a", "b", "c"]);
    const selection = await selectTasks(demo, {
      requested: undefined,
      validOnly: false,
      source: stated(["b", "zz", "a"]),
    });
    expect(selection.taskIds).toEqual(["b", "a"]);
    expect(selection.notes).toEqual([
      {
        level: "warn",
        message: '1 prediction(s) name instances not in suite "demo" and are not graded: zz',
      },
    ]);
    const within = await selectTasks(demo, {
      requested: ["a"],
      validOnly: false,
      source: stated(["b", "a"]),
    });
    expect(within.taskIds).toEqual(["a"]);
    await expect(
      selectTasks(demo, { requested: undefined, validOnly: false, source: stated(["zz"]) }),
    ).rejects.toMatchObject({
      code: "TASK_NOT_FOUND",
      message: 'No prediction in preds.jsonl names a task of suite "demo".',
    });
  });

  it("narrows to the tasks reviewed as valid, and says what it left out", async () => {
    const demo = suite(["a", "b"]);
    await appendReview(demo.dir, {
      schemaVersion: REVIEW_SCHEMA_VERSION,
      task: "a",
      reviewer: "alice",
      clarity: "clear",
      tests: "adequate",
      alternatives: 0,
      difficulty: 3,
      notes: "",
      reviewedAt: "2024-01-01T00:00:00.000Z",
      suiteVersion: "1",
    });
    const selection = await selectTasks(demo, {
      requested: undefined,
      validOnly: true,
      source: stated(["a", "b"]),
    });
    expect(selection).toEqual({
      taskIds: ["a"],
      notes: [
        {
          level: "info",
          message:
            "--valid-only: running the 1 of 2 task(s) reviewed as valid; left out 1: 1 not reviewed (b).",
        },
      ],
    });
  });
});
