import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CACHE_FROM_TASK_DIR,
  locateTaskDir,
  suiteDirOf,
  suiteLayout,
} from "../../src/suite/index.js";

describe("suiteLayout", () => {
  it("names the files and folders of a suite folder as evals/README.md describes them", () => {
    const layout = suiteLayout("/evals/widget");
    expect(layout.tasksDir).toBe("/evals/widget/tasks");
    expect(layout.oracleRoot).toBe("/evals/widget/oracle");
    expect(layout.taskDir("w-1")).toBe("/evals/widget/tasks/w-1");
    expect(layout.oracleDir("w-1")).toBe("/evals/widget/oracle/w-1");
    expect(layout.suiteFile).toBe("/evals/widget/suite.json");
    expect(layout.proofFile).toBe("/evals/widget/proof.json");
    expect(layout.droppedFile).toBe("/evals/widget/dropped.json");
    expect(layout.reviewsFile).toBe("/evals/widget/reviews.jsonl");
    expect(layout.cacheDir).toBe("/evals/widget/.cache");
    expect(layout.proofLogDir()).toBe("/evals/widget/.cache/proof-logs");
    expect(layout.proofLogDir(2)).toBe("/evals/widget/.cache/proof-logs/run2");
    expect(path.resolve(layout.taskDir("w-1"), CACHE_FROM_TASK_DIR)).toBe(layout.cacheDir);
    expect(CACHE_FROM_TASK_DIR).toBe("../../.cache");
  });

  it("finds the suite folder of a loaded task and of a task folder", () => {
    const layout = suiteLayout(path.resolve("evals", "widget"));
    expect(suiteDirOf({ oracleDir: layout.oracleDir("w-1") })).toBe(layout.dir);
    expect(locateTaskDir(layout.taskDir("w-1"))).toEqual({ suiteDir: layout.dir, id: "w-1" });
    expect(locateTaskDir(layout.oracleDir("w-1"))).toBeUndefined();
    expect(locateTaskDir(layout.dir)).toBeUndefined();
  });
});
