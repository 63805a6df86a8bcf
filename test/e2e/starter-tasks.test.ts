import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp.js";

/** The built-in suites these rules hold for: starter (Python) and starter-js (JS/TS). */
const suites = ["starter", "starter-js"];
const suiteDir = (suite: string) => path.join(repoRoot, "evals", suite);
/** Every task as `suite/id`. */
const ids = suites.flatMap((suite) =>
  readdirSync(path.join(suiteDir(suite), "tasks"))
    .sort()
    .map((id) => `${suite}/${id}`),
);
const readSuite = (suite: string, ...parts: string[]) =>
  readFileSync(path.join(suiteDir(suite), ...parts), "utf8");

/** The block every prompt of both suites ends with, as starter's first task states it. */
const groundRules = (() => {
  const prompt = readSuite("starter", "tasks", "textkit-slugify-max-length", "prompt.txt");
  return prompt.slice(prompt.indexOf("\n---\nGround rules:\n"));
})();

/** The files a patch changes, from its `diff --git a/X b/X` lines. */
function patchFiles(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((match) => match[1] ?? "");
}

/** Lines a patch adds or removes (its `+++`/`---` headers aside). */
function changedLines(patch: string): number {
  return patch.split("\n").filter((line) => /^[+-]/.test(line) && !/^(\+\+\+|---) /.test(line))
    .length;
}

const isTestFile = (file: string) => /^tests?\//.test(file);

/** One checkout per project, at its base commit, to check that the patches apply. */
const checkouts = new Map<string, string>();
function checkout(suite: string, repo: string): string {
  let dir = checkouts.get(repo);
  if (dir === undefined) {
    dir = path.join(tempDir(), repo);
    execFileSync("bash", [path.join(suiteDir(suite), "repos", "setup-repo.sh"), repo, dir]);
    checkouts.set(repo, dir);
  }
  return dir;
}

describe("the starter suites' task files follow their rules ('Changing the suite')", () => {
  it.each(ids)("%s", (suiteId) => {
    const [suite = "", id = ""] = suiteId.split("/");
    const read = (...parts: string[]) => readSuite(suite, ...parts);
    const info = JSON.parse(read("tasks", id, "task.json")) as {
      id: string;
      repo: string;
      metadata: Record<string, unknown>;
    };
    expect(info.id).toBe(id);
    const prompt = read("tasks", id, "prompt.txt");
    expect(prompt.endsWith(groundRules)).toBe(true);
    const issue = prompt.slice(0, prompt.length - groundRules.length);

    const gold = read("oracle", id, "gold.patch");
    const test = read("oracle", id, "test.patch");
    const goldFiles = patchFiles(gold);
    const testFiles = patchFiles(test);
    expect(goldFiles.length).toBeGreaterThan(0);
    expect(goldFiles.filter(isTestFile)).toEqual([]);
    expect(testFiles.length).toBeGreaterThan(0);
    expect(testFiles.every(isTestFile)).toBe(true);
    expect(info.metadata).toMatchObject({
      goldFiles: goldFiles.length,
      goldLines: changedLines(gold),
      descriptionChars: issue.trim().length,
    });

    const lists = JSON.parse(read("oracle", id, "tests.json")) as Record<string, string[]>;
    const f2p = lists.FAIL_TO_PASS ?? [];
    const p2p = lists.PASS_TO_PASS ?? [];
    expect(f2p.length).toBeGreaterThan(0);
    for (const list of [f2p, p2p]) expect(list).toEqual([...list].sort());
    expect(f2p.filter((name) => p2p.includes(name))).toEqual([]);
    // Every listed test lives in a file the test patch touches (pytest's `path::`, JS's `path > `).
    for (const name of [...f2p, ...p2p]) {
      expect(testFiles, name).toContain(name.split(/::| > /)[0]);
    }

    const dir = checkout(suite, info.repo);
    for (const patch of ["gold.patch", "test.patch"]) {
      const file = path.join(suiteDir(suite), "oracle", id, patch);
      execFileSync("git", ["-C", dir, "apply", "--check", file]);
    }
  });
});
