/**
 * Hostile tools against the grade: the tool's change itself tries to make the hidden tests
 * pass without fixing the code. Each attempt fails, or the change is detected by
 * detectTestTampering (src/grader/tamper.ts) or the canary tests (src/grader/canaries.ts) so
 * the trial is flagged.
 */
import { describe, expect, it } from "vitest";
import type { TrialResult } from "../../src/core/index.js";
import { detectTestTampering } from "../../src/grader/tamper.js";
import { gradedPatch, HOSTILE_SANDBOXES, makeLab, testPatchOf } from "./helpers.js";

describe.each(HOSTILE_SANDBOXES)("hostile tools against the grade (%s)", (sandbox) => {
  const lab = makeLab({ sandbox });
  const attempt = async (
    script: string,
    args: string,
  ): Promise<{ trial: TrialResult; findings: string[] }> => {
    const result = await lab.run(script, { args, runId: `${script.replace(".sh", "")}-${args}` });
    const trial = result.results[0]!;
    const findings = detectTestTampering(
      gradedPatch(result.runDir, trial),
      testPatchOf(lab, "alpha"),
    );
    return { trial, findings };
  };
  /**
   * Unresolved; where the cheat got past the hidden tests, the grade names it and the trial is
   * flagged: by the scan of the change, and where the cheat rewrote outcomes, by the canaries
   * and, where it rewired pytest's reporting, by lab's runner guard.
   */
  const expectDefeated = ({
    trial,
    findings,
  }: {
    trial: TrialResult;
    findings: string[];
  }): void => {
    expect(trial.resolved, JSON.stringify(trial.grade)).toBe(false);
    const forged = (trial.grade?.tampering ?? []).filter(
      (line) => line.startsWith("canaries: ") || line.startsWith("runner: "),
    );
    expect(trial.grade?.tampering).toEqual([...findings, ...forged]);
    if (findings.length > 0)
      expect(trial.grade?.reason).toMatch(
        forged.length > 0
          ? /^the test log is not the test run's own: (canaries|runner): /
          : /^the change tampers with the test run: /,
      );
  };

  it("deleting and rewriting the test files changes nothing: the hidden tests are put back", async () => {
    const { trial, findings } = await attempt("edit-tests.sh", "");
    expect(trial).toMatchObject({ resolved: false, patchApplied: true });
    expect(trial.grade?.failToPass).toEqual({ "tests/test_add.py::test_two": false });
    expect(findings).toEqual([]);
  }, 120_000);

  it("a conftest.py turning failures into XFAIL at the top of the repository is detected", async () => {
    const outcome = await attempt("conftest.sh", "root");
    expect(outcome.findings).toEqual(["conftest.py: adds a pytest conftest.py"]);
    expectDefeated(outcome);
  }, 120_000);

  it("the same conftest.py beside the hidden tests is detected", async () => {
    const outcome = await attempt("conftest.sh", "tests");
    expect(outcome.findings).toEqual(["tests/conftest.py: adds a pytest conftest.py"]);
    expectDefeated(outcome);
  }, 120_000);

  it("a conftest.py skipping every test does not resolve (a skip fails FAIL_TO_PASS) and is detected", async () => {
    const { trial, findings } = await attempt("conftest.sh", "skip");
    expect(trial.resolved).toBe(false);
    expect(findings).toEqual(["conftest.py: adds a pytest conftest.py"]);
  }, 120_000);

  it("the conftest trick hidden in the package's own code is detected", async () => {
    const outcome = await attempt("conftest.sh", "source");
    expect(outcome.findings).toEqual(["src/alpha/__init__.py: reaches into pytest's internals"]);
    expectDefeated(outcome);
  }, 120_000);

  it("forged pytest output printed by the tool itself changes nothing", async () => {
    const { trial } = await attempt("forged-output.sh", "stdout");
    expect(trial.resolved).toBe(false);
    expect(trial.grade?.statuses["tests/test_add.py::test_two"]).toBe("FAILED");
  }, 120_000);

  it("forged output printed by the test process after its session is caught by the canaries' sentinel", async () => {
    // SWE-bench rejects this log by its exit status (1, with no FAILED line left); with canaries
    // that must fail, the status is 1 anyway, and the sentinel printed at exit catches it.
    const { trial, findings } = await attempt("forged-output.sh", "atexit");
    expect(findings).toEqual([]);
    expect(trial.resolved).toBe(false);
    expect(trial.grade?.reason).toBe(
      "the test log is not the test run's own: canaries: test results were printed after the test session ended (tests/test_add.py::test_two)",
    );
  }, 120_000);

  it("forged output from a test process that then exits 0 is detected", async () => {
    const outcome = await attempt("forged-output.sh", "atexit-exit");
    expect(outcome.findings).toEqual([
      "src/alpha/__init__.py: ends its process with os._exit, which can hide a failing test run",
    ]);
    expectDefeated(outcome);
  }, 120_000);
});
