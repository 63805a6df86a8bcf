/**
 * The reset of the hidden test files before the test patch (src/grader/test-run.ts), on a real
 * git checkout: files the change touched go back to the base commit, new ones go, and a test
 * patch that renames a test file (astropy-7336's) applies over a change that edited both names.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listPatchFiles } from "../../src/core/index.js";
import { placesUnder } from "../../src/grader/plan.js";
import { applyTestPatch, resetTestFiles } from "../../src/grader/test-run.js";
import { git } from "../helpers/git.js";
import { tempDir } from "../helpers/temp.js";

describe("the reset before the test patch", () => {
  it("checks a renamed test file out under its old name and removes its new one, so the rename applies", async () => {
    const root = tempDir();
    const repo = path.join(root, "repo");
    mkdirSync(path.join(repo, "tests"), { recursive: true });
    const write = (file: string, text: string) => {
      writeFileSync(path.join(repo, file), text);
    };
    const body = Array.from(
      { length: 12 },
      (_, i) => `def test_${String(i)}():\n    assert ${String(i)} == ${String(i)}\n`,
    ).join("\n");
    git(repo, "init", "-q", "-b", "main");
    write("tests/py3_test_annotations.py", body);
    write("tests/test_decorator.py", "def test_d():\n    assert True\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "base");
    const base = git(repo, "rev-parse", "HEAD");
    // The hidden test patch: the rename (with an edit) and a change to a modified file.
    git(repo, "mv", "tests/py3_test_annotations.py", "tests/test_annotations.py");
    write("tests/test_annotations.py", `${body}\ndef test_new():\n    assert 1\n`);
    write("tests/test_decorator.py", "def test_d():\n    assert 2 > 1\n");
    git(repo, "add", "-A");
    const testPatch = `${git(repo, "diff", "--cached", "-M", base)}\n`;
    git(repo, "reset", "-q", "--hard", base);
    expect(listPatchFiles(testPatch)).toEqual([
      {
        path: "tests/test_annotations.py",
        isNew: false,
        isDeleted: false,
        renamedFrom: "tests/py3_test_annotations.py",
      },
      { path: "tests/test_decorator.py", isNew: false, isDeleted: false },
    ]);
    // The change under grade edited the old file and made one under the new name.
    write("tests/py3_test_annotations.py", "# the tool's edit\n");
    write("tests/test_annotations.py", "# the tool's own file\n");
    write("tests/test_decorator.py", "# the tool's edit\n");

    const scratchDir = path.join(root, "scratch");
    mkdirSync(scratchDir);
    const plan = {
      resetFiles: listPatchFiles(testPatch),
      places: { ...placesUnder(scratchDir, path.join(root, "grader.log")), repo },
      task: { info: { baseCommit: base } },
      testPatch,
    };
    const open = {
      gitEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_GLOBAL: "/dev/null" },
    };
    await resetTestFiles(plan, open);
    expect(readFileSync(path.join(repo, "tests/py3_test_annotations.py"), "utf8")).toBe(body);
    expect(existsSync(path.join(repo, "tests/test_annotations.py"))).toBe(false);
    expect(await applyTestPatch(plan, open, undefined)).toBe(true);
    expect(existsSync(path.join(repo, "tests/py3_test_annotations.py"))).toBe(false);
    expect(readFileSync(path.join(repo, "tests/test_annotations.py"), "utf8")).toContain(
      "def test_new",
    );
    expect(readFileSync(path.join(repo, "tests/test_decorator.py"), "utf8")).toContain("2 > 1");
  });
});
