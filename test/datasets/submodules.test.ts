/**
 * A base commit that pins submodules (astropy's old astropy_helpers): the task's checkout has
 * them at their pinned commits, as upstream's images do, from the mirrors folder or GitHub, and
 * nothing of their later history.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ensureBaseRepo,
  MODULES_DIR,
  renderSetupScript,
  submodulesOf,
  type SwebenchRow,
} from "../../src/datasets/index.js";
import { git, testGitEnv as env } from "../helpers/git.js";
import { tempDir } from "../helpers/temp.js";

function commitFile(repo: string, file: string, text: string, message: string): string {
  writeFileSync(path.join(repo, file), text);
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", message);
  return git(repo, "rev-parse", "HEAD");
}

/**
 * acme/helpers with two commits, and acme/proj whose base commit pins helpers at the first; its
 * .gitmodules also names a module elsewhere than GitHub and one with an unsafe path.
 */
function mirrors(): { dir: string; base: string; pinned: string; later: string } {
  const dir = tempDir();
  const helpers = path.join(dir, "acme", "helpers");
  mkdirSync(helpers, { recursive: true });
  git(helpers, "init", "-q", "-b", "main");
  const pinned = commitFile(helpers, "helper.py", "VERSION = 1\n", "one");
  const later = commitFile(helpers, "helper.py", "VERSION = 2\n", "two");
  const proj = path.join(dir, "acme", "proj");
  mkdirSync(proj, { recursive: true });
  git(proj, "init", "-q", "-b", "main");
  commitFile(proj, "setup.py", "print('setup')\n", "start");
  writeFileSync(
    path.join(proj, ".gitmodules"),
    [
      '[submodule "helpers"]',
      "\tpath = helpers",
      "\turl = https://github.com/acme/helpers.git",
      '[submodule "elsewhere"]',
      "\tpath = elsewhere",
      "\turl = https://gitlab.example/acme/elsewhere.git",
      '[submodule "sneaky"]',
      "\tpath = ../outside",
      "\turl = ../helpers.git",
      "",
    ].join("\n"),
  );
  git(proj, "update-index", "--add", "--cacheinfo", `160000,${pinned},helpers`);
  git(proj, "update-index", "--add", "--cacheinfo", `160000,${pinned},elsewhere`);
  // Not `git add -A`: it would drop the gitlinks, whose folders do not exist here.
  git(proj, "add", ".gitmodules");
  git(proj, "commit", "-qm", "pin");
  const base = git(proj, "rev-parse", "HEAD");
  return { dir, base, pinned, later };
}

const row = (base: string): SwebenchRow =>
  ({ instance_id: "acme__proj-1", repo: "acme/proj", base_commit: base }) as SwebenchRow;

/** A suite folder with the task's setup.sh, its base repository made from the mirrors. */
async function suiteWithTask(mirrorsDir: string, base: string): Promise<string> {
  const suiteDir = tempDir();
  const cacheDir = path.join(suiteDir, ".cache");
  await ensureBaseRepo(
    { cacheDir, reposDir: path.join(cacheDir, "repos"), mirrorsDir },
    "acme/proj",
    "acme__proj-1",
    base,
  );
  const taskDir = path.join(suiteDir, "tasks", "acme__proj-1");
  mkdirSync(taskDir, { recursive: true });
  writeFileSync(path.join(taskDir, "setup.sh"), renderSetupScript(row(base)));
  chmodSync(path.join(taskDir, "setup.sh"), 0o755);
  return taskDir;
}

describe("a base commit with submodules", () => {
  it("lists only the GitHub submodules with plain paths, with their pinned commits", async () => {
    const { dir, base, pinned } = mirrors();
    expect(await submodulesOf(path.join(dir, "acme", "proj"), "acme/proj", base)).toEqual([
      {
        name: "helpers",
        path: "helpers",
        url: "https://github.com/acme/helpers.git",
        repo: "acme/helpers",
        commit: pinned,
      },
    ]);
  });

  it.each(["tool", "grade"])(
    "is checked out by setup.sh (%s checkout) with the submodule at its pinned commit and none of its later history",
    async (checkout) => {
      const { dir, base, pinned, later } = mirrors();
      const taskDir = await suiteWithTask(dir, base);
      const work = path.join(tempDir(), "work");
      execFileSync("bash", [path.join(taskDir, "setup.sh"), work], {
        env: { ...env, LAB_CHECKOUT: checkout },
      });
      const module = path.join(work, "helpers");
      expect(readFileSync(path.join(module, "helper.py"), "utf8")).toBe("VERSION = 1\n");
      expect(git(module, "rev-parse", "HEAD")).toBe(pinned);
      expect(() => git(module, "cat-file", "-e", later)).toThrow();
      // As `git submodule update --init` leaves it: clean (no "-" or "+" before the pin, which the
      // trim would keep), the URL the project gave.
      expect(git(work, "status", "--porcelain")).toBe("");
      expect(git(work, "submodule", "status", "--", "helpers")).toBe(
        `${pinned} helpers (heads/main)`,
      );
      expect(git(work, "config", "submodule.helpers.url")).toBe(
        "https://github.com/acme/helpers.git",
      );
      expect(git(module, "remote", "get-url", "origin")).toBe(
        "https://github.com/acme/helpers.git",
      );
      // The one elsewhere is left uninitialized, as a plain clone leaves it.
      expect(git(work, "ls-files", "--stage", "elsewhere")).toMatch(/^160000 /);
      expect(execFileSync("ls", ["-A", path.join(work, "elsewhere")], { encoding: "utf8" })).toBe(
        "",
      );
      // The tool owns its copy: no object file is shared with lab's cache.
      const shared = execFileSync(
        "find",
        [path.join(module, ".git"), "-type", "f", "-links", "+1"],
        { encoding: "utf8" },
      );
      expect(shared).toBe("");
      // The grader moves the checkout's .git away (grade-sandbox.ts); git still reads the tree.
      const moved = path.join(tempDir(), "git");
      renameSync(path.join(work, ".git"), moved);
      writeFileSync(path.join(work, ".git"), `gitdir: ${moved}\n`);
      const gitEnv = { ...env, GIT_DIR: moved, GIT_WORK_TREE: work };
      expect(
        execFileSync("git", ["diff", "--raw", "--no-abbrev", base], {
          cwd: work,
          env: gitEnv,
          encoding: "utf8",
        }),
      ).toBe("");
    },
  );

  it("keeps the submodule copies inside the task's base repository, listed", async () => {
    const { dir, base } = mirrors();
    const taskDir = await suiteWithTask(dir, base);
    const baseRepo = path.join(taskDir, "..", "..", ".cache", "bases", "acme__proj-1.git");
    expect(readFileSync(path.join(baseRepo, MODULES_DIR, "list"), "utf8")).toBe(
      "helpers\thelpers\thttps://github.com/acme/helpers.git\n",
    );
  });

  it("without a submodule on GitHub: an empty list, and the next task's call reuses the base repository", async () => {
    const { dir, base } = mirrors();
    const proj = path.join(dir, "acme", "proj");
    git(proj, "rm", "-q", "--cached", "helpers");
    git(proj, "commit", "-qm", "only elsewhere");
    const head = git(proj, "rev-parse", "HEAD");
    expect(head).not.toBe(base);
    const cacheDir = tempDir();
    const source = { cacheDir, reposDir: path.join(cacheDir, "repos"), mirrorsDir: dir };
    const baseRepo = await ensureBaseRepo(source, "acme/proj", "acme__proj-2", head);
    expect(readFileSync(path.join(baseRepo, MODULES_DIR, "list"), "utf8")).toBe("");
    const marker = path.join(baseRepo, "lab-test-marker");
    writeFileSync(marker, "");
    await ensureBaseRepo(source, "acme/proj", "acme__proj-2", head);
    expect(existsSync(marker)).toBe(true);
  });

  it("is not fetched when the mirrors folder lacks a submodule's repository, and the reason names it", async () => {
    const { dir, base } = mirrors();
    execFileSync("rm", ["-rf", path.join(dir, "acme", "helpers")]);
    const cacheDir = tempDir();
    await expect(
      ensureBaseRepo(
        { cacheDir, reposDir: path.join(cacheDir, "repos"), mirrorsDir: dir },
        "acme/proj",
        "acme__proj-1",
        base,
      ),
    ).rejects.toMatchObject({
      code: "GIT_FAILED",
      message: `the base commit pins submodule helpers of acme/helpers, and there is no mirror of acme/helpers in ${dir}.`,
    });
  });
});
