import { describe, expect, it } from "vitest";
import { renderRepoGenSection, renderSamplingReport } from "../../src/gen/repo/report.js";
import {
  largestMixedTotal,
  parseMix,
  profileTask,
  quotas,
  type Profile,
} from "../../src/gen/repo/sampling.js";

/** A diff changing `lines` lines in each of `files` files under `folder`. */
function patch(files: number, lines: number, folder = "src/pkg"): string {
  let text = "";
  for (let file = 0; file < files; file++) {
    text += `diff --git a/${folder}/m${String(file)}.py b/${folder}/m${String(file)}.py\n--- a/${folder}/m${String(file)}.py\n+++ b/${folder}/m${String(file)}.py\n@@ -1,${String(lines)} +1,${String(lines)} @@\n`;
    for (let line = 0; line < lines; line++) text += `+x = ${String(line)}\n`;
  }
  return text;
}

const LONG = "The widget table overflows when names are long. ".repeat(6);

describe("profiling a task", () => {
  it("classes scope by files, lines and modules of the fix", () => {
    expect(profileTask(patch(1, 20), LONG).scope).toBe("small");
    expect(profileTask(patch(1, 21), LONG).scope).toBe("medium");
    expect(profileTask(patch(3, 10), LONG).scope).toBe("medium");
    expect(profileTask(patch(4, 1), LONG).scope).toBe("large");
    expect(profileTask(patch(1, 101), LONG).scope).toBe("large");
    expect(profileTask(patch(1, 1, "a") + patch(1, 1, "b") + patch(1, 1, "c"), LONG).scope).toBe(
      "large",
    );
  });

  it("classes the description and combines both into a difficulty", () => {
    const trace = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: no';
    expect(profileTask(patch(1, 2), trace)).toMatchObject({
      description: "stack-trace",
      difficulty: "easy",
      hasStackTrace: true,
    });
    expect(profileTask(patch(1, 2), "```python\nf()\n```")).toMatchObject({
      description: "reproduction",
      difficulty: "easy",
    });
    expect(profileTask(patch(1, 2), LONG)).toMatchObject({
      description: "prose",
      difficulty: "easy",
    });
    expect(profileTask(patch(1, 2), "fix typo")).toMatchObject({
      description: "terse",
      difficulty: "medium",
    });
    expect(profileTask(patch(2, 30), "fix typo")).toMatchObject({
      scope: "medium",
      difficulty: "hard",
    });
    expect(profileTask(patch(5, 30), LONG)).toMatchObject({ scope: "large", difficulty: "hard" });
  });
});

describe("sampling to a target mix", () => {
  it("parses shares or percentages and normalises them", () => {
    expect(parseMix("small=0.5,medium=0.3,large=0.2")).toEqual({
      dimension: "scope",
      shares: { small: 0.5, medium: 0.3, large: 0.2 },
    });
    expect(parseMix("easy=50%, hard=50%", "difficulty")).toEqual({
      dimension: "difficulty",
      shares: { easy: 0.5, hard: 0.5 },
    });
    expect(parseMix("small=1,large=3").shares).toEqual({ small: 0.25, large: 0.75 });
  });

  it("rejects unknown classes and an all-zero mix, naming the classes", () => {
    expect(() => parseMix("huge=1")).toThrow(
      '--mix: "huge=1" is not CLASS=SHARE for the scope dimension.',
    );
    try {
      parseMix("easy=1");
    } catch (error) {
      expect((error as { hint: string }).hint).toBe(
        "Classes of scope: small, medium, large; e.g. --mix small=0.5,medium=0.3,large=0.2.",
      );
    }
    expect(() => parseMix("small=0")).toThrow('--mix "small=0" gives no class a share.');
  });

  it("splits a total by largest remainder, capped by what is available", () => {
    const mix = parseMix("small=0.5,medium=0.3,large=0.2");
    expect(quotas(mix, 10)).toEqual({ small: 5, medium: 3, large: 2 });
    expect(quotas(mix, 7)).toEqual({ small: 4, medium: 2, large: 1 });
    expect(quotas(mix, 10, { small: 9, medium: 1, large: 4 })).toEqual({
      small: 5,
      medium: 1,
      large: 2,
    });
  });

  it("finds the largest suite that keeps the mix", () => {
    const mix = parseMix("small=0.5,medium=0.3,large=0.2");
    expect(largestMixedTotal(mix, { small: 9, medium: 3, large: 4 })).toBe(10);
    expect(largestMixedTotal(mix, { small: 9, medium: 0, large: 4 })).toBe(0);
  });
});

describe("the sampling report", () => {
  const small = (description: Profile["description"]) =>
    profileTask(patch(1, 2), description === "terse" ? "fix" : LONG);
  const candidates = [
    small("terse"),
    small("terse"),
    small("terse"),
    small("terse"),
    small("prose"),
    profileTask(patch(5, 5), LONG),
  ];

  it("gives an even count's median as the mean of the middle two", () => {
    const kept = [2, 5].map((goldLines) => ({
      ...small("prose"),
      goldLines,
      textSource: "commit-message" as const,
    }));
    const report = (lines: typeof kept) =>
      renderSamplingReport({
        suite: "acme",
        repo: "acme/widget",
        branch: "main",
        walked: lines.length,
        candidates: lines,
        kept: lines,
        dropped: [],
        mix: undefined,
        validated: true,
      });
    expect(report(kept)).toContain("Gold patch source lines: median 3.5, max 5;");
    expect(report([...kept, { ...kept[0]!, goldLines: 9 }])).toContain(
      "Gold patch source lines: median 5, max 9;",
    );
  });

  it("shows the suite against its candidates and target, and warns where one kind dominates", () => {
    const report = renderSamplingReport({
      suite: "acme",
      repo: "acme/widget",
      branch: "main",
      walked: 9,
      candidates,
      kept: candidates.slice(0, 5).map((profile) => ({ ...profile, textSource: "commit-message" })),
      dropped: [
        {
          id: "acme-3",
          commit: "c".repeat(40),
          subject: "docs",
          category: "no_tests",
          reason: "changes no test files",
        },
      ],
      mix: parseMix("small=0.5,large=0.5"),
      validated: true,
    });
    expect(report).toContain(
      "acme/widget (main): 9 merged changes walked, 6 candidates (they change tests and source), 5 kept.",
    );
    expect(report).toContain("| small | 5 | 5 | 100% | 50% |");
    expect(report).toContain("| large | 1 | 0 | 0% | 50% |");
    expect(report).toContain("| no_tests | 1 |");
    expect(report).toContain('- scope "small" is 100% of the suite against a target of 50%.');
    expect(report).toContain('- no scope "large" task was kept (1 mined).');
    expect(report).toContain('- description "terse" makes up 80% of the suite.');
    expect(report).toContain("| commit-message | 5 |");
  });

  it("lists kept tasks and every drop in the README section", () => {
    expect(
      renderRepoGenSection(
        ["a-1"],
        [
          {
            id: "a-2",
            commit: "0123456789abcdef",
            subject: "",
            category: "flaky",
            reason: "flaky: x | y",
          },
        ],
        "2026-01-01",
      ),
    ).toBe(
      [
        "_Written by `lab gen --from-repo` on 2026-01-01: 1 kept, 1 dropped._",
        "",
        "Kept (1): `a-1`.",
        "",
        "| dropped change | commit | why |",
        "|---|---|---|",
        "| `a-2` | 0123456789 | flaky: flaky: x \\| y |",
      ].join("\n"),
    );
  });
});
