import { lstat } from "node:fs/promises";
import path from "node:path";
import { git } from "../git/index.js";

/** One path a change touches, as git sees the checkout after the change is applied. */
export interface ChangedPath {
  /** Relative to the repository root, with "/" separators. */
  readonly path: string;
  /** A plain edit or a new regular file; "other" is a deletion, a type or mode change, a link. */
  readonly kind: "modified" | "added" | "other";
}

/** Files an install reads or writes to decide what it installs, wherever they are. */
const PACKAGING_NAMES = new Set([
  "setup.py",
  "setup.cfg",
  "pyproject.toml",
  "MANIFEST.in",
  "_version.py",
  "version.py",
  "__version__.py",
  "__about__.py",
  "__pkginfo__.py",
]);

/** Sources an install compiles (extension modules): an editable install builds them in place. */
const COMPILED_SOURCE = /\.(c|h|cc|cpp|cxx|hpp|hh|pyx|pxd|pxi|f|f90|f95|for|rs|cu|go)$/i;

/** A top-level package's `__init__.py` (`pkg/` or `src/pkg/`): setup.py may import it. */
const TOP_LEVEL_INIT = /^(?:(?:src|lib)\/)?[^/]+\/__init__\.py$/;

/**
 * Why installing the project with `changes` applied could install something other than the
 * install of the base commit; null when it could not. The install of a project in editable mode
 * maps its package folders, so an edit inside them is seen without installing again; what the
 * install itself reads is not: packaging files, anything at the repository's root (where the
 * build's configuration and its module discovery live), a top-level package's `__init__.py`
 * (setup.py imports it for the version), compiled sources, new packages, and files in folders
 * the base commit does not have. Deletions, links and mode changes are refused too.
 */
export function installAffectedBy(
  changes: readonly ChangedPath[],
  baseDirs: ReadonlySet<string>,
): string | null {
  for (const change of changes) {
    const name = path.posix.basename(change.path);
    const dir = path.posix.dirname(change.path);
    const verb = change.kind === "added" ? "adds" : "changes";
    if (change.kind === "other")
      return `the change deletes ${change.path} or changes its type or mode`;
    if (dir === ".") return `the change ${verb} ${change.path} at the repository's root`;
    if (PACKAGING_NAMES.has(name)) return `the change ${verb} ${change.path}, a packaging file`;
    if (change.path.split("/").some((part) => /\.(egg|dist)-info$/.test(part)))
      return `the change ${verb} ${change.path}, installed metadata`;
    if (COMPILED_SOURCE.test(name))
      return `the change ${verb} ${change.path}, a source the install compiles`;
    if (TOP_LEVEL_INIT.test(change.path))
      return `the change ${verb} ${change.path}, a top-level package's __init__.py`;
    if (change.kind === "added" && name === "__init__.py")
      return `the change adds a package (${change.path})`;
    if (change.kind === "added" && !baseDirs.has(dir))
      return `the change adds ${change.path} in a folder the base commit does not have`;
  }
  return null;
}

/**
 * The paths the change in `repo` touches against `baseCommit`, and the base commit's folders.
 * Read with lab's own git (`gitEnv` names the checkout's git directory) before any of the
 * change's code runs.
 */
export async function listChangedPaths(
  repo: string,
  baseCommit: string,
  gitEnv: Readonly<Record<string, string>>,
): Promise<{ changes: ChangedPath[]; baseDirs: Set<string> }> {
  const options = { cwd: repo, env: gitEnv };
  const changes: ChangedPath[] = [];
  // `:<old mode> <new mode> <old sha> <new sha> <status>\0<path>\0` per file.
  const raw = (
    await git(["diff", "--raw", "-z", "--no-renames", "--no-abbrev", baseCommit], options)
  ).split("\0");
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const [oldMode, newMode, , , status] = (raw[i] ?? "").slice(1).split(" ");
    const file = raw[i + 1] ?? "";
    const regular = newMode === "100644" || newMode === "100755";
    const kind =
      status === "M" && regular && oldMode === newMode
        ? "modified"
        : status === "A" && regular
          ? "added"
          : "other";
    changes.push({ path: file, kind });
  }
  // New files the apply left untracked (ignored ones included); a link among them is "other".
  for (const file of await listUntracked(repo, gitEnv)) {
    const stats = await lstat(path.join(repo, file)).catch(() => null);
    changes.push({ path: file, kind: stats?.isFile() === true ? "added" : "other" });
  }
  const baseDirs = new Set(
    (await git(["ls-tree", "-r", "-d", "-z", "--name-only", baseCommit], options))
      .split("\0")
      .filter((dir) => dir !== ""),
  );
  return { changes, baseDirs };
}

/** The files of a checkout that git does not track, ignored ones included. */
export async function listUntracked(
  repo: string,
  gitEnv: Readonly<Record<string, string>>,
): Promise<string[]> {
  return (await git(["ls-files", "--others", "-z"], { cwd: repo, env: gitEnv }))
    .split("\0")
    .filter((file) => file !== "");
}
