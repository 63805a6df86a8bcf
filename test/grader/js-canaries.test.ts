/**
 * Canaries in JavaScript and TypeScript test files (src/grader/js/canaries.ts), on the starter-js
 * suite's hidden test files as its tasks leave them, and on small files for each form: what the
 * scan reads, that every file stays valid, where the copies go, and their ids.
 */
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/grader/canary-source.js";
import {
  findJsModelTests,
  insertJsCanaries,
  isJsCanaryId,
  isUpstreamCanaryId,
  maskJs,
  matchesTemplate,
  upstreamReadsTitle,
} from "../../src/grader/js/canaries.js";
import { parseJest, parseKarma, parseTap, parseVitest } from "../../src/grader/parse-log-js.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

const requests = [
  { mustFail: false, carriesSentinel: false },
  { mustFail: true, carriesSentinel: false },
  { mustFail: true, carriesSentinel: false },
];

/** Syntax errors of a JavaScript or TypeScript file, as TypeScript's parser reports them. */
function syntaxErrors(file: string, text: string): string[] {
  const out = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { allowJs: true, module: ts.ModuleKind.ESNext },
  });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** Test titles of a file in order, with the line each is on. */
function titles(text: string): string[] {
  return [...text.matchAll(/^\s*(?:it|test)\(\s*("[^"]*"|'[^']*'|`[^`]*`)/gm)].map((match) =>
    (match[1] as string).replace(/^["']|["']$/g, ""),
  );
}

/** The starter-js hidden test files, each as a task leaves it, with the titles that must start passing. */
function starterFiles(): { task: string; file: string; text: string; prefer: string[] }[] {
  const suite = path.join(repoRoot, "evals", "starter-js");
  return readdirSync(path.join(suite, "tasks")).flatMap((task) => {
    const repo = task.split("-")[0] as string;
    const copy = path.join(tempDir(), repo);
    cpSync(path.join(suite, "repos", repo), copy, { recursive: true });
    const patch = path.join(suite, "oracle", task, "test.patch");
    execFileSync("patch", ["-p1", "-s", "-i", patch], { cwd: copy });
    const { FAIL_TO_PASS } = JSON.parse(
      readFileSync(path.join(suite, "oracle", task, "tests.json"), "utf8"),
    ) as { FAIL_TO_PASS: string[] };
    const files = [...readFileSync(patch, "utf8").matchAll(/^\+\+\+ b\/(\S+)/gm)].map(
      (match) => match[1] as string,
    );
    return files.map((file) => ({
      task,
      file,
      text: readFileSync(path.join(copy, file), "utf8"),
      prefer: FAIL_TO_PASS.filter((id) => id.startsWith(`${file} > `)).map(
        (id) => id.split(" > ").at(-1) as string,
      ),
    }));
  });
}

describe("JavaScript canaries", () => {
  it("mask strings, templates, comments and regular expressions, keeping code and template parts", () => {
    const source = [
      'const a = "(["; // ) {',
      "const b = `x ${f({ y: 1 })} ]`;",
      "const c = /[)}\\/]+/g.test(s) / 2;",
      "/* { */ call(a);",
    ].join("\n");
    const masked = maskJs(source);
    expect(masked.split("\n")).toHaveLength(4);
    expect(masked.length).toBe(source.length);
    // Every bracket left is code's, and they balance.
    const brackets = masked.replace(/[^()[\]{}]/g, "");
    expect(brackets).toBe("{({})}()()");
    expect(masked).toContain("f({ y: 1 })");
    expect(masked).toContain(" / 2;");
  });

  it("find the plain test calls: block and expression bodies, string and template titles, in describes and loops", () => {
    const source = [
      'import { describe, expect, it } from "vitest";',
      'import { add } from "../src/add";',
      "",
      'describe("add", () => {',
      '  it("adds", () => {',
      "    const sum = add(1, 2);",
      "    expect(sum).toBe(3);",
      "  });",
      '  it("keeps zero", () => expect(add(0, 0)).toBe(0));',
      "  for (const n of [1, 2]) {",
      "    it(`adds ${n} to zero`, async () => {",
      "      expect(add(0, n)).toBe(n);",
      "    });",
      "  }",
      '  it.each([1])("skipped form %s", (n) => expect(n).toBe(1));',
      '  it("takes a done callback", (done) => { done(); });',
      "});",
      "",
    ].join("\n");
    const tests = findJsModelTests(source);
    expect(tests.map((test) => test.title)).toEqual(["adds", "keeps zero", "`adds ${n} to zero`"]);
    expect(tests[0]?.statements).toEqual([
      [5, 6],
      [6, 7],
    ]);
    expect(tests[1]?.expression).not.toBeNull();
    // The loop's test stands in the loop's block, not the describe's.
    expect(tests[2]?.container).not.toBe(tests[0]?.container);
  });

  it("keep every starter-js hidden test file valid, with must-fail copies of the hidden tests in place of an assertion", () => {
    const files = starterFiles();
    expect(files.length).toBeGreaterThanOrEqual(9);
    let copiesOfHidden = 0;
    for (const { task, file, text, prefer } of files) {
      const before = titles(text);
      for (let seed = 1; seed <= 12; seed++) {
        const where = `${task} ${file} seed ${String(seed)}`;
        const { text: out, canaries } = insertJsCanaries(
          text,
          requests,
          seededRandom(seed),
          prefer,
        );
        expect(canaries.length, where).toBeGreaterThanOrEqual(3);
        expect(syntaxErrors(file, out), `${where}\n${out}`).toEqual([]);
        const after = titles(out);
        expect(after.length, where).toBe(before.length + canaries.length);
        for (const canary of canaries) {
          expect(after, where).toContain(canary.name.replace(/^`|`$/g, "`"));
          expect(before, where).not.toContain(canary.name);
          if (canary.mustFail && prefer.some((title) => title === canary.model)) copiesOfHidden++;
        }
        // No canary's title can take another test's ids (a template's pattern the other's text).
        const raw = (title: string): string => title.replace(/^`|`$/g, "");
        const all = [...titles(text), ...canaries.map((canary) => canary.name)];
        for (const canary of canaries)
          for (const other of all.filter((title) => title !== canary.name))
            expect(
              matchesTemplate(canary.name, raw(other)) || matchesTemplate(other, raw(canary.name)),
              `${where}: ${canary.name} ~ ${other}`,
            ).toBe(false);
        // The original lines are all there, in order.
        const kept = out.split("\n").filter((line) => text.split("\n").includes(line));
        expect(kept.length, where).toBeGreaterThanOrEqual(text.split("\n").length - 1);
        // The file's last test is a must-fail copy.
        const last = after.at(-1) as string;
        const lastCanary = canaries.find(
          (canary) => canary.name === last || canary.name === `\`${last.slice(1, -1)}\``,
        );
        expect(lastCanary?.mustFail, `${where}: last ${last}\n${out}`).toBe(true);
      }
    }
    expect(copiesOfHidden).toBeGreaterThan(50);
  });

  it("copy a test made in a loop with its template title, inside the loop", () => {
    const source = [
      'import assert from "node:assert/strict";',
      'import { describe, it } from "node:test";',
      'import { satisfies } from "../src/index.js";',
      "",
      'describe("ranges", () => {',
      '  for (const [version, range] of [["1.0.0", "^1"]]) {',
      "    it(`${version} satisfies ${range}`, () => {",
      "      assert.equal(satisfies(version, range), true);",
      "    });",
      "  }",
      "});",
      "",
    ].join("\n");
    for (let seed = 1; seed <= 10; seed++) {
      const { text, canaries } = insertJsCanaries(source, requests, seededRandom(seed), [
        "1.0.0 satisfies ^1",
      ]);
      expect(canaries.length).toBeGreaterThanOrEqual(3);
      for (const canary of canaries) {
        expect(canary.name).toMatch(/^`\$\{version\} .*\$\{range\}.*`$/);
        // Inside the loop: between its `for` line and its closing brace.
        const at = text.indexOf(canary.name);
        expect(at).toBeGreaterThan(text.indexOf("for (const"));
        expect(at).toBeLessThan(text.lastIndexOf("  }"));
      }
      expect(syntaxErrors("t.test.js", text)).toEqual([]);
      const name = canaries[0]!.name;
      const expanded = name.slice(1, -1).replace("${version}", "1.0.0").replace("${range}", "^1");
      expect(isJsCanaryId(`test/r.test.js > ranges > ${expanded}`, "test/r.test.js", name)).toBe(
        true,
      );
      expect(
        isJsCanaryId("test/r.test.js > ranges > 1.0.0 satisfies ^1", "test/r.test.js", name),
      ).toBe(false);
    }
  });

  it("write the assertion the file's way: jest's expect, chai's, or node's assert by its own name", () => {
    const forms: [string, string[], RegExp][] = [
      [
        "expect",
        [
          'const { parse } = require("../lib");',
          'test("parses", () => {',
          "  expect(parse(1)).toBe(1);",
          "});",
        ],
        /expect\(.*\)\.(toEqual|toHaveLength|toStrictEqual|toBeUndefined|toBeFalsy)\(/,
      ],
      [
        "chai",
        [
          'const { expect } = require("chai");',
          'const { parse } = require("../lib");',
          'it("parses", function () {',
          "  expect(parse(1)).to.equal(1);",
          "});",
        ],
        /expect\(.*\)\.to\.(be|have|deep|not)\b/,
      ],
      [
        "assert",
        [
          'import * as ok from "node:assert";',
          'import { parse } from "../lib.js";',
          'it("parses", () => {',
          "  ok.strictEqual(parse(1), 1);",
          "});",
        ],
        /ok\.(deepStrictEqual|strictEqual|deepEqual|ok|equal)\(/,
      ],
    ];
    for (const [form, lines, shape] of forms) {
      for (let seed = 1; seed <= 8; seed++) {
        const source = `${lines.join("\n")}\n`;
        const { text, canaries } = insertJsCanaries(source, requests, seededRandom(seed), []);
        expect(canaries.length, form).toBeGreaterThanOrEqual(2);
        const added = text.split("\n").filter((line) => !lines.includes(line));
        expect(added.join("\n"), form).toMatch(shape);
        expect(syntaxErrors("t.test.js", text), `${form}\n${text}`).toEqual([]);
      }
    }
    // A file asserting some other way takes none.
    const other =
      'const { parse } = require("../lib");\nit("parses", () => {\n  check(parse(1));\n});\n';
    expect(insertJsCanaries(other, requests, seededRandom(1), [])).toEqual({
      text: other,
      canaries: [],
    });
  });

  it("tell a canary's ids from others' by file and title", () => {
    expect(isJsCanaryId("test/a.test.ts > add > keeps one", "test/a.test.ts", "keeps one")).toBe(
      true,
    );
    expect(isJsCanaryId("test/a.test.ts > keeps one", "test/a.test.ts", "keeps one")).toBe(true);
    expect(isJsCanaryId("test/b.test.ts > add > keeps one", "test/a.test.ts", "keeps one")).toBe(
      false,
    );
    expect(isJsCanaryId("test/a.test.ts > add > it keeps one", "test/a.test.ts", "keeps one")).toBe(
      false,
    );
    // A title with regular expression characters is compared as text.
    expect(
      isJsCanaryId("test/a.test.ts > lets * match (all)", "test/a.test.ts", "lets * match (all)"),
    ).toBe(true);
  });

  it("tell a canary's ids by upstream's parsers, which name no file, from the lines each parser reads", () => {
    const title = "keeps one";
    // Each parser's own output for a test "keeps one" in a block "add", then one that only ends alike.
    const jest = parseJest("  add\n    ✓ keeps one (3 ms)\n    ✕ never keeps one  (2 ms)\n");
    const vitest = parseVitest(
      " ✓ test/a.spec.ts > add > keeps one 2ms\n ✓ test/a.spec.ts > add > never keeps one\n",
    );
    const karma = parseKarma(
      "Starting browser Chrome\n  add\n    ✔ keeps one\n    ✖ never keeps one\nSUMMARY:\n",
    );
    const tap = parseTap("ok 1 add keeps one\nnot ok 2 add never keeps one\n1..2\n");
    for (const [parser, statuses] of [
      ["jest", jest],
      ["vitest", vitest],
      ["karma", karma],
    ] as const) {
      const ids = [...statuses.keys()].filter((id) => isUpstreamCanaryId(id, title, parser));
      expect(
        ids.map((id) => statuses.get(id)),
        parser,
      ).toEqual(["PASSED"]);
    }
    // TAP joins a test's blocks and title with spaces, so `add never keeps one` may be a test
    // "keeps one" in a block "add never": both ids are the canary's. That is why a canary's title
    // may not be one any id the instance names ends with (canaries.ts, freeUpstreamTitle).
    expect([...tap.keys()].filter((id) => isUpstreamCanaryId(id, title, "tap"))).toEqual([
      "add keeps one",
      "add never keeps one",
    ]);
    expect(isUpstreamCanaryId("add keeps one", "one", "tap")).toBe(true);
    expect(isUpstreamCanaryId("add keeps one", "eps one", "tap")).toBe(false);
    // A canary in a loop, its title a template, takes each of its ids.
    expect(isUpstreamCanaryId("add > keeps 3 of 4", "`keeps ${n} of ${m}`", "vitest")).toBe(true);
    expect(isUpstreamCanaryId("add keeps 3 of 4", "`keeps ${n} of ${m}`", "tap")).toBe(true);
    expect(isUpstreamCanaryId("add > keeps 3", "`keeps ${n} of ${m}`", "karma")).toBe(false);
  });

  it("refuse titles upstream's parsers would not read back whole", () => {
    expect(upstreamReadsTitle("keeps one", "tap")).toBe(true);
    // TAP: what follows `#` is a directive.
    expect(upstreamReadsTitle("keeps #1", "tap")).toBe(false);
    expect(upstreamReadsTitle("keeps #1", "jest")).toBe(true);
    // vitest's optional duration takes a trailing number: `adds 1 and 2` reads as `adds 1 and`.
    expect(parseVitest(" ✓ f > adds 1 and 2\n").has("f > adds 1 and")).toBe(true);
    expect(upstreamReadsTitle("adds 1 and 2", "vitest")).toBe(false);
    expect(upstreamReadsTitle("adds 1 and two", "vitest")).toBe(true);
    expect(upstreamReadsTitle("waits (5 ms)", "jest")).toBe(false);
    expect(upstreamReadsTitle(" keeps one", "karma")).toBe(false);
  });
});
