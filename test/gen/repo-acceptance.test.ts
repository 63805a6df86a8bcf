import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutTask } from "../../src/suite/index.js";
import { git } from "../../src/git/index.js";
import { loadSuite, loadTask } from "../../src/suite/index.js";
import { runLab, type CliResult } from "../helpers/lab.js";
import {
  buildAcceptanceHistory,
  startRunCounter,
  type ExpectedChange,
  type PrHistory,
} from "../helpers/pr-history.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const repoDir = path.join(root, "repos", "widget");
const evalsDir = path.join(root, "evals");
const suiteDir = path.join(evalsDir, "widget");

let history: PrHistory;
let expected: ExpectedChange[];
let gen: CliResult;
let counter: Awaited<ReturnType<typeof startRunCounter>> | undefined;

interface DroppedFile {
  kept: { id: string; commit: string; FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] }[];
  dropped: { id: string; commit: string; category: string; reason: string }[];
}
const readDropped = (dir = suiteDir): DroppedFile =>
  JSON.parse(readFileSync(path.join(dir, "dropped.json"), "utf8")) as DroppedFile;

const labIn = (dir: string, ...args: string[]) =>
  runLab(
    [...args, "--evals-dir", dir, "--runs-dir", path.join(root, "runs"), "--display", "plain"],
    {
      cwd: root,
    },
  );

/** The task id gen gives a change: its pull request number, or its commit. */
function idOf(label: string): string {
  const commit = history.commits[label] ?? "";
  const subject = history.git("log", "-1", "--format=%s", commit);
  const pr = /#(\d+)/.exec(subject)?.[1];
  return `widget-${pr ?? commit.slice(0, 10)}`;
}

beforeAll(async () => {
  counter = await startRunCounter();
  ({ history, expected } = buildAcceptanceHistory(repoDir, counter.url));
  gen = await labIn(
    evalsDir,
    "gen",
    "--suite",
    "widget",
    "--from-repo",
    repoDir,
    "--concurrency",
    "2",
  );
}, 900_000);

afterAll(async () => {
  await counter?.close();
});

describe("lab gen --from-repo on ten pull-request-like changes, six of them valid", () => {
  it("keeps exactly the six valid changes, with the right test lists", () => {
    expect(gen.stderr).not.toContain("internal error");
    expect(gen.code).toBe(0);
    const { kept } = readDropped();
    const want = expected.filter((change) => change.kept);
    expect(kept.map((task) => task.id).sort()).toEqual(
      want.map((change) => idOf(change.label)).sort(),
    );
    for (const change of want) {
      const task = kept.find((entry) => entry.id === idOf(change.label));
      expect(task?.commit).toBe(history.commits[change.label]);
      expect([...(task?.FAIL_TO_PASS ?? [])].sort()).toEqual([...(change.failToPass ?? [])].sort());
      expect([...(task?.PASS_TO_PASS ?? [])].sort()).toEqual([...(change.passToPass ?? [])].sort());
      const lists = JSON.parse(
        readFileSync(path.join(suiteDir, "oracle", idOf(change.label), "tests.json"), "utf8"),
      ) as Record<string, string[]>;
      expect(lists).toEqual({ FAIL_TO_PASS: task?.FAIL_TO_PASS, PASS_TO_PASS: task?.PASS_TO_PASS });
    }
    expect(readdirSync(path.join(suiteDir, "tasks")).sort()).toEqual(
      want.map((change) => idOf(change.label)).sort(),
    );
  });

  it("drops the other four, each with its reason", () => {
    const { dropped } = readDropped();
    const byId = Object.fromEntries(dropped.map((drop) => [drop.id, drop]));
    expect(dropped).toHaveLength(4);
    for (const change of expected.filter((entry) => !entry.kept))
      expect({ id: idOf(change.label), category: byId[idOf(change.label)]?.category }).toEqual({
        id: idOf(change.label),
        category: change.category,
      });
    expect(byId[idOf("readme")]?.reason).toBe("changes no test files");
    expect(byId[idOf("refactor")]?.reason).toBe(
      "no test fails before the fix: tests/test_core.py::test_low, tests/test_core.py::test_high, tests/test_core.py::test_inside pass with and without it",
    );
    // The timing test fails every third run (a counter), so which grade catches it, before or with
    // the fix, depends on the order the proofs' grades run in.
    expect(byId[idOf("timing")]?.reason).toMatch(
      /^flaky: tests\/test_timing\.py::test_timer_is_fast \((with|before) the fix: PASSED, then FAILED\) changed between run 1 and run 2$/,
    );
    expect(byId[idOf("uppercase")]?.reason).toMatch(
      /^install failed: resolving the dependencies as of 2025-09-\d\d failed: .*acme-internal/,
    );
    const readme = readFileSync(path.join(suiteDir, "README.md"), "utf8");
    expect(readme).toContain(
      `| \`${idOf("timing")}\` | ${history.commits.timing?.slice(0, 10) ?? ""} | flaky: `,
    );
  });

  it("writes tasks a tool may see with nothing of the oracle, and records where their text came from", async () => {
    const suite = await loadSuite("widget", { evalsDir, cwd: root });
    const units = await loadTask(suite, idOf("units"));
    expect(units.prompt).toMatch(/^Parse sizes with units\n\nparse_size\("10kb"\) fails:/);
    expect(units.info.baseCommit).toBe(history.git("rev-parse", `${history.commits.units ?? ""}^`));
    expect(units.info.metadata).toMatchObject({
      kind: "squash",
      textSource: "commit-message",
      description: "stack-trace",
      scope: "small",
      python: "3.13",
    });
    const slugify = await loadTask(suite, idOf("slugify"));
    expect(slugify.info.metadata).toMatchObject({ kind: "merge", textSource: "merge-messages" });
    expect(slugify.prompt).toMatch(
      /^Add slugify\(\)\n\nThe changes merged:\n\n- Add text.slugify\n- Test slugify\n/,
    );
    expect((await loadTask(suite, idOf("truncate"))).info.metadata.description).toBe(
      "reproduction",
    );
    expect((await loadTask(suite, idOf("reader"))).info.metadata.scope).toBe("large");
    for (const id of suite.taskIds) {
      const dir = path.join(suiteDir, "tasks", id);
      expect(readdirSync(dir).sort()).toEqual(["check.sh", "prompt.txt", "setup.sh", "task.json"]);
      const text = readdirSync(dir)
        .map((file) => readFileSync(path.join(dir, file), "utf8"))
        .join("\n");
      expect(text).not.toContain(history.commits.inverted);
      expect(text).not.toContain("test_rejects_inverted_bounds");
    }
    const source = JSON.parse(
      readFileSync(path.join(suiteDir, "oracle", idOf("slugify"), "source.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(source).toMatchObject({ commit: history.commits.slugify, kind: "merge", pr: 2 });
  });

  it("hands tools a work tree whose history ends at the base commit, with only the tags before it", async () => {
    const suite = await loadSuite("widget", { evalsDir, cwd: root });
    const task = await loadTask(suite, idOf("truncate"));
    const dest = path.join(root, "worktree");
    await checkoutTask(task, dest, {
      timeoutMs: 60_000,
      env: { PATH: process.env.PATH ?? "" },
      purpose: "tool",
    });
    expect((await git(["rev-parse", "HEAD"], { cwd: dest })).trim()).toBe(task.info.baseCommit);
    expect((await git(["tag"], { cwd: dest })).trim()).toBe("v0.1");
    expect((await git(["branch", "--format=%(refname:short)"], { cwd: dest })).trim()).toBe("main");
    expect((await git(["remote"], { cwd: dest })).trim()).toBe("");
    expect(existsSync(path.join(dest, "tests", "test_units.py"))).toBe(true);
    expect(readFileSync(path.join(dest, "src", "widget", "text.py"), "utf8")).not.toContain(
      "truncate",
    );
  });

  it("prints and writes a sampling report across scope, description and difficulty", () => {
    expect(gen.stdout).toContain("# Sampling report: widget");
    const report = readFileSync(path.join(suiteDir, "sampling.md"), "utf8");
    expect(report).toContain(
      "10 merged changes walked, 9 candidates (they change tests and source), 6 kept.",
    );
    expect(report).toContain("| small | 8 | 5 | 83% |");
    expect(report).toContain("| large | 1 | 1 | 17% |");
    expect(report).toMatch(/\| stack-trace \| 1 \| 1 \|/);
    expect(report).toContain('- scope "small" makes up 83% of the suite.');
  });

  it("resolves every kept task with gold and none with noop", async () => {
    const gold = await labIn(evalsDir, "run", "gold", "--suite", "widget", "--concurrency", "2");
    expect(gold.stderr).toMatch(/run widget-gold completed: 6\/6 resolved/);
    const noop = await labIn(evalsDir, "run", "noop", "--suite", "widget", "--concurrency", "2");
    expect(noop.stderr).toMatch(/run widget-noop completed: 0\/6 resolved/);
  }, 600_000);

  it("reuses its proofs on a rerun, and samples to a target mix or size from them", async () => {
    const again = await labIn(evalsDir, "gen", "--suite", "widget", "--from-repo", repoDir);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("proven earlier");
    expect(
      readDropped()
        .kept.map((task) => task.id)
        .sort(),
    ).toEqual(
      expected
        .filter((change) => change.kept)
        .map((change) => idOf(change.label))
        .sort(),
    );

    const mixed = path.join(root, "mixed");
    cpSync(evalsDir, mixed, { recursive: true });
    const mix = await labIn(
      mixed,
      "gen",
      "--suite",
      "widget",
      "--from-repo",
      repoDir,
      "--mix",
      "small=0.5,large=0.5",
    );
    expect(mix.code).toBe(0);
    expect(readDropped(path.join(mixed, "widget")).kept.map((task) => task.id)).toEqual([
      idOf("inverted"),
      idOf("reader"),
    ]);
    expect(readdirSync(path.join(mixed, "widget", "tasks")).sort()).toEqual(
      [idOf("inverted"), idOf("reader")].sort(),
    );
    expect(readFileSync(path.join(mixed, "widget", "sampling.md"), "utf8")).toContain(
      "| small | 8 | 1 | 50% | 50% |",
    );

    const sampled = path.join(root, "sampled");
    cpSync(evalsDir, sampled, { recursive: true });
    const sample = await labIn(
      sampled,
      "gen",
      "--suite",
      "widget",
      "--from-repo",
      repoDir,
      "--sample",
      "3",
    );
    expect(sample.code).toBe(0);
    const result = readDropped(path.join(sampled, "widget"));
    expect(result.kept.map((task) => task.id)).toEqual([
      idOf("inverted"),
      idOf("reader"),
      idOf("truncate"),
    ]);
    expect(
      result.dropped.filter((drop) => drop.category === "not_sampled").map((drop) => drop.id),
    ).toEqual(["uppercase", "units", "timing", "refactor", "slugify", "clamp-high"].map(idOf));
  }, 600_000);
});
