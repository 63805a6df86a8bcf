import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  installAffectedBy,
  listChangedPaths,
  type ChangedPath,
} from "../../src/grader/install-scope.js";
import { tempDir } from "../helpers/temp.js";

const dirs = new Set(["src", "src/pkg", "src/pkg/sub", "tests", "docs"]);
const modified = (file: string): ChangedPath => ({ path: file, kind: "modified" });
const added = (file: string): ChangedPath => ({ path: file, kind: "added" });

describe("installAffectedBy", () => {
  it("lets edits and new modules inside the base commit's packages through", () => {
    expect(installAffectedBy([], dirs)).toBeNull();
    expect(
      installAffectedBy(
        [
          modified("src/pkg/core.py"),
          modified("src/pkg/sub/__init__.py"),
          modified("src/pkg/templates/page.html"),
          added("src/pkg/sub/helpers.py"),
          added("tests/test_new.py"),
          modified("docs/index.rst"),
        ],
        dirs,
      ),
    ).toBeNull();
  });

  it.each([
    [modified("setup.py"), "the change changes setup.py at the repository's root"],
    [added("reproduce.py"), "the change adds reproduce.py at the repository's root"],
    [modified("src/pkg/setup.cfg"), "the change changes src/pkg/setup.cfg, a packaging file"],
    [modified("src/pkg/_version.py"), "the change changes src/pkg/_version.py, a packaging file"],
    [
      modified("pylint/__pkginfo__.py"),
      "the change changes pylint/__pkginfo__.py, a packaging file",
    ],
    [
      modified("src/pkg/__init__.py"),
      "the change changes src/pkg/__init__.py, a top-level package's __init__.py",
    ],
    [
      modified("sphinx/__init__.py"),
      "the change changes sphinx/__init__.py, a top-level package's __init__.py",
    ],
    [
      modified("src/pkg/_speedups.c"),
      "the change changes src/pkg/_speedups.c, a source the install compiles",
    ],
    [added("src/pkg/fast.pyx"), "the change adds src/pkg/fast.pyx, a source the install compiles"],
    [
      added("src/pkg.egg-info/SOURCES.txt"),
      "the change adds src/pkg.egg-info/SOURCES.txt, installed metadata",
    ],
    [added("src/pkg/newsub/__init__.py"), "the change adds a package (src/pkg/newsub/__init__.py)"],
    [
      added("scripts/tool.py"),
      "the change adds scripts/tool.py in a folder the base commit does not have",
    ],
    [
      { path: "src/pkg/core.py", kind: "other" } as const,
      "the change deletes src/pkg/core.py or changes its type or mode",
    ],
  ])("makes the grade install %o itself", (change, reason) => {
    expect(installAffectedBy([modified("src/pkg/core.py"), change], dirs)).toBe(reason);
  });
});

describe("listChangedPaths", () => {
  it("reads edits, new files, deletions, links and mode changes from the checkout", async () => {
    const repo = tempDir();
    const git = (...args: string[]): string =>
      execFileSync("git", args, {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      });
    mkdirSync(path.join(repo, "src", "pkg"), { recursive: true });
    for (const file of ["edit.py", "gone.py", "mode.py", "same.py"])
      writeFileSync(path.join(repo, "src", "pkg", file), `# ${file}\n`);
    writeFileSync(path.join(repo, ".gitignore"), "*.log\n");
    git("init", "-q");
    git("add", "-A");
    git("-c", "user.name=lab", "-c", "user.email=lab@localhost", "commit", "-qm", "base");
    const base = git("rev-parse", "HEAD").trim();

    writeFileSync(path.join(repo, "src", "pkg", "edit.py"), "# edited\n");
    rmSync(path.join(repo, "src", "pkg", "gone.py"));
    chmodSync(path.join(repo, "src", "pkg", "mode.py"), 0o755);
    writeFileSync(path.join(repo, "src", "pkg", "new.py"), "# new\n");
    writeFileSync(path.join(repo, "src", "pkg", "ignored.log"), "ignored, still new\n");
    symlinkSync("/etc/passwd", path.join(repo, "src", "pkg", "link.py"));

    const { changes, baseDirs } = await listChangedPaths(repo, base, {});
    expect([...changes].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "src/pkg/edit.py", kind: "modified" },
      { path: "src/pkg/gone.py", kind: "other" },
      { path: "src/pkg/ignored.log", kind: "added" },
      { path: "src/pkg/link.py", kind: "other" },
      { path: "src/pkg/mode.py", kind: "other" },
      { path: "src/pkg/new.py", kind: "added" },
    ]);
    expect([...baseDirs].sort()).toEqual(["src", "src/pkg"]);
  });
});
