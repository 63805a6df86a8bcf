import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeDifference, sampleMutants } from "../../src/audit/audit-task.js";
import { addedLines, isAuditedFile, listHunks, undoHunk } from "../../src/audit/gold-hunks.js";
import { MUTATOR_SCRIPT } from "../../src/audit/mutator-script.js";
import { tempDir } from "../helpers/temp.js";

const GOLD = `diff --git a/src/m.py b/src/m.py
index 1..2 100644
--- a/src/m.py
+++ b/src/m.py
@@ -1,4 +1,5 @@
 def f(x):
-    return x
+    if x < 0:
+        return 0
+    return x
 
@@ -10,3 +11,3 @@ def g():
     a = 1
-    b = 2
+    b = 3
     return a + b
diff --git a/tests/test_m.py b/tests/test_m.py
--- a/tests/test_m.py
+++ b/tests/test_m.py
@@ -1 +1,2 @@
 x = 1
+y = 2
`;

describe("the gold patch as the audit reads it", () => {
  it("lists hunks with their new-side lines, and audits only Python source", () => {
    const hunks = listHunks(GOLD);
    expect(hunks.map((hunk) => [hunk.path, hunk.newStart, hunk.newCount])).toEqual([
      ["src/m.py", 1, 5],
      ["src/m.py", 11, 3],
      ["tests/test_m.py", 1, 2],
    ]);
    expect(hunks.map(addedLines)).toEqual([[2, 3, 4], [12], [2]]);
    expect(hunks.map((hunk) => isAuditedFile(hunk.path))).toEqual([true, true, false]);
  });

  it("undoes one hunk of a file, leaving the others", () => {
    const gold = [
      "def f(x):",
      "    if x < 0:",
      "        return 0",
      "    return x",
      "",
      ...Array.from({ length: 5 }, (_, i) => `# ${String(i)}`),
      "def g():",
      "    a = 1",
      "    b = 3",
      "    return a + b",
      "",
    ].join("\n");
    const [first, second] = listHunks(GOLD);
    expect(undoHunk(gold, first!).split("\n").slice(0, 3)).toEqual([
      "def f(x):",
      "    return x",
      "",
    ]);
    expect(undoHunk(gold, second!)).toContain("    b = 2\n    return a + b");
    expect(undoHunk(gold, second!)).toContain("    if x < 0:");
  });

  it("samples mutants across operators, keeping every equivalent one", () => {
    const mutants = [
      ...Array.from({ length: 6 }, (_, i) => ({
        operator: "swap-comparison",
        equivalent: false,
        i,
      })),
      ...Array.from({ length: 2 }, (_, i) => ({
        operator: "drop-statement",
        equivalent: false,
        i,
      })),
      { operator: "change-constant", equivalent: true, i: 0 },
    ];
    const chosen = sampleMutants(mutants, 4, "task-1");
    expect(chosen).toHaveLength(5);
    expect(chosen.filter((mutant) => mutant.operator === "drop-statement")).toHaveLength(2);
    expect(chosen.at(-1)).toMatchObject({ equivalent: true });
    expect(sampleMutants(mutants, 4, "task-1")).toEqual(chosen);
  });

  it("describes a variant as a small diff against the gold file", () => {
    expect(describeDifference("m.py", "a\nb\nc\nd\ne\n", "a\nb\nX\nd\ne\n")).toBe(
      "--- a/m.py (gold)\n+++ b/m.py (variant)\n@@ -1 +1 @@\n a\n b\n-c\n+X\n d\n e\n",
    );
  });
});

/** This machine's python3, and pyenv's 2.7, 3.6 and 3.13 when present: the eras the mutator must run in. */
function interpreters(): string[] {
  const found = ["python3"];
  const pyenv = path.join(os.homedir(), ".pyenv", "versions");
  if (!existsSync(pyenv)) return found;
  for (const prefix of ["2.7", "3.6", "3.13"]) {
    const version = readdirSync(pyenv).find((name) => name.startsWith(prefix));
    if (version !== undefined) found.push(path.join(pyenv, version, "bin", "python"));
  }
  return found;
}

describe("the mutator, with each era's interpreter", () => {
  const source = [
    '"""Module."""',
    "",
    "",
    "def clamp(x, low, high, items):",
    '    """Clamps."""',
    "    if x < low and x is not None:",
    "        return low",
    "    elif x in items:",
    '        note = "seen"',
    "    total = x + 1",
    "    return total * 2",
    "",
  ].join("\n");
  const request = JSON.stringify({
    files: [{ path: "m.py", source, changed: [6, 7, 8, 9, 10, 11] }],
    variants: [
      { id: "docs", path: "m.py", source: source.replace('"""Clamps."""', '"""Clamps x."""') },
      { id: "broken", path: "m.py", source: source.replace("x + 1", "x +") },
      { id: "real", path: "m.py", source: source.replace("x + 1", "x + 2") },
    ],
  });

  for (const python of interpreters()) {
    it(`makes every kind of mutant and tells equivalent variants with ${python}`, () => {
      const output = path.join(tempDir(), "out.json");
      execFileSync(python, ["-E", "-s", "-S", "-c", MUTATOR_SCRIPT, output], { input: request });
      const answer = JSON.parse(execFileSync("cat", [output], { encoding: "utf8" })) as {
        mutants: { description: string; operator: string; equivalent: boolean }[];
        variants: { id: string; compiles: boolean; equivalent: boolean }[];
      };
      expect(answer.mutants.map((mutant) => mutant.description)).toEqual([
        "line 6: < becomes >=",
        "line 6: is not becomes is",
        "line 6: the if condition is negated",
        "line 7: returns None instead",
        "line 8: in becomes not in",
        "line 8: the elif condition is negated",
        'line 9: a string becomes ""',
        "line 9: the statement is dropped",
        "line 10: 1 becomes 2",
        "line 10: the statement is dropped",
        "line 11: 2 becomes 3",
        "line 11: returns None instead",
      ]);
      expect(answer.mutants.every((mutant) => !mutant.equivalent)).toBe(true);
      expect(answer.variants).toEqual([
        { id: "docs", compiles: true, equivalent: true },
        { id: "broken", compiles: false, equivalent: false },
        { id: "real", compiles: true, equivalent: false },
      ]);
    });
  }
});
