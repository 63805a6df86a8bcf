import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureBaseRepo } from "../../src/datasets/index.js";
import { findMissingObjects } from "../../src/git/index.js";
import { git } from "../helpers/git.js";
import { tempDir } from "../helpers/temp.js";

/** A repository at owner/name whose second commit's big.dat lost its blob, as a snapshot without large files has. */
function damagedRepo(): { mirrors: string; repo: string; base: string; oid: string } {
  const mirrors = tempDir();
  const repo = path.join(mirrors, "acme", "damaged");
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "a.txt"), "a\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "one");
  writeFileSync(path.join(repo, "big.dat"), "pretend this is four mebibytes\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "two");
  const oid = git(repo, "rev-parse", "HEAD:big.dat");
  rmSync(path.join(repo, ".git", "objects", oid.slice(0, 2), oid.slice(2)));
  return { mirrors, repo, base: git(repo, "rev-parse", "HEAD"), oid };
}

/** damagedRepo's history after big.dat was deleted: the blob is missing from older history only. */
function damagedHistory(): { mirrors: string; repo: string; cut: string; base: string } {
  const { mirrors, repo } = damagedRepo();
  git(repo, "rm", "-q", "big.dat");
  git(repo, "commit", "-qm", "three: big.dat goes");
  const cut = git(repo, "rev-parse", "HEAD");
  git(repo, "tag", "v3");
  writeFileSync(path.join(repo, "b.txt"), "b\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "four");
  return { mirrors, repo, cut, base: git(repo, "rev-parse", "HEAD") };
}

describe("a repository copy that lacks objects", () => {
  it("is found out, naming the files of the commit's tree it lacks", async () => {
    const { repo, base, oid } = damagedRepo();
    expect(await findMissingObjects(repo, base)).toEqual([{ oid, path: "big.dat" }]);
    expect(await findMissingObjects(repo, git(repo, "rev-parse", "HEAD~1"))).toEqual([]);
  });

  it("makes a task's base repository fail with a reason that names the missing file", async () => {
    const { mirrors, base } = damagedRepo();
    const cacheDir = tempDir();
    await expect(
      ensureBaseRepo(
        { cacheDir, reposDir: path.join(cacheDir, "repos"), mirrorsDir: mirrors },
        "acme/damaged",
        "acme__damaged-1",
        base,
      ),
    ).rejects.toMatchObject({
      code: "GIT_FAILED",
      message: `lab's copy of acme/damaged lacks 1 object(s) the base commit ${base.slice(0, 10)} needs, among them big.dat of its own tree: the copy it was cloned from is incomplete.`,
    });
  });

  it("cuts a base repository's history at the commit that deleted what the copy lacks, when its own tree is whole", async () => {
    const { mirrors, repo, cut, base } = damagedHistory();
    git(repo, "tag", "v1", "HEAD~3");
    const cacheDir = tempDir();
    const messages: string[] = [];
    const bare = await ensureBaseRepo(
      {
        cacheDir,
        reposDir: path.join(cacheDir, "repos"),
        mirrorsDir: mirrors,
        onFetch: (message) => messages.push(message),
      },
      "acme/damaged",
      "acme__damaged-2",
      base,
    );
    expect(messages).toContainEqual(
      `acme__damaged-2: lab's copy of acme/damaged lacks objects of older history only, so the task's history starts at ${cut.slice(0, 10)}, which deleted them`,
    );
    // A checkout as setup.sh makes it: the base, and history back to the cut, with its tags.
    const tree = path.join(tempDir(), "work");
    git(path.dirname(tree), "clone", "--quiet", bare, tree);
    expect(git(tree, "log", "--format=%H").split("\n")).toEqual([base, cut]);
    expect(git(tree, "tag", "--list")).toBe("v3");
    expect(git(tree, "status", "--porcelain")).toBe("");
  });
});
