import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatLedger, parseLedger, type LedgerRecord } from "../../src/core/index.js";
import { carryLedgerLines } from "../../src/gen/index.js";
import { unprovenRecord } from "../../src/gen/ledger.js";
import { renderLedgerSection } from "../../src/report/index.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

const root = tempDir("lab-ledger-carry-");

/** A SWE-bench row; `change` alters its test patch, making another task of the same id. */
function row(id: string, change = ""): Record<string, unknown> {
  return {
    instance_id: id,
    repo: "psf/requests",
    base_commit: "a".repeat(40),
    patch: `diff --git a/x.py b/x.py\n${id}\n`,
    test_patch: `diff --git a/t.py b/t.py\n${id}${change}\n`,
    FAIL_TO_PASS: '["t.py::f"]',
    PASS_TO_PASS: "[]",
    version: "2.0",
    environment_setup_commit: "b".repeat(40),
    problem_statement: `fix ${id}`,
    created_at: change === "" ? "2023-01-01" : "2024-01-01",
  };
}

/** A kept line proven by a slice, with a family's verdict. */
function keptLine(id: string, labCommit: string): LedgerRecord {
  return {
    instance: id,
    repo: "psf/requests",
    status: "kept",
    class: null,
    reason: null,
    upstreamIssue: null,
    proof: [
      {
        outcome: "proven",
        testSeconds: 10,
        gradeSeconds: 30,
        environment: "py3.9.18-0123456789abcdef",
        interpreter: "3.9.18",
      },
    ],
    verdicts: {
      gold: "resolved",
      noop: "unresolved",
      goldPredictions: "resolved",
      families: { "sweagent-gpt4": { lab: "resolved", official: "resolved", agree: true } },
    },
    provenance: { labCommit, date: "2026-12-07T12:46:06Z", cores: 2, loadAverage: 0.7 },
  };
}

function writeRows(file: string, rows: Record<string, unknown>[]): string {
  writeFileSync(file, rows.map((entry) => JSON.stringify(entry)).join("\n"));
  return file;
}

function readLines(file: string): Map<string, LedgerRecord> {
  return new Map(
    parseLedger(readFileSync(file, "utf8"), file).map((record) => [record.instance, record]),
  );
}

describe("carrying proven lines between datasets' ledgers", () => {
  it("carries the lines of instances that are the same task in both, and no other", async () => {
    const dir = path.join(root, "carry");
    mkdirSync(dir, { recursive: true });
    const lite = writeRows(path.join(dir, "lite.jsonl"), [row("a-1"), row("a-2"), row("a-3")]);
    // a-2 has another test patch in Verified; a-4 is Verified's own; a-3 was proven in Verified.
    const verified = writeRows(path.join(dir, "verified.jsonl"), [
      row("a-1", ""),
      row("a-2", " changed"),
      row("a-3"),
      row("a-4"),
    ]);
    const liteLedger = path.join(dir, "lite-ledger.jsonl");
    writeFileSync(
      liteLedger,
      formatLedger([
        keptLine("a-1", "1111111"),
        keptLine("a-2", "1111111"),
        keptLine("a-3", "1111111"),
      ]),
    );
    const out = path.join(dir, "verified-ledger.jsonl");
    writeFileSync(
      out,
      formatLedger([
        unprovenRecord("a-1", "psf/requests"),
        unprovenRecord("a-2", "psf/requests"),
        keptLine("a-3", "2222222"),
      ]),
    );
    const options = {
      datasetFile: verified,
      out,
      fromDatasetFile: lite,
      fromLedger: liteLedger,
      fromName: "lite",
    };
    const summary = await carryLedgerLines(options);
    expect(summary.carried).toBe(1);
    expect(summary.differing).toEqual(["a-2"]);
    const lines = readLines(out);
    expect(lines.get("a-1")).toMatchObject({
      status: "kept",
      carriedFrom: "lite",
      provenance: { labCommit: "1111111" },
      verdicts: { gold: "resolved", noop: "unresolved", goldPredictions: "resolved", families: {} },
    });
    expect(lines.get("a-2")).toMatchObject({ status: "unproven", class: "not-yet-proven" });
    // A line this dataset's own slice measured stays as it was.
    expect(lines.get("a-3")).toEqual(keptLine("a-3", "2222222"));
    expect(lines.get("a-4")).toMatchObject({ status: "unproven" });
    expect([...lines.keys()]).toEqual(["a-1", "a-2", "a-3", "a-4"]);

    // The source proven again: the carried line follows it. The source no longer proven: the
    // carried line goes back to unproven rather than keep a proof nobody holds.
    writeFileSync(
      liteLedger,
      formatLedger([keptLine("a-1", "3333333"), keptLine("a-2", "1111111")]),
    );
    await carryLedgerLines(options);
    expect(readLines(out).get("a-1")).toMatchObject({
      carriedFrom: "lite",
      provenance: { labCommit: "3333333" },
    });
    writeFileSync(liteLedger, formatLedger([unprovenRecord("a-1", "psf/requests")]));
    await carryLedgerLines(options);
    expect(readLines(out).get("a-1")).toEqual(unprovenRecord("a-1", "psf/requests"));
  });

  it("says in the README section how many lines are carried, and from where", () => {
    const carried = { ...keptLine("a-1", "1111111"), carriedFrom: "lite" };
    const section = renderLedgerSection([{ title: "Verified", records: [carried] }]);
    expect(section).toContain(
      "1 of its lines are carried from the lite ledger: the same instance in both datasets",
    );
    expect(section).toContain(
      "| Verified (carried from lite) | 2026-12-07T12:46:06Z | `1111111` |",
    );
  });

  it("is what `npm run ledger -- --carry-from` does", () => {
    const dir = path.join(root, "cli");
    mkdirSync(dir, { recursive: true });
    const lite = writeRows(path.join(dir, "lite.jsonl"), [row("a-1")]);
    const verified = writeRows(path.join(dir, "verified.jsonl"), [row("a-1"), row("a-9")]);
    const liteLedger = path.join(dir, "lite-ledger.jsonl");
    writeFileSync(liteLedger, formatLedger([keptLine("a-1", "1111111")]));
    const out = path.join(dir, "verified-ledger.jsonl");
    const printed = execFileSync(
      "npx",
      [
        "tsx",
        "scripts/swebench/ledger.ts",
        "--carry-from",
        liteLedger,
        "--carry-dataset",
        lite,
        "--dataset",
        verified,
        "--out",
        out,
      ],
      { cwd: repoRoot, encoding: "utf8" },
    );
    expect(printed).toContain("1 line(s) carried from");
    expect([...readLines(out).values()].map((record) => record.status)).toEqual([
      "kept",
      "unproven",
    ]);
  });
});
