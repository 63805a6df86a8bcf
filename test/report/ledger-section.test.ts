import { describe, expect, it } from "vitest";
import type { LedgerRecord } from "../../src/core/index.js";
import {
  estimateColdGen,
  proofFigures,
  renderLedgerSection,
  replaceLedgerSection,
} from "../../src/report/index.js";

const provenance = {
  labCommit: "4be1a62",
  date: "2026-12-04T17:05:34Z",
  cores: 2,
  loadAverage: 0.98,
};

/** A kept line whose two proof runs take `seconds` between them, half of it in tests. */
function kept(instance: string, repo: string, seconds: number): LedgerRecord {
  const run = {
    outcome: "proven" as const,
    testSeconds: seconds / 4,
    gradeSeconds: seconds / 2,
    environment: "py3.9.18-0123456789abcdef",
    interpreter: "3.9.18",
  };
  return {
    instance,
    repo,
    status: "kept",
    class: null,
    reason: null,
    upstreamIssue: null,
    proof: [run, run],
    verdicts: {
      gold: "resolved",
      noop: "unresolved",
      goldPredictions: "resolved",
      families: {
        "sweagent-gpt4": { lab: "unresolved", official: "unresolved", agree: true },
      },
    },
    provenance,
  };
}

const lite: LedgerRecord[] = [
  kept("psf__requests-1", "psf/requests", 100),
  kept("psf__requests-2", "psf/requests", 300),
  {
    ...kept("psf__requests-3", "psf/requests", 200),
    status: "dropped",
    class: "upstream-shared",
    reason: "every FAIL_TO_PASS test passes without the fix",
    upstreamIssue: {
      issue: "SWE-bench/SWE-bench#24",
      url: "https://github.com/SWE-bench/SWE-bench/issues/24",
    },
    verdicts: null,
  },
  {
    ...kept("sympy__sympy-1", "sympy/sympy", 1000),
    verdicts: {
      gold: "resolved",
      noop: "unresolved",
      goldPredictions: "resolved",
      families: {
        "sweagent-gpt4": { lab: "unresolved", official: "resolved", agree: false },
      },
    },
  },
  {
    instance: "django__django-1",
    repo: "django/django",
    status: "unproven",
    class: "no-mirror",
    reason: "not proven on this project's machines: no mirror of django/django",
    upstreamIssue: null,
    proof: [],
    verdicts: null,
    provenance: null,
  },
];

describe("the tier README's ledger section", () => {
  it("figures the proof seconds per instance and the proof/test ratio", () => {
    const figures = proofFigures(lite);
    expect(figures).toMatchObject({ measured: 4, medianSeconds: 250, proofTestRatio: 2 });
    // numpy.percentile([100, 200, 300, 1000], 90): 300 + 0.7 * 700.
    expect(figures?.p90Seconds).toBeCloseTo(790, 9);
  });

  it("estimates a cold gen from the proof times, an unproven instance at the overall median", () => {
    // 100 + 300 + 200 + 1000 + 250 (django: no repository median) = 1850 s over 2 cores.
    const estimate = estimateColdGen(lite, 2);
    expect(estimate).toEqual({
      hours: 1850 / 2 / 3600,
      measured: 4,
      byRepository: 0,
      byOverall: 1,
    });
  });

  it("renders the proven table, the figures, the drops with their upstream issue, and the agreement", () => {
    const section = renderLedgerSection([{ title: "Lite", records: lite }]);
    expect(section.startsWith("<!-- ledger:start -->\n")).toBe(true);
    expect(section.endsWith("\n<!-- ledger:end -->")).toBe(true);
    expect(section).toContain("| Lite | psf/requests | 3 | 2 | 1 | 0 | 200.0 | 280.0 | 2.00 |");
    expect(section).toContain("| Lite | django/django | 1 | 0 | 0 | 1 | – | – | – |");
    expect(section).toContain("| Lite | **all** | 5 | 3 | 1 | 1 | 250.0 | 790.0 | 2.00 |");
    expect(section).toContain(
      "- Lite: cold proof seconds per instance (both proof runs, every grade phase) median 250.0, p90 790.0, over 4 instances; proof/test ratio 2.00 (the grades' seconds over their test processes'). A cold gen of all 5 on 2 cores: about 0.3 h (4 at their own time, 0 at their repository's median, 1 at the overall median; the sum of proof seconds over 2 proofs at once, clones and rendering not counted).",
    );
    expect(section).toContain(
      "| Lite | `psf__requests-3` | upstream-shared | every FAIL_TO_PASS test passes without the fix. Upstream's harness too: [SWE-bench/SWE-bench#24](https://github.com/SWE-bench/SWE-bench/issues/24). |",
    );
    expect(section).toContain(
      "- Lite, 3 kept: gold resolves 3 of 3 graded (flagged 0); noop resolves 0 of 3; gold as predictions resolves 3 of 3, the same verdict as gold on 3.",
    );
    expect(section).toContain(
      "| Lite | sweagent-gpt4 | 3 | 2 (66.7%) | 0 / 1 | `sympy__sympy-1` (here unresolved, officially resolved) |",
    );
    expect(section).toContain("| Lite | 2026-12-04T17:05:34Z | `4be1a62` | 2 | 0.98 | 4 |");
  });

  it("names a kept task that gold does not resolve or noop does, and says when a dataset has none kept", () => {
    const [first, second] = lite;
    if (first === undefined || second === undefined) throw new Error("fixture");
    const records: LedgerRecord[] = [
      {
        ...first,
        verdicts: {
          gold: "unresolved",
          noop: "unresolved",
          goldPredictions: "unresolved",
          families: {},
        },
      },
      {
        ...second,
        verdicts: { gold: "resolved", noop: "resolved", goldPredictions: "resolved", families: {} },
      },
    ];
    const section = renderLedgerSection([
      { title: "Lite", records },
      { title: "Verified", records: lite.filter((record) => record.status === "unproven") },
    ]);
    expect(section).toContain(
      "- Lite, 2 kept: gold resolves 1 of 2 graded (flagged 0); noop resolves 1 of 2; gold as predictions resolves 1 of 2, the same verdict as gold on 2. Gold does not resolve `psf__requests-1` (unresolved). Noop resolves `psf__requests-2` (resolved).",
    );
    expect(section).toContain("- Verified: no kept task yet.");
    expect(section).not.toContain("Verified, 0 kept");
  });

  it("says so when no slice has been written yet", () => {
    expect(renderLedgerSection([{ title: "Lite", records: [] }])).toBe(
      "<!-- ledger:start -->\n\n_Generated from `data/swebench/ledger/` by `npm run ledger -- --readme`: no slice has been written into the ledger yet._\n\n<!-- ledger:end -->",
    );
  });

  it("replaces only what is between the markers, or appends a section to a README without them", () => {
    const section = "<!-- ledger:start -->\nnew\n<!-- ledger:end -->";
    expect(
      replaceLedgerSection("a\n<!-- ledger:start -->\nold\n<!-- ledger:end -->\nb\n", section),
    ).toBe(`a\n${section}\nb\n`);
    expect(replaceLedgerSection("# T\n", section)).toBe(`# T\n\n## The ledger\n\n${section}\n`);
  });
});
