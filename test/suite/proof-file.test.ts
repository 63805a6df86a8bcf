import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Grade } from "../../src/core/index.js";
import { writeProofFile } from "../../src/gen/prove.js";
import { readProofFile, suiteLayout } from "../../src/suite/index.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

const grade = (resolved: boolean): Grade => ({
  resolved,
  patchApplied: true,
  patchEmpty: !resolved,
  applyMethod: resolved ? "git apply" : null,
  failToPass: { "test_a.py::test_a": resolved },
  passToPass: {},
  statuses: { "test_a.py::test_a": resolved ? "PASSED" : "FAILED" },
  reason: resolved ? null : "FAIL_TO_PASS failed",
  testsTimedOut: false,
  testExitCode: resolved ? 0 : 1,
  phaseMs: { tests: 10 },
  environmentKey: "k",
  tampering: [],
});

describe("proof.json", () => {
  it("is read back through its schema as gen wrote it, and is absent until gen writes it", async () => {
    const suiteDir = path.join(root, "written");
    expect(await readProofFile(suiteDir)).toBeUndefined();
    const proof = {
      taskId: "a",
      valid: true,
      reason: null,
      passWithoutFix: [],
      gold: grade(true),
      empty: grade(false),
      environmentKey: "k",
      labVersion: "0.1.0",
    };
    await writeProofFile(suiteDir, {
      instances: {
        a: { fingerprint: "f", kept: true, reason: null, category: null, runs: [proof] },
      },
    });
    expect(await readProofFile(suiteDir)).toEqual({
      instances: {
        a: { fingerprint: "f", kept: true, reason: null, category: null, runs: [proof] },
      },
    });
  });

  it("fails naming the file and the field when it is malformed", async () => {
    const suiteDir = path.join(root, "malformed");
    mkdirSync(suiteDir, { recursive: true });
    const file = suiteLayout(suiteDir).proofFile;
    writeFileSync(file, JSON.stringify({ tasks: { t: { fingerprint: 7 } } }));
    await expect(readProofFile(suiteDir)).rejects.toMatchObject({ code: "TASK_INVALID" });
    await expect(readProofFile(suiteDir)).rejects.toThrow(
      `${file} is malformed: tasks.t.fingerprint: `,
    );
    writeFileSync(file, "{");
    await expect(readProofFile(suiteDir)).rejects.toThrow(`${file} is not valid JSON: `);
  });
});
