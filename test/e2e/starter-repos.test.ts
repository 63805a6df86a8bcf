import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp.js";

/** The built-in suites whose projects setup-repo.sh lays out: starter (Python), starter-js (JS/TS). */
const suites = ["starter", "starter-js"];
/** starter-js's repos: its setup-repo.sh takes package.json projects. */
const reposDir = path.join(repoRoot, "evals", "starter-js", "repos");

/** Each task's suite, repo and base commit, from its task.json. */
const tasks = suites.flatMap((suite) => {
  const dir = path.join(repoRoot, "evals", suite);
  return readdirSync(path.join(dir, "tasks")).map((id) => {
    const info = JSON.parse(readFileSync(path.join(dir, "tasks", id, "task.json"), "utf8")) as {
      repo: string;
      baseCommit: string;
    };
    return { suite, id, repo: info.repo, baseCommit: info.baseCommit };
  });
});

/** Runs a setup-repo.sh (the suite's, or a copy's) and returns its exit code and stderr. */
function setupRepo(script: string, project: string, dest: string) {
  const result = spawnSync("bash", [script, project, dest], { encoding: "utf8" });
  return { status: result.status, stderr: result.stderr };
}

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
}

describe("the starter suites' setup-repo.sh", () => {
  it.each([...new Set(tasks.map((task) => `${task.suite}/${task.repo}`))])(
    "lays out %s at the base commit its tasks name",
    (suiteRepo) => {
      const [suite = "", repo = ""] = suiteRepo.split("/");
      const script = path.join(repoRoot, "evals", suite, "repos", "setup-repo.sh");
      const dest = path.join(tempDir(), repo);
      expect(setupRepo(script, repo, dest).status).toBe(0);
      const head = git(dest, "rev-parse", "HEAD");
      for (const task of tasks.filter((t) => t.repo === repo)) {
        expect(task.baseCommit, task.id).toBe(head);
      }
      expect(git(dest, "rev-list", "--count", "HEAD")).toBe("1");
      expect(git(dest, "status", "--porcelain")).toBe("");
    },
  );

  it("takes a package.json project and leaves its node_modules out, with the same commit", () => {
    // A copy of the script beside a copy of semrange, so node_modules can be planted in it.
    const copy = tempDir();
    cpSync(path.join(reposDir, "setup-repo.sh"), path.join(copy, "setup-repo.sh"));
    cpSync(path.join(reposDir, "semrange"), path.join(copy, "semrange"), { recursive: true });
    const clean = path.join(tempDir(), "clean");
    expect(setupRepo(path.join(copy, "setup-repo.sh"), "semrange", clean).status).toBe(0);

    for (const dir of ["node_modules/left-pad", "test/node_modules/helper"]) {
      mkdirSync(path.join(copy, "semrange", dir), { recursive: true });
      writeFileSync(path.join(copy, "semrange", dir, "index.js"), "export default 1;\n");
    }
    const dest = path.join(tempDir(), "planted");
    expect(setupRepo(path.join(copy, "setup-repo.sh"), "semrange", dest).status).toBe(0);
    expect(existsSync(path.join(dest, "node_modules"))).toBe(false);
    expect(existsSync(path.join(dest, "test", "node_modules"))).toBe(false);
    expect(git(dest, "ls-files")).not.toContain("node_modules");
    expect(git(dest, "rev-parse", "HEAD")).toBe(git(clean, "rev-parse", "HEAD"));
  });

  it("refuses a folder that is not a project, and a destination that is not empty", () => {
    const script = path.join(reposDir, "setup-repo.sh");
    const missing = setupRepo(script, "no-such-project", path.join(tempDir(), "x"));
    expect(missing).toEqual({
      status: 2,
      stderr: "setup-repo.sh: unknown project: no-such-project\n",
    });

    const dest = tempDir();
    writeFileSync(path.join(dest, "keep.txt"), "mine\n");
    const full = setupRepo(script, "semrange", dest);
    expect(full).toEqual({
      status: 2,
      stderr: `setup-repo.sh: destination exists and is not an empty folder: ${dest}\n`,
    });
    expect(readdirSync(dest)).toEqual(["keep.txt"]);
  });
});
