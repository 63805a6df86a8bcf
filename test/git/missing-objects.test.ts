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

  it("gives a task the base commit without its history when only the history lacks objects", async () => {
    const { mirrors, repo } = damagedRepo();
    rmSync(path.join(repo, "big.dat"));
    writeFileSync(path.join(repo, "b.txt"), "b\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "three: big.dat removed");
    const base = git(repo, "rev-parse", "HEAD");
    const cacheDir = tempDir();
    const notes: string[] = [];
    const target = await ensureBaseRepo(
      {
        cacheDir,
        reposDir: path.join(cacheDir, "repos"),
        mirrorsDir: mirrors,
        onFetch: (message) => notes.push(message),
      },
      "acme/damaged",
      "acme__damaged-3",
      base,
    );
    expect(notes.at(-1)).toBe(
      `lab's copy of acme/damaged lacks 1 object(s) of ${base.slice(0, 10)}'s history, none of its tree: acme__damaged-3's repository holds the base commit without its history`,
    );
    expect(git(target, "rev-parse", "refs/heads/main")).toBe(base);
    expect(git(target, "rev-list", "--count", "main")).toBe("1");
    const checkout = path.join(tempDir(), "work");
    git(path.dirname(checkout), "clone", "-q", target, checkout);
    expect(git(checkout, "ls-files")).toBe("a.txt\nb.txt");
  });
});
