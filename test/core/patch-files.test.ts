import { describe, expect, it } from "vitest";
import {
  listPatchFiles,
  selectTestDirectives,
  toDjangoTestLabel,
} from "../../src/core/patch-files.js";

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
      {
        path: "tests/test_renamed.py",
        isNew: false,
        isDeleted: false,
        renamedFrom: "tests/test_moved.py",
      },
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

/** A Django-shaped test patch: a modified test module, a new migrations package, a template, a binary catalog and a URL list. */
const DJANGO_PATCH = patchOf(
  "diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py",
  "--- a/tests/admin_views/tests.py",
  "+++ b/tests/admin_views/tests.py",
  "@@ -10,3 +10,6 @@ class AdminViewBasicTest(TestCase):",
  "     def test_add(self):",
  "-        pass",
  "+        self.assertEqual(response.status_code, 200)",
  "diff --git a/tests/migrations/test_migrations_squashed/0001_initial.py b/tests/migrations/test_migrations_squashed/0001_initial.py",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/tests/migrations/test_migrations_squashed/0001_initial.py",
  "@@ -0,0 +1 @@",
  "+from django.db import migrations",
  "diff --git a/tests/migrations/test_migrations_squashed/__init__.py b/tests/migrations/test_migrations_squashed/__init__.py",
  "new file mode 100644",
  "index 0000000..e69de29",
  "diff --git a/tests/templates/custom_admin/change_form.html b/tests/templates/custom_admin/change_form.html",
  "--- a/tests/templates/custom_admin/change_form.html",
  "+++ b/tests/templates/custom_admin/change_form.html",
  "@@ -1 +1 @@",
  "-{% extends 'admin/change_form.html' %}",
  '+{% extends "admin/change_form.html" %}',
  "diff --git a/tests/i18n/other/locale/de/LC_MESSAGES/django.mo b/tests/i18n/other/locale/de/LC_MESSAGES/django.mo",
  "index 5c4b4ad..c2bd1a8 100644",
  "Binary files a/tests/i18n/other/locale/de/LC_MESSAGES/django.mo and b/tests/i18n/other/locale/de/LC_MESSAGES/django.mo differ",
  "diff --git a/tests/validators/valid_urls.txt b/tests/validators/valid_urls.txt",
  "--- a/tests/validators/valid_urls.txt",
  "+++ b/tests/validators/valid_urls.txt",
  "@@ -1 +1,2 @@",
  " http://www.djangoproject.com/",
  "+http://example.com/?q=%E2%80%8B",
);

/** A SymPy-shaped test patch: one test module and the docs page it documents. */
const SYMPY_PATCH = patchOf(
  "diff --git a/sympy/geometry/tests/test_point.py b/sympy/geometry/tests/test_point.py",
  "--- a/sympy/geometry/tests/test_point.py",
  "+++ b/sympy/geometry/tests/test_point.py",
  "@@ -240,6 +240,9 @@ def test_point3D():",
  "+def test_issue_11617():",
  "+    assert Point(1, 0).distance(Point(0, 1, 1)) == sqrt(3)",
  "diff --git a/doc/src/modules/geometry/points.rst b/doc/src/modules/geometry/points.rst",
  "--- a/doc/src/modules/geometry/points.rst",
  "+++ b/doc/src/modules/geometry/points.rst",
  "@@ -1 +1 @@",
  "-Points",
  "+Points and distances",
);

describe("selectTestDirectives with a rule", () => {
  it("turns a Django test patch into runtests.py labels, dropping only non-test files", () => {
    expect(selectTestDirectives(DJANGO_PATCH, "django")).toStrictEqual([
      "admin_views.tests",
      "migrations.test_migrations_squashed.0001_initial",
      "migrations.test_migrations_squashed.__init__",
      "templates.custom_admin.change_form.html",
      "i18n.other.locale.de.LC_MESSAGES.django.mo",
    ]);
  });

  it("gives no label for a Django patch of data files alone, so the whole suite runs", () => {
    const patch =
      touch("tests/validators/invalid_urls.txt") + touch("tests/validators/valid_urls.txt");
    expect(selectTestDirectives(patch, "django")).toStrictEqual([]);
  });

  it("passes a SymPy test patch's paths as they are, by default and by name", () => {
    const expected = ["sympy/geometry/tests/test_point.py", "doc/src/modules/geometry/points.rst"];
    expect(selectTestDirectives(SYMPY_PATCH)).toStrictEqual(expected);
    expect(selectTestDirectives(SYMPY_PATCH, "files")).toStrictEqual(expected);
  });
});

describe("toDjangoTestLabel", () => {
  it.each([
    ["tests/admin_views/test_forms.py", "admin_views.test_forms"],
    ["tests/runtests.py", "runtests"],
    ["tests/test_sqlite.py", "test_sqlite"],
    ["django/contrib/auth/tests/test_x.py", "django.contrib.auth.tests.test_x"],
    ["tests/foo.pyc", "foo.pyc"],
    ["tests/py/tests.py", "py.tests"],
    ["a/tests/b.py", "a.tests.b"],
    ["tests/tests/x.py", "tests.x"],
  ])("rewrites %s as %s", (path, label) => {
    expect(toDjangoTestLabel(path)).toBe(label);
  });
});
