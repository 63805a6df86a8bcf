import { createServer, type Server } from "node:http";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateRepoSuite } from "../../src/gen/index.js";
import { repoNameOf } from "../../src/gen/repo/generate-suite.js";
import { mineChanges, type MiningResult } from "../../src/gen/repo/mining.js";
import { cleanMessage, issueTextFromCommits, linkedIssues } from "../../src/gen/repo/text.js";
import { listPatchFiles } from "../../src/core/index.js";
import { runLab } from "../helpers/lab.js";
import { PrHistory } from "../helpers/pr-history.js";
import { tempDir } from "../helpers/temp.js";
import { pyproject } from "../helpers/fixture-suite.js";
import { testEnvironment } from "../helpers/lab.js";

const root = tempDir();
const h = new PrHistory(path.join(root, "acme", "widget"));
let mined: MiningResult;

const byLabel = (label: string) => {
  const commit = h.commits[label];
  return [...mined.candidates, ...mined.skipped].find((item) => item.commit === commit);
};

beforeAll(async () => {
  h.direct("root", "widget 0.1", {
    "pyproject.toml": pyproject("widget"),
    "src/widget/__init__.py": "def double(x):\n    return x + x\n",
    "tests/test_double.py":
      "from widget import double\n\n\ndef test_two():\n    assert double(2) == 4\n",
    "tests/test_old.py": "def test_old():\n    pass\n",
  });
  h.squash(
    "squash",
    11,
    "Make double work on strings\n\nFixes #5.\n\nSigned-off-by: Dev <dev@example.com>\nCo-authored-by: Other <o@example.com>",
    {
      "src/widget/__init__.py": "def double(x):\n    return x * 2\n",
      "tests/test_double.py":
        "from widget import double\n\n\ndef test_two():\n    assert double(2) == 4\n\n\ndef test_str():\n    assert double('a') == 'aa'\n",
      "docs/usage.md": "double(x)\n",
    },
  );
  h.merge("merge", 12, "Add halve()", [
    { message: "Add halve", files: { "src/widget/half.py": "def halve(x):\n    return x / 2\n" } },
    { message: "Merge branch 'main' into dev/merge", files: {} },
    {
      message: "Test halve\n\nIt failed on odd numbers.",
      files: {
        "tests/test_half.py":
          "from widget.half import halve\n\n\ndef test_one():\n    assert halve(1) == 0.5\n",
      },
    },
  ]);
  h.direct("tests-only", "More tests", {
    "tests/test_double.py":
      "from widget import double\n\n\ndef test_two():\n    assert double(2) == 4\n\n\ndef test_zero():\n    assert double(0) == 0\n",
  });
  h.squash("docs-and-tests", 14, "Document and test double", {
    "README.md": "double things\n",
    "tests/test_double.py":
      "from widget import double\n\n\ndef test_two():\n    assert double(2) == 4\n\n\ndef test_neg():\n    assert double(-1) == -2\n",
  });
  h.direct("delete-tests", "Drop an old test", { "tests/test_old.py": null });
  h.squash("rename", 16, "Move the halve tests", {
    "tests/test_half.py": null,
    "tests/test_halve.py":
      "from widget.half import halve\n\n\ndef test_one():\n    assert halve(1) == 0.5\n",
    "src/widget/half.py": "def halve(x):\n    return x / 2.0\n",
  });
  h.direct("docs", "Docs", { "docs/index.md": "hi\n" });
  mined = await mineChanges({ gitDir: h.dir, branch: "main", idPrefix: "acme__widget" });
}, 60_000);

describe("mining a repository's merged changes", () => {
  it("walks the first-parent history newest first, leaving out the root commit", () => {
    expect(mined.walked).toBe(7);
    expect(mined.candidates.map((candidate) => candidate.id)).toEqual([
      "acme__widget-16",
      "acme__widget-12",
      "acme__widget-11",
    ]);
  });

  it("tells merge commits, squash merges and direct commits apart, and bases each on its first parent", () => {
    const squash = byLabel("squash");
    const merge = byLabel("merge");
    expect(squash?.kind).toBe("squash");
    expect(merge?.kind).toBe("merge");
    expect(byLabel("docs")?.kind).toBe("commit");
    const candidate = mined.candidates.find((item) => item.commit === h.commits.merge);
    expect(candidate?.base).toBe(h.commits.squash);
    expect(candidate?.pr).toBe(12);
    expect(candidate?.baseDate).toBe(h.git("show", "-s", "--format=%cI", h.commits.squash ?? ""));
  });

  it("splits a change into a test patch (test files) and a gold patch (the rest)", () => {
    const squash = mined.candidates.find((item) => item.commit === h.commits.squash);
    expect(listPatchFiles(squash?.testPatch ?? "").map((file) => file.path)).toEqual([
      "tests/test_double.py",
    ]);
    expect(listPatchFiles(squash?.goldPatch ?? "").map((file) => file.path)).toEqual([
      "docs/usage.md",
      "src/widget/__init__.py",
    ]);
    expect(squash?.sourceFiles).toEqual(["src/widget/__init__.py"]);
    expect(squash?.otherFiles).toEqual(["docs/usage.md"]);
    // A renamed test file: the new file is a hidden test, the deletion goes with the fix.
    const rename = mined.candidates.find((item) => item.commit === h.commits.rename);
    expect(listPatchFiles(rename?.testPatch ?? "")).toEqual([
      { path: "tests/test_halve.py", isNew: true, isDeleted: false },
    ]);
    expect(listPatchFiles(rename?.goldPatch ?? "").map((file) => file.path)).toEqual([
      "src/widget/half.py",
      "tests/test_half.py",
    ]);
  });

  it("skips changes without tests or without source, saying which", () => {
    expect(
      mined.skipped.map(({ commit, category, reason }) => ({ commit, category, reason })),
    ).toEqual([
      { commit: h.commits.docs, category: "no_tests", reason: "changes no test files" },
      {
        commit: h.commits["delete-tests"],
        category: "no_tests",
        reason: "only deletes test files (tests/test_old.py)",
      },
      {
        commit: h.commits["docs-and-tests"],
        category: "no_source",
        reason: "changes test files and no source (also README.md)",
      },
      { commit: h.commits["tests-only"], category: "no_source", reason: "changes only test files" },
    ]);
    expect(byLabel("tests-only")?.id).toBe(
      `acme__widget-${(h.commits["tests-only"] ?? "").slice(0, 10)}`,
    );
  });

  it("takes --limit newest changes and --since a date", async () => {
    const limited = await mineChanges({ gitDir: h.dir, branch: "main", idPrefix: "w", limit: 2 });
    expect(limited.walked).toBe(2);
    expect([...limited.candidates, ...limited.skipped].map((item) => item.commit).sort()).toEqual(
      [h.commits.docs, h.commits.rename].sort(),
    );
    const since = await mineChanges({
      gitDir: h.dir,
      branch: "main",
      idPrefix: "w",
      since: "2025-09-09T00:00:00Z",
    });
    expect(since.walked).toBe(4);
  });

  it("fails on a missing branch, naming the branches there are", async () => {
    await expect(
      mineChanges({ gitDir: h.dir, branch: "master", idPrefix: "w" }),
    ).rejects.toMatchObject({
      code: "GIT_FAILED",
      message: `The repository at ${h.dir} has no branch "master".`,
      hint: "Pass --branch with one of: main.",
    });
  });
});

describe("issue texts", () => {
  it("come from the commit message without trailers or the squash merge's number", () => {
    const squash = mined.candidates.find((item) => item.commit === h.commits.squash);
    expect(squash && issueTextFromCommits(squash)).toEqual({
      text: "Make double work on strings\n\nFixes #5.",
      source: "commit-message",
    });
  });

  it("come from a merge's message and the commits it merged, merge commits left out", () => {
    const merge = mined.candidates.find((item) => item.commit === h.commits.merge);
    expect(merge && issueTextFromCommits(merge)).toEqual({
      text: "Add halve()\n\nThe changes merged:\n\n- Add halve\n- Test halve\n\n  It failed on odd numbers.",
      source: "merge-messages",
    });
    expect(cleanMessage("Merge branch 'stable'")).toBe("");
    expect(linkedIssues("This closes #12 and fixes: #3; see #4. Resolves #12")).toEqual([12, 3]);
  });

  describe("from GitHub when a token is given", () => {
    let server: Server;
    let api = "";
    const seen: string[] = [];
    beforeAll(async () => {
      server = createServer((request, response) => {
        seen.push(`${request.url ?? ""} ${request.headers.authorization ?? ""}`);
        const threads: Record<string, unknown> = {
          "/repos/acme/widget/pulls/11": {
            title: "Strings",
            body: "Fixes #5",
            html_url: "https://github.com/acme/widget/pull/11",
          },
          "/repos/acme/widget/issues/5": {
            title: "double('a') fails",
            body: "```python\ndouble('a')\n```",
            html_url: "https://github.com/acme/widget/issues/5",
          },
          "/repos/acme/widget/pulls/12": {
            title: "Add halve()",
            body: "No issue.\r\nJust halve.",
            html_url: "https://github.com/acme/widget/pull/12",
          },
        };
        const thread = threads[request.url ?? ""];
        response.writeHead(thread === undefined ? 404 : 200, {
          "content-type": "application/json",
        });
        response.end(JSON.stringify(thread ?? { message: "Not Found" }));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      api = `http://127.0.0.1:${String(typeof address === "object" && address !== null ? address.port : 0)}`;
    });
    afterAll(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
    );

    it("takes the linked issue, else the pull request, and records which", async () => {
      const result = await generateRepoSuite(
        {
          suiteDir: path.join(root, "evals", "widget"),
          from: h.dir,
          branch: "main",
          repoName: "acme/widget",
          proofRuns: 1,
          validate: false,
          concurrency: 1,
          testTimeoutMs: 60_000,
          github: { apiBase: api, token: "t0ken" },
          environment: testEnvironment(),
          labVersion: "test",
          signal: new AbortController().signal,
        },
        { emit: () => undefined },
      );
      expect(result.candidates).toBe(3);
      const file = JSON.parse(
        readFileSync(path.join(root, "evals", "widget", "candidates.json"), "utf8"),
      ) as {
        candidates: { id: string; textSource: string; hasReproduction: boolean }[];
      };
      expect(file.candidates.map(({ id, textSource }) => ({ id, textSource }))).toEqual([
        { id: "acme__widget-16", textSource: "commit-message" },
        { id: "acme__widget-12", textSource: "github-pr" },
        { id: "acme__widget-11", textSource: "github-issue" },
      ]);
      expect(file.candidates[2]?.hasReproduction).toBe(true);
      expect(seen).toContain("/repos/acme/widget/issues/5 Bearer t0ken");
    });
  });
});

describe("the repository source", () => {
  it("names the repository from a URL or a folder", () => {
    expect(repoNameOf("https://github.com/pallets/flask.git")).toBe("pallets/flask");
    expect(repoNameOf("git@github.com:pallets/flask.git")).toBe("pallets/flask");
    expect(repoNameOf("/tmp/mirrors/pallets/flask")).toBe("flask");
    expect(repoNameOf("/x/y", "acme/y")).toBe("acme/y");
  });

  it("clones a URL into the suite's cache once, and mines the clone (--no-validate through the CLI)", async () => {
    const evalsDir = path.join(root, "url-evals");
    const url = `file://${h.dir}`;
    const args = [
      "gen",
      "--suite",
      "w",
      "--from-repo",
      url,
      "--no-validate",
      "--limit",
      "6",
      "--evals-dir",
      evalsDir,
      "--display",
      "silent",
    ];
    const first = await runLab(args, { cwd: root });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("w: 2 candidate(s) of 6 change(s) mined, not validated");
    expect(first.stdout).toContain("| small | 2 | 100% |");
    const again = await runLab(args, { cwd: root });
    expect(again.code).toBe(0);
    const file = JSON.parse(readFileSync(path.join(evalsDir, "w", "candidates.json"), "utf8")) as {
      source: string;
      repo: string;
    };
    expect(file.source).toBe(path.join(evalsDir, "w", ".cache", "source.git"));
    expect(file.repo).toBe("acme/widget");
  });

  it("rejects --from-repo options without --from-repo, and bad values by name", async () => {
    const evalsDir = path.join(root, "bad-evals");
    const run = (...args: string[]) =>
      runLab(["gen", ...args, "--evals-dir", evalsDir], { cwd: root });
    const stray = await run("--suite", "starter", "--branch", "dev");
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("lab gen: --branch goes with --from-repo only.");
    const mix = await run("--suite", "w", "--from-repo", h.dir, "--mix", "tiny=1");
    expect(mix.code).toBe(2);
    expect(mix.stderr).toContain(
      'lab gen: --mix: "tiny=1" is not CLASS=SHARE for the scope dimension.',
    );
    const notRepo = await run("--suite", "w", "--from-repo", root);
    expect(notRepo.code).toBe(1);
    expect(notRepo.stderr).toContain(`lab gen: ${root} is not a git repository.`);
    const own = await run("--suite", "swebench", "--from-repo", h.dir);
    expect(own.stderr).toContain('--from-repo makes a suite of its own; "swebench" is lab\'s.');
  });
});
