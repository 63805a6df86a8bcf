/**
 * The files a unified diff touches, and which of them upstream SWE-bench hands to the test
 * command. Ported from `get_test_directives` in SWE-bench/SWE-bench
 * `swebench/harness/test_spec/python.py` and `NON_TEST_EXTS` in
 * `swebench/harness/constants/__init__.py` (6cd91d8; unchanged at 7a21e05).
 */
import type { TestDirectiveRule } from "./types.js";

/** One file named by a `diff --git` header. */
export interface PatchFile {
  /** The `b/` path, relative to the repository root. */
  readonly path: string;
  /** The patch creates it (`new file mode` or `--- /dev/null`). */
  readonly isNew: boolean;
  /** The patch deletes it (`deleted file mode` or `+++ /dev/null`). */
  readonly isDeleted: boolean;
  /** The path it had before, when the patch renames it (`rename from`); absent otherwise. */
  readonly renamedFrom?: string;
}

/**
 * Upstream's `diff --git a/.* b/(.*)` as `re.findall` runs it: unanchored, so a header quoted
 * inside a hunk counts too, and greedy, so the LAST " b/" on the line starts the path. `[^\n]`
 * stands for Python's `.`, which unlike JavaScript's also matches "\r". Git quotes unusual
 * paths (`"a/caf\303\251.py"`); those headers do not match, upstream and here alike.
 */
const DIFF_HEADER = /diff --git a\/[^\n]* b\/([^\n]*)/g;

/** Endings upstream drops from the run list. "csv" has no dot upstream, so "notcsv" goes too. */
const NON_TEST_ENDINGS = [
  ".json",
  ".png",
  "csv",
  ".txt",
  ".md",
  ".jpg",
  ".jpeg",
  ".pkl",
  ".yml",
  ".yaml",
  ".toml",
] as const;

/**
 * Lists the files a patch touches, in order, by their `b/` paths (a rename gives its new name).
 *
 * New and deleted files are recognised from the extended header lines between a `diff --git`
 * line and its first hunk or binary marker, so hunk content never counts.
 */
export function listPatchFiles(patch: string): PatchFile[] {
  const headers = [...patch.matchAll(DIFF_HEADER)];
  return headers.map((header, i) => {
    const sectionEnd = headers[i + 1]?.index ?? patch.length;
    const section = patch.slice(header.index + header[0].length, sectionEnd);
    let isNew = false;
    let isDeleted = false;
    let renamedFrom: string | undefined;
    // The first piece is the rest of the diff line itself, which the regex already consumed.
    for (const line of section.split("\n").slice(1)) {
      if (
        line.startsWith("@@") ||
        line.startsWith("GIT binary patch") ||
        line.startsWith("Binary files")
      ) {
        break;
      }
      if (line.startsWith("new file mode") || line.trimEnd() === "--- /dev/null") isNew = true;
      if (line.startsWith("deleted file mode") || line.trimEnd() === "+++ /dev/null") {
        isDeleted = true;
      }
      // A copy makes a file the base does not have.
      if (line.startsWith("copy from ")) isNew = true;
      if (line.startsWith("rename from ")) renamedFrom = line.slice("rename from ".length);
    }
    const path = header[1] ?? "";
    return renamedFrom === undefined
      ? { path, isNew, isDeleted }
      : { path, isNew, isDeleted, renamedFrom };
  });
}

/**
 * Returns upstream's test directives: every `b/` path of the test patch, in order, minus those
 * ending in a non-test extension. Nothing else is filtered, so a `conf.py` or `.rst` a test
 * patch touches is passed to pytest too, as upstream does. With the "django" rule each remaining
 * path becomes a test label (toDjangoTestLabel); a patch that touches only non-test files gives
 * no directive at all, and Django's runner then runs its whole suite, as upstream's did.
 */
export function selectTestDirectives(patch: string, rule: TestDirectiveRule = "files"): string[] {
  const paths = listPatchFiles(patch)
    .map((file) => file.path)
    .filter((path) => !NON_TEST_ENDINGS.some((ending) => path.endsWith(ending)));
  return rule === "django" ? paths.map(toDjangoTestLabel) : paths;
}

/**
 * Upstream's Django rewrite of one path into a `runtests.py` label, in its order: drop a final
 * ".py", then a leading "tests/", then turn every "/" into "." (`tests/admin_views/test_forms.py`
 * -> `admin_views.test_forms`). Other paths pass through the same steps, so a template the patch
 * touches becomes `templates.admin.x.html`, and a path outside tests/ keeps its first folder.
 */
export function toDjangoTestLabel(path: string): string {
  let label = path.endsWith(".py") ? path.slice(0, -".py".length) : path;
  if (label.startsWith("tests/")) label = label.slice("tests/".length);
  return label.replaceAll("/", ".");
}
