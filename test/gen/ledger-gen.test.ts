import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  formatLedger,
  type LedgerRecord,
  type ProofEvent,
  type RunEvent,
} from "../../src/core/index.js";
import {
  knownDrops,
  LEDGER_DIR,
  ledgerLines,
  referenceProofMs,
  type EnvironmentEntry,
} from "../../src/datasets/index.js";
import { generateSwebench } from "../../src/gen/index.js";
import { packageRoot } from "../../src/suite/index.js";
import { expectedRemainingMs } from "../../src/ui/live.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir("lab-ledger-gen-");
const ledgerDir = path.join(root, "ledger");

const provenance = {
  labCommit: "4be1a62",
  date: "2026-12-04T17:05:34Z",
  cores: 2,
  loadAverage: 0.98,
};

function line(instance: string, fields: Partial<LedgerRecord>): LedgerRecord {
  return {
    instance,
    repo: "acme/widget",
    status: "kept",
    class: null,
    reason: null,
    upstreamIssue: null,
    proof: [],
    verdicts: null,
    provenance,
    ...fields,
  };
}

const proofRun = (gradeSeconds: number) => ({
  outcome: "proven" as const,
  testSeconds: gradeSeconds / 2,
  gradeSeconds,
  environment: "py3.11.7-0123456789abcdef",
  interpreter: "3.11.7",
});

mkdirSync(ledgerDir, { recursive: true });
writeFileSync(
  path.join(ledgerDir, "lite.jsonl"),
  formatLedger([
    line("acme__widget-1", { proof: [proofRun(60), proofRun(30)] }),
    line("acme__widget-2", {
      status: "dropped",
      class: "upstream-shared",
      reason: "every FAIL_TO_PASS test passes without the fix",
      upstreamIssue: { issue: "acme/widget#24", url: "https://example.org/24" },
      proof: [proofRun(10)],
    }),
    line("acme__widget-3", {
      status: "dropped",
      class: "machine-forced",
      reason: "lab's copy of acme/widget lacks 1 object(s)",
    }),
  ]),
);
// An instance in both datasets: the line with proof runs counts, whichever file holds it.
writeFileSync(
  path.join(ledgerDir, "verified.jsonl"),
  formatLedger([
    line("acme__widget-3", { status: "unproven", class: "not-yet-proven", provenance: null }),
    line("acme__widget-4", { proof: [proofRun(200)] }),
  ]),
);

describe("lab reads its ledger", () => {
  it("ships the ledger in lab's own folder", () => {
    expect(LEDGER_DIR).toBe(path.join(packageRoot, "data", "swebench", "ledger"));
    const files = (
      JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as {
        files: string[];
      }
    ).files;
    expect(files).toContain("data/swebench/ledger");
  });

  it("finds each instance's reference proof time and the drops that hold on any machine", () => {
    expect(ledgerLines(ledgerDir).size).toBe(4);
    expect(referenceProofMs("acme__widget-1", ledgerDir)).toBe(90_000);
    expect(referenceProofMs("acme__widget-4", ledgerDir)).toBe(200_000);
    expect(referenceProofMs("acme__widget-3", ledgerDir)).toBeNull();
    // A machine-forced drop may prove elsewhere: only upstream-shared ones are known drops.
    expect([...knownDrops(ledgerDir).keys()]).toEqual(["acme__widget-2"]);
  });

  it("gen leaves out the known drops, naming them, and states the reference time it expects", async () => {
    const environment: EnvironmentEntry = {
      repo: "acme/widget",
      version: "0.1",
      python: "3.11",
      pins: [],
      pinsInstallArgs: [],
      installArgs: [],
      preInstall: [],
      install: "pip install -e .",
      testCommand: "pytest -rA",
      env: {},
      logParser: "pytest",
      notes: [],
      unmapped: [],
      services: [],
    };
    const dataset = path.join(root, "dataset.jsonl");
    writeFileSync(
      dataset,
      ["acme__widget-1", "acme__widget-2", "acme__widget-5"]
        .map((id) =>
          JSON.stringify({
            instance_id: id,
            repo: "acme/widget",
            base_commit: "0".repeat(40),
            patch:
              "diff --git a/src/w.py b/src/w.py\n--- a/src/w.py\n+++ b/src/w.py\n@@ -1 +1 @@\n-a\n+b\n",
            test_patch:
              "diff --git a/tests/t.py b/tests/t.py\n--- a/tests/t.py\n+++ b/tests/t.py\n@@ -1 +1 @@\n-a\n+b\n",
            problem_statement: "p",
            created_at: "2024-01-01T00:00:00Z",
            version: "0.1",
            FAIL_TO_PASS: '["tests/t.py::test_b"]',
            PASS_TO_PASS: "[]",
          }),
        )
        .join("\n"),
    );
    const events: RunEvent[] = [];
    const noMirrors = path.join(root, "no-mirrors");
    mkdirSync(noMirrors, { recursive: true });
    const result = await generateSwebench(
      {
        suiteDir: path.join(root, "evals", "swebench"),
        dataset: { file: dataset, name: "lite", split: "test", endpoint: "http://127.0.0.1:9" },
        selection: { all: true },
        repos: {
          cacheDir: path.join(root, "cache"),
          reposDir: path.join(root, "repos"),
          mirrorsDir: noMirrors,
        },
        environment: {
          cacheDir: path.join(root, "env"),
          pathEnv: "/usr/bin:/bin",
          home: root,
          uvPassEnv: {},
          pyenvRoot: root,
          uv: undefined,
          timeoutMs: 1000,
        },
        validate: false,
        proofRuns: 2,
        hints: false,
        concurrency: 2,
        testTimeoutMs: 1000,
        labVersion: "test",
        signal: new AbortController().signal,
        environmentOf: () => environment,
        ledger: {
          skip: new Map([...knownDrops(ledgerDir)].map(([id, r]) => [id, r.reason ?? ""])),
          referenceMs: (id) => referenceProofMs(id, ledgerDir),
        },
      },
      { emit: (event) => events.push(event) },
    );
    const known = result.dropped.find((drop) => drop.instance_id === "acme__widget-2");
    expect(known).toEqual({
      instance_id: "acme__widget-2",
      repo: "acme/widget",
      category: "known_drop",
      reason:
        "left out (--skip-known-drops): the ledger drops it on any machine: every FAIL_TO_PASS test passes without the fix",
    });
    const logs = events.flatMap((event) => (event.type === "log" ? [event.message] : []));
    expect(logs).toContain(
      "--skip-known-drops: leaving out 1 instance(s) the ledger drops whatever the machine: acme__widget-2",
    );
    // widget-5 has no reference: it counts at the median of those found (widget-1's 90 s).
    expect(logs).toContain(
      "reference proof times from the ledger for 1 of 2 instance(s) (the rest at their median): about 2 min at 2 at once on the reference machine",
    );
    const start = events.find(
      (event): event is Extract<ProofEvent, { type: "proof:start" }> =>
        event.type === "proof:start",
    );
    expect(start).toMatchObject({
      total: 2,
      concurrency: 2,
      expectedMs: { "acme__widget-1": 90_000, "acme__widget-5": 90_000 },
    });
  });

  it("the live display's ETA counts what the unfinished proofs are expected to take", () => {
    const progress = {
      expectedMs: { a: 90_000, b: 60_000, c: 30_000 },
      concurrency: 2,
      finished: new Set(["c"]),
      inFlight: new Map([["a", { label: "a", startedAt: 1_000, phase: "gold: tests" }]]),
    };
    // a has had 40 s of its 90; b all 60 ahead; over 2 at once.
    expect(expectedRemainingMs(progress, 41_000)).toBe(55_000);
    // A proof past its reference is expected to end now, not to give time back.
    expect(expectedRemainingMs(progress, 200_000)).toBe(30_000);
  });

  it("lab gen --skip-known-drops says when the ledger drops none of the chosen instances", async () => {
    const dataset = path.join(root, "dataset.jsonl");
    const result = await runLab(
      [
        "gen",
        "--suite",
        "swebench-skip",
        "--dataset",
        dataset,
        "--all",
        "--no-validate",
        "--skip-known-drops",
        "--mirrors",
        path.join(root, "no-mirrors"),
        "--evals-dir",
        path.join(root, "cli-evals"),
        "--display",
        "plain",
      ],
      { cwd: root },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "--skip-known-drops: the ledger drops none of these instances whatever the machine",
    );
    // All three went on to the gen (lab has no environment for acme/widget, a drop of its own).
    expect(result.stdout).toContain("swebench-skip: 0 kept, 3 dropped");
  });
});
