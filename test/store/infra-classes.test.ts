import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyInfraError, inferInfraClass, type TrialResult } from "../../src/core/index.js";
import { readTrialRows, runPaths, trialPaths } from "../../src/store/index.js";
import { writeSyntheticRuns } from "../helpers/synthetic-runs.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

/** A run of four infra errors, as a lab before infrastructure classes stored them. */
function oldRun(name: string) {
  const runsDir = path.join(root, name);
  writeSyntheticRuns(runsDir, [
    {
      tool: "alpha",
      suite: "s",
      outcomes: { a: ["infra"], b: ["infra"], c: ["infra"], d: ["infra"] },
    },
  ]);
  const run = runPaths(runsDir, "s-alpha");
  const rewrite = (taskId: string, outcome: Record<string, unknown>): void => {
    const file = trialPaths(run, taskId, 1).result;
    const result = JSON.parse(readFileSync(file, "utf8")) as TrialResult;
    writeFileSync(file, JSON.stringify({ ...result, outcome: { ...result.outcome, ...outcome } }));
  };
  rewrite("b", {
    phase: "grade",
    message: "uv pip install failed: error: Could not resolve host: pypi.org",
  });
  rewrite("c", { phase: "grade", message: "ENOSPC: no space left on device, write" });
  // A class stored is kept, whatever the words say.
  rewrite("d", { phase: "grade", message: "pip: internal assertion", class: "lab" });
  return run;
}

describe("infrastructure error classes", () => {
  it("are read from a record, or inferred for one without, else unclassified", async () => {
    const rows = await readTrialRows(oldRun("old"));
    expect(rows.map((row) => [row.taskId, row.infraClass])).toEqual([
      ["a", "unclassified"], // "setup.sh exited with code 7" says nothing
      ["b", "environment"],
      ["c", "machine"],
      ["d", "lab"],
    ]);
  });

  it("are read again from result.json when the index was written by a lab without them", async () => {
    const run = oldRun("old-index");
    await readTrialRows(run);
    // The previous index format: version 2, eighteen fields.
    const lines = readFileSync(run.resultsIndex, "utf8").trimEnd().split("\n");
    writeFileSync(
      run.resultsIndex,
      `${lines.map((line) => JSON.stringify([2, ...(JSON.parse(line) as unknown[]).slice(1, 18)])).join("\n")}\n`,
    );
    expect((await readTrialRows(run)).map((row) => row.infraClass)).toEqual([
      "unclassified",
      "environment",
      "machine",
      "lab",
    ]);
    expect(readFileSync(run.resultsIndex, "utf8").startsWith("[3,")).toBe(true);
  });

  it("are given to new errors by their code and words, lab's when they say nothing", () => {
    expect(classifyInfraError("could not build the environment", "ENVIRONMENT_FAILED")).toBe(
      "environment",
    );
    expect(classifyInfraError("Python 3.6 was not found", "PYTHON_NOT_FOUND")).toBe("environment");
    expect(classifyInfraError("write failed", "ENOSPC")).toBe("machine");
    expect(classifyInfraError("uv pip install: No space left on device")).toBe("machine");
    expect(
      classifyInfraError("bwrap: setting up uid map: Permission denied", "SANDBOX_UNAVAILABLE"),
    ).toBe("lab");
    expect(
      classifyInfraError(
        "bwrap: execvp /usr/bin/python3: Permission denied",
        "SANDBOX_UNAVAILABLE",
      ),
    ).toBe("lab");
    expect(inferInfraClass("the queue lost the worker")).toBeNull();
  });
});
