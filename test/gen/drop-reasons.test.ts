import { describe, expect, it } from "vitest";
import type { Grade, ValidationProof } from "../../src/core/index.js";
import { classifyProofs } from "../../src/gen/drop-reasons.js";
import { judgeProof } from "../../src/gen/prove.js";
import { upstreamIssueFor } from "../../src/datasets/index.js";
import { renderGenSection } from "../../src/gen/tier-readme.js";

function grade(fields: Partial<Grade>): Grade {
  return {
    resolved: true,
    patchApplied: true,
    patchEmpty: false,
    applyMethod: "git apply --verbose",
    failToPass: { "t.py::f": true },
    passToPass: { "t.py::p": true },
    statuses: { "t.py::f": "PASSED", "t.py::p": "PASSED" },
    reason: null,
    testsTimedOut: false,
    testExitCode: 0,
    phaseMs: {},
    environmentKey: "k",
    tampering: [],
    ...fields,
  };
}

function proof(gold: Partial<Grade>, empty: Partial<Grade> = {}): ValidationProof {
  const emptyGrade = grade({
    resolved: false,
    patchEmpty: true,
    failToPass: { "t.py::f": false },
    statuses: { "t.py::f": "FAILED", "t.py::p": "PASSED" },
    ...empty,
  });
  const goldGrade = grade(gold);
  return {
    taskId: "x",
    valid: goldGrade.resolved,
    reason: goldGrade.resolved ? null : "gold",
    gold: goldGrade,
    empty: emptyGrade,
    environmentKey: "k",
    labVersion: "t",
  };
}

describe("classifyProofs", () => {
  it("keeps an instance whose runs agree", () => {
    expect(classifyProofs([proof({}), proof({})], ["", ""])).toBeNull();
  });

  it("names the failing tests, and calls them network failures only when the log shows it", () => {
    const failing = proof({
      resolved: false,
      failToPass: { "t.py::f": false },
      statuses: { "t.py::f": "FAILED", "t.py::p": "PASSED" },
    });
    expect(classifyProofs([failing], ["E   AssertionError"])).toEqual({
      category: "gold_fails",
      reason: "gold fails 1 test(s): t.py::f (FAILED)",
    });
    expect(classifyProofs([failing], ["ConnectionError: Max retries exceeded"])).toEqual({
      category: "network",
      reason: "tests need the network: t.py::f (FAILED)",
    });
  });

  it("says when the install's own download at build time failed, naming what and from where", () => {
    const missing = proof({
      resolved: false,
      failToPass: { "t.py::f": false },
      statuses: {},
    });
    const log = [
      "lab: retrying the editable install with setup.py develop, as pip does for a setuptools without PEP 517",
      "Failed to download and/or install 'astropy-helpers' from 'https://pypi.python.org/simple':",
      "lab: install step exited with 1",
      "ModuleNotFoundError: No module named 'astropy'",
    ].join("\n");
    expect(classifyProofs([missing], [log])).toEqual({
      category: "network",
      reason:
        "the install downloads astropy-helpers from https://pypi.python.org/simple at build time, which could not be reached from here; t.py::f (missing) then fail",
    });
  });

  it("gives the grade's own reason when every listed test passed but gold is not resolved", () => {
    const flagged = proof({
      resolved: false,
      reason: "the change tampers with the test run: conftest.py: adds a pytest conftest.py",
    });
    expect(classifyProofs([flagged], ["Max retries exceeded"])).toEqual({
      category: "gold_fails",
      reason:
        "gold is not resolved: the change tampers with the test run: conftest.py: adds a pytest conftest.py",
    });
  });

  it("drops an instance whose tests flip between proof runs, naming them", () => {
    const flipped = proof(
      {},
      { passToPass: { "t.py::p": false }, statuses: { "t.py::f": "FAILED", "t.py::p": "FAILED" } },
    );
    expect(classifyProofs([proof({}), flipped], ["", ""])).toEqual({
      category: "flaky",
      reason: "flaky: t.py::p (empty) changed outcome between proof runs",
    });
  });

  it("keeps an instance whose listed tests only fail (or pass) another way in another run", () => {
    // FAIL_TO_PASS: ERROR, then FAILED without the fix; PASS_TO_PASS: SKIPPED, then PASSED.
    const other = proof(
      { statuses: { "t.py::f": "XFAIL", "t.py::p": "SKIPPED" } },
      { statuses: { "t.py::f": "ERROR", "t.py::p": "PASSED" } },
    );
    expect(classifyProofs([proof({}), other], ["", ""])).toBeNull();
  });

  it("calls gold that resolves in one proof run and fails listed tests in another flaky", () => {
    const failed = proof({
      resolved: false,
      failToPass: { "t.py::f": false },
      statuses: { "t.py::f": "ERROR", "t.py::p": "PASSED" },
    });
    expect(classifyProofs([proof({}), failed], ["", "RecursionError"])).toEqual({
      category: "flaky",
      reason: "flaky: gold resolves it in 1 of 2 proof runs; in another t.py::f (ERROR)",
    });
  });

  it("says so when the proof run gold fails in is one whose tests ran past their limit", () => {
    const cut = proof({
      resolved: false,
      testsTimedOut: true,
      reason: "the tests timed out after 1800 s",
      failToPass: { "t.py::f": false },
      statuses: {},
    });
    expect(classifyProofs([proof({}), cut], ["", ""])).toEqual({
      category: "flaky",
      reason:
        "flaky: gold resolves it in 1 of 2 proof runs; in another the tests timed out after 1800 s, leaving t.py::f (missing)",
    });
  });

  it("keeps an instance whose only flips are of tests outside its lists, which decide no verdict", () => {
    const unlisted = { "t.py::f": "FAILED", "t.py::p": "PASSED" } as const;
    const first = proof({}, { statuses: { ...unlisted, "t.py::other": "PASSED" } });
    const second = proof(
      { statuses: { "t.py::f": "PASSED", "t.py::p": "PASSED", "t.py::elsewhere": "FAILED" } },
      { statuses: { ...unlisted, "t.py::other": "ERROR" } },
    );
    expect(classifyProofs([first, second], ["", ""])).toBeNull();
  });
});

describe("judgeProof", () => {
  const empty = (failToPass: Record<string, boolean>): Grade =>
    grade({ resolved: false, patchEmpty: true, failToPass });

  it("keeps a task whose listed FAIL_TO_PASS tests fail without the fix", () => {
    expect(judgeProof(grade({}), empty({ "t.py::a": false, "t.py::b": false }))).toEqual({
      valid: true,
      reason: null,
      passWithoutFix: [],
    });
  });

  it("keeps a task where some listed tests pass without the fix, and names them", () => {
    expect(judgeProof(grade({}), empty({ "t.py::a": true, "t.py::b": false }))).toEqual({
      valid: true,
      reason: null,
      passWithoutFix: ["t.py::a"],
    });
  });

  it("drops a task that no listed test tells apart from no change, or that gold does not resolve", () => {
    expect(judgeProof(grade({}), empty({ "t.py::a": true, "t.py::b": true }))).toEqual({
      valid: false,
      reason: "every FAIL_TO_PASS test passes without the fix: t.py::a, t.py::b",
      passWithoutFix: ["t.py::a", "t.py::b"],
    });
    expect(judgeProof(grade({}), empty({})).reason).toBe("it lists no FAIL_TO_PASS test");
    expect(
      judgeProof(grade({ resolved: false, reason: "tests failed" }), empty({ "t.py::a": false }))
        .reason,
    ).toBe("the gold patch does not resolve it: tests failed");
  });

  it("lists such tasks under the kept ones in the tier README", () => {
    const section = renderGenSection(["a__b-1", "a__b-2"], [], "2026-01-01", {
      "a__b-2": ["t.py::x", "t.py::y"],
    });
    expect(section).toContain(
      "Kept, though some of their listed FAIL_TO_PASS tests pass here without the fix",
    );
    expect(section).toContain("- `a__b-2`: `t.py::x`, `t.py::y`");
    expect(renderGenSection(["a__b-1"], [], "2026-01-01")).not.toContain("Kept, though");
  });

  it("counts instances of repositories without a mirror, and known drops left out, apart, never as kept or dropped", () => {
    const noMirror = (id: string, repo: string) => ({
      instance_id: id,
      repo,
      category: "no_mirror" as const,
      reason: `not proven on this machine: no mirror of ${repo} in /m`,
    });
    const section = renderGenSection(
      ["a__b-1"],
      [
        noMirror("django__django-1", "django/django"),
        noMirror("django__django-2", "django/django"),
        noMirror("matplotlib__matplotlib-1", "matplotlib/matplotlib"),
        { instance_id: "a__b-2", repo: "a/b", category: "flaky", reason: "flips" },
        { instance_id: "a__b-3", repo: "a/b", category: "known_drop", reason: "left out" },
      ],
      "2026-01-01",
    );
    expect(section).toContain(
      "_Written by `lab gen` on 2026-01-01: 1 kept, 1 dropped after trying, 3 not proven on this machine, 0 out of scope._",
    );
    expect(section).toContain(
      "Not proven on this machine: no mirror (3): django/django (2), matplotlib/matplotlib (1).",
    );
    expect(section).toContain("| `a__b-2` | flaky: flips |");
    expect(section).not.toContain("| `django__django-1`");
    // Left out before any proof: named, but neither tried nor dropped here.
    expect(section).toContain(
      "Left out as known drops (`--skip-known-drops`: the ledger drops them whatever the machine) (1): `a__b-3`.",
    );
    expect(section).not.toContain("| `a__b-3`");
  });

  it("cites the upstream issue that reports a dropped instance's trouble in upstream's harness too", () => {
    const issue = upstreamIssueFor("psf__requests-863");
    expect(issue?.issue).toBe("SWE-bench/SWE-bench#24");
    expect(upstreamIssueFor("psf__requests-2317")).toBeNull();
    const drop = {
      instance_id: "psf__requests-863",
      repo: "psf/requests",
      category: "passes_without_fix" as const,
      reason: "every FAIL_TO_PASS test passes without the fix: t.py::a",
    };
    const section = renderGenSection([], [drop], "2026-01-01", {}, { "psf__requests-863": issue! });
    expect(section).toContain(
      "| `psf__requests-863` | passes_without_fix: every FAIL_TO_PASS test passes without the fix: t.py::a Upstream's harness too: [SWE-bench/SWE-bench#24](https://github.com/SWE-bench/SWE-bench/issues/24) (its FAIL_TO_PASS tests pass before the gold patch is applied). |",
    );
  });
});
