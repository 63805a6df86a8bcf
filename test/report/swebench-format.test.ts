/**
 * `--format swebench` against upstream's make_run_report on the same inputs: each scenario of
 * test/fixtures/swebench/run-report-reference.py is made into lab's trial results, and the
 * report lab renders must equal the one upstream's function wrote, field by field and in order.
 */
import { describe, expect, it } from "vitest";
import reference from "../fixtures/swebench/run-report-reference.json" with { type: "json" };
import { SCHEMA_VERSION, type RunRecord, type TrialResult } from "../../src/core/index.js";
import { renderSwebenchReport } from "../../src/report/index.js";
import { syntheticResult } from "../helpers/synthetic-runs.js";

const RUN = { tool: "tool", suite: "swebench", runId: "r", toolVersion: "1" };

/** Lab's first trial of an instance in the state the scenario names; null for no prediction. */
function trialOf(id: string, status: string): TrialResult | null {
  const base = syntheticResult(RUN, id, 1, status === "resolved");
  const grade = base.grade;
  if (grade === null) throw new Error("a graded synthetic result has a grade");
  const graded = (changes: Partial<typeof grade>, resolved = false): TrialResult => ({
    ...base,
    resolved,
    patchApplied: changes.patchApplied ?? true,
    patchEmpty: changes.patchEmpty ?? false,
    grade: { ...grade, resolved, patchApplied: true, patchEmpty: false, ...changes },
  });
  switch (status) {
    case "resolved":
      return graded({}, true);
    case "unresolved":
      return graded({});
    case "empty":
      return graded({ patchEmpty: true, patchApplied: false });
    case "apply_error":
      return graded({ patchApplied: false });
    case "timeout":
      return graded({ testsTimedOut: true });
    case "daemon_error":
      return syntheticResult(RUN, id, 1, "infra");
    case "missing":
      return null;
    default:
      throw new Error(`unknown status ${status}`);
  }
}

describe("--format swebench", () => {
  it("was checked against the swebench release the script ran", () => {
    expect(reference.swebench).toBe("5.0.2");
    expect(reference.scenarios.map((scenario) => scenario.name)).toEqual(["gold", "noop", "mixed"]);
  });

  it.each(reference.scenarios)(
    "equals upstream's make_run_report on the $name run, field by field",
    ({ instances, report }) => {
      const ids = instances.map((instance) => instance.id);
      const results = instances
        .map((instance) => trialOf(instance.id, instance.status))
        .filter((result): result is TrialResult => result !== null);
      const record: RunRecord = {
        schemaVersion: SCHEMA_VERSION,
        runId: "r",
        tool: "tool",
        toolVersion: "1",
        toolFingerprint: "",
        suite: "swebench",
        labVersion: "0",
        trials: 1,
        taskIds: ids,
        config: {},
        status: "completed",
        createdAt: "2025-01-01T00:00:00.000Z",
        updatedAt: "2025-01-01T00:00:00.000Z",
      };
      const logs = new Map(instances.map((instance) => [instance.id, instance.log]));
      const rendered = renderSwebenchReport(record, results, ids, logs);
      expect(JSON.stringify(rendered)).toBe(JSON.stringify(report));
    },
  );

  it("lists as incomplete only the instances without a prediction", () => {
    const mixed = reference.scenarios.find((scenario) => scenario.name === "mixed");
    expect(mixed?.report.incomplete_ids).toEqual(["sympy__sympy-20590"]);
    expect(mixed?.report.error_ids).toContain("psf__requests-2317");
  });
});
