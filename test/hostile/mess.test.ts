/**
 * A tool's own mess is the tool's outcome: whatever it leaves in its work tree, the trial is
 * graded (its fix counted, the mess left out and named), never an infrastructure error that a
 * rerun would retry and every rate would leave out.
 */
import { describe, expect, it } from "vitest";
import type { TrialResult } from "../../src/core/index.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { gradedPatch, makeLab } from "./helpers.js";

describe.runIf(hasBwrap())("a tool's mess in its work tree", () => {
  const lab = makeLab();
  const attempt = async (mode: string): Promise<{ trial: TrialResult; patch: string }> => {
    const result = await lab.run("mess.sh", { args: mode, runId: `mess-${mode}` });
    const trial = result.results[0]!;
    expect(trial.outcome.kind, JSON.stringify(trial.outcome)).toBe("graded");
    return { trial, patch: gradedPatch(result.runDir, trial) };
  };

  it("an empty git repository in a subfolder is left out, and the fix resolves", async () => {
    const { trial, patch } = await attempt("nested-empty");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
    expect(trial.grade?.leftOut).toEqual(["vendor/empty: a git repository of its own"]);
    expect(patch).not.toContain("vendor/");
  }, 120_000);

  it("a git repository with a commit is left out, not taken as a gitlink", async () => {
    const { trial, patch } = await attempt("nested-commit");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
    expect(trial.grade?.leftOut).toEqual(["vendor/dep: a git repository of its own"]);
    expect(patch).not.toContain("Subproject commit");
  }, 120_000);

  it("files without permissions do not stop the grade", async () => {
    const { trial } = await attempt("unreadable");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
  }, 120_000);

  it("broken, looping and outward symlinks are taken as symlinks", async () => {
    const { trial, patch } = await attempt("symlinks");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
    expect(patch).toContain("diff --git a/broken-link b/broken-link\nnew file mode 120000");
    expect(patch).toContain("diff --git a/loop-link b/loop-link\nnew file mode 120000");
  }, 120_000);

  it("a huge file is left out and named", async () => {
    const { trial, patch } = await attempt("huge");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
    expect(trial.grade?.leftOut).toEqual([
      "huge.bin: 300 MB, over lab's limit of 50 MB for one file",
    ]);
    expect(patch).not.toContain("huge.bin");
  }, 120_000);

  it("names git refuses are left out and named", async () => {
    const { trial } = await attempt("names");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
    expect(trial.grade?.leftOut).toEqual([
      ".git : a name git refuses",
      "d/.Git: a name git refuses",
      "GIT~1: a name git refuses",
    ]);
  }, 120_000);

  it("a FIFO and a socket are passed over", async () => {
    const { trial } = await attempt("special");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
  }, 120_000);

  it("the tests folder replaced by a file: the hidden tests are put in place all the same", async () => {
    const { trial } = await attempt("tests-file");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
  }, 120_000);

  it("the tests folder replaced by a link to the host: the hidden tests are put in place all the same", async () => {
    const { trial } = await attempt("tests-link");
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(true);
  }, 120_000);

  it("tests that print more than lab reads are unresolved, with the reason", async () => {
    const { trial } = await attempt("loud");
    expect(trial.resolved).toBe(false);
    expect(trial.grade?.reason).toMatch(
      /^the test run printed \d+ MB, more than the 64 MB lab reads$/,
    );
  }, 300_000);
});
