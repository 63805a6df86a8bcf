/**
 * The oracle audit's JavaScript mutator (src/audit/js-mutator.ts): which token edits it makes,
 * that it never touches strings, comments or regular expressions, and which hunk variants are
 * equivalent to the gold.
 */
import { describe, expect, it } from "vitest";
import { lineEdits, mutateJs } from "../../src/audit/js-mutator.js";
import { isAuditedFile } from "../../src/audit/gold-hunks.js";
import { maskJs } from "../../src/grader/js/canaries.js";

const edits = (line: string): string[] =>
  lineEdits(maskJs(line)).map(
    (edit) => `${edit.operator}: ${line.slice(0, edit.start)}${edit.text}${line.slice(edit.end)}`,
  );

describe("the JS mutator", () => {
  it("swaps comparisons, logic, arithmetic and booleans, drops a `!` and bumps an integer", () => {
    expect(edits("  if (x < low && !done) return total + 1;")).toEqual([
      "compare:   if (x >= low && !done) return total + 1;",
      "logic:   if (x < low || !done) return total + 1;",
      "negate:   if (x < low && done) return total + 1;",
      "arith:   if (x < low && !done) return total - 1;",
      "const:   if (x < low && !done) return total + 2;",
    ]);
    expect(edits("const ok = a !== b ? true : false;")).toEqual([
      "compare: const ok = a === b ? true : false;",
      "bool: const ok = a !== b ? false : false;",
      "bool: const ok = a !== b ? true : true;",
    ]);
  });

  it("leaves strings, template text, comments, regular expressions, generics, arrows and names alone", () => {
    expect(edits('const s = "a < b && true" + `x > ${y} 1`; // 2 < 3')).toEqual([
      'arith: const s = "a < b && true" - `x > ${y} 1`; // 2 < 3',
    ]);
    expect(edits("const m: Map<string, number> = new Map(); const re = /a < b/;")).toEqual([]);
    expect(edits("items.map((item) => item.v2 >= 0x10);")).toEqual([
      "compare: items.map((item) => item.v2 < 0x10);",
    ]);
    expect(edits("i++; x += 1; y = -1; z = a >> 2;")).toEqual([
      "const: i++; x += 2; y = -1; z = a >> 2;",
      "const: i++; x += 1; y = -2; z = a >> 2;",
      "const: i++; x += 1; y = -1; z = a >> 3;",
    ]);
  });

  it("mutates only the changed lines, and calls a hunk left out equivalent when only comments and blanks differ", () => {
    const source = [
      "export function clamp(x, low, high) {",
      "  if (x < low) return low; // below",
      "  if (x > high) return high;",
      "  return x;",
      "}",
      "",
    ].join("\n");
    const out = mutateJs({
      files: [{ path: "src/clamp.js", source, changed: [3] }],
      variants: [
        { id: "hunk-1", path: "src/clamp.js", source: source.replace("// below", "// under") },
        {
          id: "hunk-2",
          path: "src/clamp.js",
          source: source.replace("  if (x > high) return high;\n", ""),
        },
      ],
    });
    expect(out.mutants.map((mutant) => [mutant.line, mutant.operator, mutant.description])).toEqual(
      [[3, "compare", "line 3: `>` -> `<=`"]],
    );
    expect(out.mutants[0]?.source).toBe(source.replace("x > high", "x <= high"));
    expect(out.variants).toEqual([
      { id: "hunk-1", compiles: true, equivalent: true },
      { id: "hunk-2", compiles: true, equivalent: false },
    ]);
  });

  it("audits JS and TS source, not tests or type declarations", () => {
    expect(isAuditedFile("src/clamp.ts", "js")).toBe(true);
    expect(isAuditedFile("lib/index.mjs", "js")).toBe(true);
    expect(isAuditedFile("src/types.d.ts", "js")).toBe(false);
    expect(isAuditedFile("src/clamp.test.ts", "js")).toBe(false);
    expect(isAuditedFile("packages/core/__tests__/a.ts", "js")).toBe(false);
    expect(isAuditedFile("test/clamp.js", "js")).toBe(false);
    expect(isAuditedFile("src/clamp.py", "js")).toBe(false);
    expect(isAuditedFile("src/clamp.js")).toBe(false);
  });
});
