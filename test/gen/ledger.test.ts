import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  parseLedger,
  type Grade,
  type LedgerRecord,
  type SwebenchProof,
  type ValidationProof,
} from "../../src/core/index.js";
import { parseStartFacts, readLedgerFile, writeLedgerSlice } from "../../src/gen/index.js";
import { writeProofFile } from "../../src/gen/prove.js";
import { writeJsonAtomic } from "../../src/store/index.js";
import { suiteLayout } from "../../src/suite/index.js";
import { writeSyntheticRuns } from "../helpers/synthetic-runs.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

const root = tempDir("lab-ledger-");

function grade(resolved: boolean, phaseMs: Record<string, number>): Grade {
  return {
    resolved,
    patchApplied: true,
    patchEmpty: !resolved,
    applyMethod: resolved ? "git apply --verbose" : null,
    failToPass: { "t.py::f": resolved },
    passToPass: { "t.py::p": true },
    statuses: { "t.py::f": resolved ? "PASSED" : "FAILED", "t.py::p": "PASSED" },
    reason: resolved ? null : "FAIL_TO_PASS t.py::f failed",
    testsTimedOut: false,
    testExitCode: resolved ? 0 : 1,
    phaseMs,
    environmentKey: "py3.9.18-160654bddfcf05a0",
    tampering: [],
  };
}

/** One proof run: gold takes goldMs of grading, tests included. */
function run(id: string, testsMs: number, otherMs: number): ValidationProof {
  return {
    taskId: id,
    valid: true,
    reason: null,
    gold: grade(true, { environment: otherMs, tests: testsMs }),
    empty: grade(false, { checkout: 100, tests: testsMs }),
    environmentKey: "py3.9.18-160654bddfcf05a0",
    labVersion: "0.1.0",
  };
}

function proof(
  runs: ValidationProof[],
  drop?: Pick<SwebenchProof, "category" | "reason">,
): SwebenchProof {
  return {
    fingerprint: "f",
    kept: drop === undefined,
    category: drop?.category ?? null,
    reason: drop?.reason ?? null,
    runs,
  };
}

const BLOBS =
  "the repository could not be fetched at 7269fa3e33: lab's copy of astropy/astropy lacks 1 object(s) the base commit 7269fa3e33 needs, among them astropy/utils/iers/data/eopc04.1962-now of its own tree: the copy it was cloned from is incomplete.";

const INSTANCES = [
  ["astropy__astropy-12907", "astropy/astropy"],
  ["astropy__astropy-14365", "astropy/astropy"],
  ["django__django-11099", "django/django"],
  ["psf__requests-863", "psf/requests"],
  ["pytest-dev__pytest-5103", "pytest-dev/pytest"],
  ["sympy__sympy-13177", "sympy/sympy"],
  ["sympy__sympy-20590", "sympy/sympy"],
] as const;

/** A suite folder as `lab gen` leaves it, runs as `lab run` leaves them, and the other inputs. */
async function writeFixture(
  dir: string,
): Promise<{ suiteDir: string; dataset: string; runsDir: string; verdicts: string }> {
  const suiteDir = path.join(dir, "evals", "swebench");
  mkdirSync(suiteDir, { recursive: true });
  const dataset = path.join(dir, "dataset.jsonl");
  // Rows carry more than the ledger reads; it takes their ids and repositories.
  writeFileSync(
    dataset,
    INSTANCES.map(([id, repo]) => JSON.stringify({ instance_id: id, repo, version: "1" })).join(
      "\n",
    ),
  );
  await writeProofFile(suiteDir, {
    instances: {
      "astropy__astropy-12907": proof([
        run("astropy__astropy-12907", 3_000, 120_000),
        run("astropy__astropy-12907", 2_000, 1_000),
      ]),
      "pytest-dev__pytest-5103": proof([
        run("pytest-dev__pytest-5103", 1_000, 500),
        run("pytest-dev__pytest-5103", 1_000, 500),
      ]),
      "psf__requests-863": proof([run("psf__requests-863", 2_000, 2_000)], {
        category: "passes_without_fix",
        reason: "every FAIL_TO_PASS test passes without the fix: test_a",
      }),
      "sympy__sympy-13177": proof(
        [run("sympy__sympy-13177", 4_000, 0), run("sympy__sympy-13177", 4_000, 0)],
        {
          category: "flaky",
          reason:
            "flaky: gold resolves it in 1 of 2 proof runs; in another test_mod_inverse (FAILED)",
        },
      ),
    },
  });
  await writeJsonAtomic(suiteLayout(suiteDir).droppedFile, {
    generatedAt: "2026-12-04T18:00:00Z",
    kept: ["astropy__astropy-12907", "pytest-dev__pytest-5103"],
    dropped: [
      {
        instance_id: "astropy__astropy-14365",
        repo: "astropy/astropy",
        category: "repository",
        reason: BLOBS,
      },
      {
        instance_id: "django__django-11099",
        repo: "django/django",
        category: "no_mirror",
        reason: "not proven on this machine: no mirror of django/django in /m",
      },
    ],
    unknown: [],
  });
  const runsDir = path.join(dir, "runs");
  const kept = ["astropy__astropy-12907", "pytest-dev__pytest-5103"];
  const all = (outcome: boolean) => Object.fromEntries(kept.map((id) => [id, [outcome]]));
  writeSyntheticRuns(runsDir, [
    { tool: "gold", suite: "swebench", runId: "lite-gold", outcomes: all(true) },
    { tool: "noop", suite: "swebench", runId: "lite-noop", outcomes: all(false) },
    { tool: "predictions", suite: "swebench", runId: "lite-gold-preds", outcomes: all(true) },
    {
      tool: "predictions",
      suite: "swebench",
      runId: "lite-sweagent",
      outcomes: { "astropy__astropy-12907": [true], "pytest-dev__pytest-5103": [false] },
    },
  ]);
  const verdicts = path.join(dir, "sweagent-verdicts.json");
  writeFileSync(
    verdicts,
    JSON.stringify({
      source: "a report",
      resolved: ["astropy__astropy-12907", "pytest-dev__pytest-5103", "django__django-11099"],
      unresolved: [],
    }),
  );
  return { suiteDir, dataset, runsDir, verdicts };
}

const provenance = {
  labCommit: "4be1a62",
  date: "2026-12-04T17:05:34Z",
  cores: 2,
  loadAverage: 0.98,
};

describe("npm run ledger: a slice into the ledger", () => {
  it("gives every dataset instance one line, sorted, with the slice's proof, verdicts and drops", async () => {
    const dir = path.join(root, "first");
    const fixture = await writeFixture(dir);
    const out = path.join(dir, "ledger", "lite.jsonl");
    await writeLedgerSlice({
      suiteDir: fixture.suiteDir,
      datasetFile: fixture.dataset,
      runsDir: fixture.runsDir,
      goldRun: "lite-gold",
      noopRun: "lite-noop",
      goldPredictionsRun: "lite-gold-preds",
      families: [{ name: "sweagent-gpt4", runId: "lite-sweagent", verdictsFile: fixture.verdicts }],
      provenance,
      out,
    });
    const lines = readFileSync(out, "utf8").trimEnd().split("\n");
    const records = parseLedger(readFileSync(out, "utf8"), out);
    expect(lines).toHaveLength(INSTANCES.length);
    expect(records.map((record) => record.instance)).toEqual(INSTANCES.map(([id]) => id));
    const byId = new Map(records.map((record) => [record.instance, record]));

    expect(byId.get("astropy__astropy-12907")).toEqual({
      instance: "astropy__astropy-12907",
      repo: "astropy/astropy",
      status: "kept",
      class: null,
      reason: null,
      upstreamIssue: null,
      proof: [
        {
          outcome: "proven",
          testSeconds: 6,
          gradeSeconds: 126.1,
          environment: "py3.9.18-160654bddfcf05a0",
          interpreter: "3.9.18",
        },
        {
          outcome: "proven",
          testSeconds: 4,
          gradeSeconds: 5.1,
          environment: "py3.9.18-160654bddfcf05a0",
          interpreter: "3.9.18",
        },
      ],
      verdicts: {
        gold: "resolved",
        noop: "unresolved",
        goldPredictions: "resolved",
        families: { "sweagent-gpt4": { lab: "resolved", official: "resolved", agree: true } },
      },
      provenance,
    } satisfies LedgerRecord);
    expect(byId.get("pytest-dev__pytest-5103")?.verdicts?.families).toEqual({
      "sweagent-gpt4": { lab: "unresolved", official: "resolved", agree: false },
    });
    // The snapshot without big blobs: forced by the machine, naming the file, as gen says it.
    expect(byId.get("astropy__astropy-14365")).toMatchObject({
      status: "dropped",
      class: "machine-forced",
      reason: BLOBS,
      proof: [],
      provenance,
    });
    expect(byId.get("psf__requests-863")).toMatchObject({
      status: "dropped",
      class: "upstream-shared",
      upstreamIssue: {
        issue: "SWE-bench/SWE-bench#24",
        url: "https://github.com/SWE-bench/SWE-bench/issues/24",
      },
      verdicts: null,
    });
    expect(byId.get("sympy__sympy-13177")).toMatchObject({ status: "dropped", class: "flaky" });
    expect(byId.get("django__django-11099")).toMatchObject({
      status: "unproven",
      class: "no-mirror",
    });
    // Nothing measured it, so nothing is claimed for it.
    expect(byId.get("sympy__sympy-20590")).toMatchObject({
      status: "unproven",
      class: "not-yet-proven",
      proof: [],
      provenance: null,
    });
  });

  it("drops as flaky a kept instance whose gold run fails, or whose noop run resolves, after its proofs held", async () => {
    const dir = path.join(root, "flip");
    const fixture = await writeFixture(dir);
    const runsDir = path.join(dir, "runs-flip");
    writeSyntheticRuns(runsDir, [
      {
        tool: "gold",
        suite: "swebench",
        runId: "lite-gold",
        outcomes: { "astropy__astropy-12907": [true], "pytest-dev__pytest-5103": [false] },
      },
      {
        tool: "noop",
        suite: "swebench",
        runId: "lite-noop",
        outcomes: { "astropy__astropy-12907": [true], "pytest-dev__pytest-5103": [false] },
      },
    ]);
    const out = path.join(dir, "ledger", "lite.jsonl");
    const records = await writeLedgerSlice({
      suiteDir: fixture.suiteDir,
      datasetFile: fixture.dataset,
      runsDir,
      goldRun: "lite-gold",
      noopRun: "lite-noop",
      families: [],
      provenance,
      out,
    });
    const byId = new Map(records.map((record) => [record.instance, record]));
    expect(byId.get("pytest-dev__pytest-5103")).toMatchObject({
      status: "dropped",
      class: "flaky",
      verdicts: null,
    });
    expect(byId.get("pytest-dev__pytest-5103")?.reason).toMatch(
      /^gold resolved in its 2 proof run\(s\) but not in the slice's gold run: /,
    );
    expect(byId.get("astropy__astropy-12907")).toMatchObject({
      status: "dropped",
      class: "flaky",
      reason: "no change failed in its 2 proof run(s) but resolved in the slice's noop run",
    });
    // Its proof runs stay on the line: the evidence of the other outcome.
    expect(byId.get("astropy__astropy-12907")?.proof).toHaveLength(2);
  });

  it("replaces only the slice's lines, keeps every other line as it was, and never demotes a proven line", async () => {
    const dir = path.join(root, "merge");
    const fixture = await writeFixture(dir);
    const out = path.join(dir, "lite.jsonl");
    const base = {
      suiteDir: fixture.suiteDir,
      datasetFile: fixture.dataset,
      runsDir: fixture.runsDir,
      families: [],
      out,
    };
    await writeLedgerSlice({ ...base, provenance });
    const before = readFileSync(out, "utf8").split("\n");

    // A later slice of one instance, on another machine whose gen has no astropy mirror.
    await writeProofFile(fixture.suiteDir, {
      instances: { "pytest-dev__pytest-5103": proof([run("pytest-dev__pytest-5103", 9_000, 0)]) },
    });
    await writeJsonAtomic(suiteLayout(fixture.suiteDir).droppedFile, {
      dropped: [
        {
          instance_id: "astropy__astropy-12907",
          repo: "astropy/astropy",
          category: "no_mirror",
          reason: "no mirror",
        },
      ],
    });
    const later = { ...provenance, date: "2026-12-05T09:00:00Z" };
    await writeLedgerSlice({
      ...base,
      slice: ["pytest-dev__pytest-5103", "astropy__astropy-12907", "sympy__sympy-20590"],
      provenance: later,
    });
    const after = readFileSync(out, "utf8").split("\n");
    const changed = after.flatMap((line, index) =>
      line === before[index] ? [] : [JSON.parse(line) as LedgerRecord],
    );
    expect(changed.map((record) => record.instance)).toEqual(["pytest-dev__pytest-5103"]);
    expect(changed[0]).toMatchObject({ proof: [{ testSeconds: 18 }], provenance: later });
    // astropy-12907 keeps its proof (no mirror here proves nothing); sympy-20590 was named
    // but not proven, so its line is not invented.
    expect(after).toContain(before.find((line) => line.includes('"astropy__astropy-12907"')));
    expect(after).toContain(before.find((line) => line.includes('"sympy__sympy-20590"')));
  });

  it("refuses a ledger line that is not a record, naming the file and line", async () => {
    const file = path.join(root, "broken.jsonl");
    writeFileSync(file, `${JSON.stringify({ instance: "a__b-1" })}\n`);
    await expect(readLedgerFile(file)).rejects.toThrow(`${file}:1 is not a ledger record`);
  });

  it("reads the machine facts the proof job writes when a slice starts", () => {
    expect(
      parseStartFacts(
        " 17:05:34 up 4 min,  0 user,  load average: 0.98, 0.42, 0.15\n2\n2026-12-04T17:05:34Z\n",
      ),
    ).toEqual({ cores: 2, loadAverage: 0.98, date: "2026-12-04T17:05:34Z" });
  });

  it("runs as a command: writes the slice, then the README's section from the ledger", async () => {
    const dir = path.join(root, "command");
    const fixture = await writeFixture(dir);
    const facts = path.join(dir, "uptime-start.txt");
    writeFileSync(
      facts,
      " 17:05:34 up 4 min,  0 user,  load average: 0.98, 0.42, 0.15\n2\n2026-12-04T17:05:34Z\n",
    );
    const readme = path.join(dir, "README.md");
    writeFileSync(readme, "# Tier\n\n<!-- ledger:start -->\nold\n<!-- ledger:end -->\n\nAfter.\n");
    const stdout = execFileSync(
      process.execPath,
      [
        path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs"),
        path.join(repoRoot, "scripts", "swebench", "ledger.ts"),
        ...[
          "--suite-dir",
          fixture.suiteDir,
          "--dataset",
          fixture.dataset,
          "--runs-dir",
          fixture.runsDir,
        ],
        ...["--gold", "lite-gold", "--noop", "lite-noop", "--gold-predictions", "lite-gold-preds"],
        ...["--family", `sweagent-gpt4=lite-sweagent:${fixture.verdicts}`],
        ...["--lab-commit", "4be1a62", "--start-facts", facts],
        ...[
          "--out",
          path.join(dir, "ledger", "lite.jsonl"),
          "--readme",
          readme,
          "--ledger-dir",
          path.join(dir, "ledger"),
        ],
      ],
      { encoding: "utf8", cwd: dir },
    );
    expect(stdout).toContain("7 lines: 2 kept, 3 dropped, 2 unproven");
    const text = readFileSync(readme, "utf8");
    expect(text.startsWith("# Tier\n\n<!-- ledger:start -->")).toBe(true);
    expect(text.endsWith("<!-- ledger:end -->\n\nAfter.\n")).toBe(true);
    expect(text).not.toContain("\nold\n");
    expect(text).toContain(
      "| Lite | sweagent-gpt4 | 2 | 1 (50.0%) | 1 / 2 | `pytest-dev__pytest-5103` (here unresolved, officially resolved) |",
    );
  }, 60_000);

  it("says how it is used for --help, and refuses an unknown option or a README that is not there, writing nothing", () => {
    const dir = path.join(root, "usage");
    mkdirSync(dir, { recursive: true });
    const ledger = (...args: string[]) =>
      spawnSync(
        process.execPath,
        [
          path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs"),
          path.join(repoRoot, "scripts", "swebench", "ledger.ts"),
          ...args,
        ],
        { encoding: "utf8", cwd: dir },
      );
    const help = ledger("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run ledger -- --suite-dir DIR/);
    const unknown = ledger("--bogus");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^ledger: Unknown option '--bogus'\nusage: /);
    expect(unknown.stderr).not.toContain("    at ");
    const missing = path.join(dir, "README.md");
    const typo = ledger("--readme", missing);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain(`ledger: no README at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  }, 60_000);
});
