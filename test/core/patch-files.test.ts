import { describe, expect, it } from "vitest";
import { listPatchFiles, selectTestDirectives } from "../../src/core/patch-files.js";

/** Joins lines into a patch ending in a newline, as git writes it. */
function patchOf(...lines: string[]): string {
  return lines.join("\n") + "\n";
}

/** A file header with one added line, for patches where only the header matters. */
function touch(path: string): string {
  return patchOf(
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    "@@ -1 +1 @@",
    "+x",
  );
}

/** `git diff -M` of a real commit: changed binary, new binary, modified, new, deleted, renamed. */
const MIXED_PATCH = patchOf(
  "diff --git a/docs/logo.png b/docs/logo.png",
  "index f584f40..6bf43ff 100644",
  "Binary files a/docs/logo.png and b/docs/logo.png differ",
  "diff --git a/src/mod.py b/src/mod.py",
  "index b859599..ea74361 100644",
  "--- a/src/mod.py",
  "+++ b/src/mod.py",
  "@@ -1,2 +1,2 @@",
  " def f():",
  "-    return 1",
  "+    return 2",
  "diff --git a/tests/blob.bin b/tests/blob.bin",
  "new file mode 100644",
  "index 0000000..88768ef",
  "Binary files /dev/null and b/tests/blob.bin differ",
  "diff --git a/tests/data.csv b/tests/data.csv",
  "index cfa20f8..ca06876 100644",
  "--- a/tests/data.csv",
  "+++ b/tests/data.csv",
  "@@ -1,2 +1,2 @@",
  " a,b",
  "-1,2",
  "+1,3",
  "diff --git a/tests/fixture.json b/tests/fixture.json",
  "new file mode 100644",
  "index 0000000..9e26dfe",
  "--- /dev/null",
  "+++ b/tests/fixture.json",
  "@@ -0,0 +1 @@",
  "+{}",
  "\\ No newline at end of file",
  "diff --git a/tests/notes.txt b/tests/notes.txt",
  "new file mode 100644",
  "index 0000000..587be6b",
  "--- /dev/null",
  "+++ b/tests/notes.txt",
  "@@ -0,0 +1 @@",
  "+x",
  "diff --git a/tests/test_gone.py b/tests/test_gone.py",
  "deleted file mode 100644",
  "index b917a72..0000000",
  "--- a/tests/test_gone.py",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-print(1)",
  "diff --git a/tests/test_new.py b/tests/test_new.py",
  "new file mode 100644",
  "index 0000000..23ec52e",
  "--- /dev/null",
  "+++ b/tests/test_new.py",
  "@@ -0,0 +1,2 @@",
  "+def test_new():",
  "+    assert True",
  "diff --git a/tests/test_moved.py b/tests/test_renamed.py",
  "similarity index 100%",
  "rename from tests/test_moved.py",
  "rename to tests/test_renamed.py",
);

/** `git diff --binary` of a real commit: an empty new file, a deleted and a new binary file. */
const BINARY_PATCH = patchOf(
  "diff --git a/tests/__init__.py b/tests/__init__.py",
  "new file mode 100644",
  "index 0000000..e69de29",
  "diff --git a/tests/blob.bin b/tests/blob.bin",
  "deleted file mode 100644",
  "index 88768efdf77ec78c9a995f94881793be6a41752b..0000000000000000000000000000000000000000",
  "GIT binary patch",
  "literal 0",
  "HcmV?d00001",
  "",
  "literal 5",
  "McmZQzOv=my00M6TI{*Lx",
  "",
  "diff --git a/tests/data.bin b/tests/data.bin",
  "new file mode 100644",
  "index 0000000000000000000000000000000000000000..9ad743bea78acf48c86ec75441184113eee3cabe",
  "GIT binary patch",
  "literal 4",
  "LcmZSJtf~S40gV9u",
  "",
  "literal 0",
  "HcmV?d00001",
  "",
);

describe("listPatchFiles", () => {
  it("lists every file of a real git diff in order, with new and deleted flags", () => {
    expect(listPatchFiles(MIXED_PATCH)).toStrictEqual([
      { path: "docs/logo.png", isNew: false, isDeleted: false },
      { path: "src/mod.py", isNew: false, isDeleted: false },
      { path: "tests/blob.bin", isNew: true, isDeleted: false },
      { path: "tests/data.csv", isNew: false, isDeleted: false },
      { path: "tests/fixture.json", isNew: true, isDeleted: false },
      { path: "tests/notes.txt", isNew: true, isDeleted: false },
      { path: "tests/test_gone.py", isNew: false, isDeleted: true },
      { path: "tests/test_new.py", isNew: true, isDeleted: false },
      { path: "tests/test_renamed.py", isNew: false, isDeleted: false },
    ]);
  });

  it("reads new, deleted and empty files from a real --binary diff", () => {
    expect(listPatchFiles(BINARY_PATCH)).toStrictEqual([
      { path: "tests/__init__.py", isNew: true, isDeleted: false },
      { path: "tests/blob.bin", isNew: false, isDeleted: true },
      { path: "tests/data.bin", isNew: true, isDeleted: false },
    ]);
  });

  it("recognises a new file from --- /dev/null alone", () => {
    const patch = patchOf(
      "diff --git a/tests/test_x.py b/tests/test_x.py",
      "--- /dev/null",
      "+++ b/tests/test_x.py",
      "@@ -0,0 +1 @@",
      "+x",
    );
    expect(listPatchFiles(patch)).toStrictEqual([
      { path: "tests/test_x.py", isNew: true, isDeleted: false },
    ]);
  });

  it("ignores header-like lines inside a hunk when flagging files", () => {
    const patch = patchOf(
      "diff --git a/notes.py b/notes.py",
      "--- a/notes.py",
      "+++ b/notes.py",
      "@@ -1,2 +1,2 @@",
      "-new file mode 100644",
      "--- /dev/null",
      "+deleted file mode 100644",
    );
    expect(listPatchFiles(patch)).toStrictEqual([
      { path: "notes.py", isNew: false, isDeleted: false },
    ]);
  });

  it("returns nothing for an empty patch", () => {
    expect(listPatchFiles("")).toStrictEqual([]);
  });

  it("counts a diff header quoted inside a hunk, as upstream's unanchored regex does", () => {
    const patch = patchOf(
      "diff --git a/docs/howto.rst b/docs/howto.rst",
      "--- a/docs/howto.rst",
      "+++ b/docs/howto.rst",
      "@@ -1 +1,2 @@",
      " example",
      "+    diff --git a/fake.py b/fake.py",
    );
    expect(listPatchFiles(patch).map((file) => file.path)).toStrictEqual([
      "docs/howto.rst",
      "fake.py",
    ]);
  });

  it("starts the path after the last ' b/' on a header line, as upstream's greedy regex does", () => {
    expect(listPatchFiles(touch("dir b/test_x.py"))[0]?.path).toBe("test_x.py");
  });

  it("skips headers git quoted for unusual characters, as upstream does", () => {
    const patch = patchOf(
      'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"',
      "new file mode 100644",
    );
    expect(listPatchFiles(patch)).toStrictEqual([]);
  });

  it("keeps a carriage return at the end of a header in the path, as Python's '.' does", () => {
    expect(listPatchFiles("diff --git a/t.py b/t.py\r\n")[0]?.path).toBe("t.py\r");
  });
});

describe("selectTestDirectives", () => {
  it("keeps every path of a real git diff except non-test files, deleted files included", () => {
    expect(selectTestDirectives(MIXED_PATCH)).toStrictEqual([
      "src/mod.py",
      "tests/blob.bin",
      "tests/test_gone.py",
      "tests/test_new.py",
      "tests/test_renamed.py",
    ]);
  });

  it.each([
    "tests/data.json",
    "docs/logo.png",
    "tests/data.csv",
    "tests/notcsv",
    "tests/notes.txt",
    "README.md",
    "tests/img.jpg",
    "tests/img.jpeg",
    "tests/model.pkl",
    "ci.yml",
    "ci.yaml",
    "pyproject.toml",
  ])("drops %s", (path) => {
    expect(selectTestDirectives(touch(path))).toStrictEqual([]);
  });

  it.each([
    "tests/test_x.py",
    "tests/roots/test-ext-autodoc/conf.py",
    "tests/roots/test-ext-autodoc/index.rst",
    "tests/data.CSV",
    "tests/config.json.in",
    "tox.ini",
  ])("keeps %s", (path) => {
    expect(selectTestDirectives(touch(path))).toStrictEqual([path]);
  });

  it("keeps upstream's order and duplicates", () => {
    const patch = touch("tests/test_b.py") + touch("tests/test_a.py") + touch("tests/test_b.py");
    expect(selectTestDirectives(patch)).toStrictEqual([
      "tests/test_b.py",
      "tests/test_a.py",
      "tests/test_b.py",
    ]);
  });
});
