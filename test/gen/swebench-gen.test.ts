import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  predictionChanges,
  readPredictions,
  type EnvironmentEntry,
  type SwebenchRow,
} from "../../src/datasets/index.js";
import { generateSwebench, type SwebenchGenResult } from "../../src/gen/index.js";
import type { ChangeSource } from "../../src/core/index.js";
import { renderSwebenchReport } from "../../src/report/swebench-format.js";
import { runSuite } from "../../src/runner/index.js";
import { readRunRecord, runPaths } from "../../src/store/index.js";
import { createGoldTool, createNoopTool } from "../../src/tools/index.js";
import { pyproject } from "../helpers/fixture-suite.js";
import { runLab, testEnvironment } from "../helpers/lab.js";
import { sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const mirrors = path.join(root, "mirrors");
const repoDir = path.join(mirrors, "acme", "widget");
const suiteDir = path.join(root, "evals", "swebench");
const env = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};
const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: repoDir, env, encoding: "utf8" }).trim();
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(repoDir, file)), { recursive: true });
  writeFileSync(path.join(repoDir, file), text);
};

let base = "";
let goldPatch = "";
let testPatch = "";
let result: SwebenchGenResult;
/** What the first gen told its reporter. */
const genLogs: string[] = [];

const TEST_LOW =
  "from widget import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n";
const TEST_BOTH = `${TEST_LOW}\n\ndef test_high():\n    assert clamp(50, 0, 10) == 10\n`;

function row(
  id: string,
  extra: Partial<Record<keyof SwebenchRow, unknown>> = {},
): Record<string, unknown> {
  return {
    instance_id: id,
    repo: "acme/widget",
    base_commit: base,
    patch: goldPatch,
    test_patch: testPatch,
    problem_statement: "clamp() ignores the upper bound: clamp(50, 0, 10) returns 50.",
    hints_text: "Look at max/min.",
    created_at: "2024-01-01T00:00:00Z",
    version: "0.1",
    FAIL_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_high"]),
    PASS_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_low"]),
    ...extra,
  };
}

const environment: EnvironmentEntry = {
  repo: "acme/widget",
  version: "0.1",
  python: "3.11",
  pins: ["pytest==8.3.4", "pluggy==1.5.0", "iniconfig==2.0.0", "packaging==24.2"],
  pinsInstallArgs: [],
  installArgs: [],
  preInstall: [],
  install: "pip install -e . --no-deps",
  testCommand: "pytest -rA",
  env: {},
  logParser: "pytest",
  notes: [],
  unmapped: [],
  services: [],
};

beforeAll(async () => {
  mkdirSync(repoDir, { recursive: true });
  git("init", "-q", "-b", "main");
  write("pyproject.toml", pyproject("widget"));
  write(".gitignore", "__pycache__/\n");
  write("src/widget/__init__.py", "def clamp(value, low, high):\n    return max(low, value)\n");
  write("tests/test_clamp.py", TEST_LOW);
  git("add", "-A");
  git("commit", "-qm", "widget 0.1");
  git("tag", "-a", "v0.1", "-m", "0.1");
  base = git("rev-parse", "HEAD");
  write(
    "src/widget/__init__.py",
    "def clamp(value, low, high):\n    return min(high, max(low, value))\n",
  );
  write("tests/test_clamp.py", TEST_BOTH);
  git("add", "-A");
  git("commit", "-qm", "fix clamp");
  git("tag", "v0.2");
  goldPatch = git("diff", base, "HEAD", "--", "src") + "\n";
  testPatch = git("diff", base, "HEAD", "--", "tests") + "\n";
  write("NEWS", "the fix is in 0.2\n");
  git("add", "-A");
  git("commit", "-qm", "later work");

  const harmless = goldPatch.replace(
    "+    return min(high, max(low, value))",
    "+    return max(low, value)  # unchanged behaviour",
  );
  const dataset = path.join(root, "dataset.json");
  writeFileSync(
    dataset,
    JSON.stringify([
      row("acme__widget-1"),
      row("acme__widget-2", {
        FAIL_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_low"]),
        PASS_TO_PASS: "[]",
      }),
      row("acme__widget-3", { patch: harmless }),
      row("django__django-7", { repo: "django/django" }),
      row("acme__gizmo-1", { repo: "acme/gizmo" }),
      row("acme__widget-4", { base_commit: "zz" }),
    ]),
  );
  result = await generateSwebench(
    {
      suiteDir,
      dataset: { file: dataset, name: "lite", split: "test", endpoint: "http://127.0.0.1:9" },
      selection: { all: true },
      repos: {
        cacheDir: path.join(suiteDir, ".cache"),
        reposDir: path.join(root, "lab-cache", "swebench", "repos"),
        mirrorsDir: mirrors,
      },
      environment: testEnvironment(),
      validate: true,
      proofRuns: 2,
      hints: false,
      concurrency: 2,
      testTimeoutMs: 120_000,
      labVersion: "test",
      signal: new AbortController().signal,
      environmentOf: (entry) => (entry.repo.startsWith("acme/") ? environment : null),
    },
    {
      emit: (event) => {
        if (event.type === "log") genLogs.push(event.message);
      },
    },
  );
}, 300_000);

describe("lab gen --suite swebench", () => {
  it("says when it clones a repository's history, once for all its instances", () => {
    const clones = genLogs.filter((line) => line.startsWith("cloning "));
    expect(clones).toEqual([
      `cloning acme/widget's full history from ${repoDir} (once: later tasks and reruns reuse it)`,
    ]);
  });

  it("keeps only the instance its gold patch proves, and gives every drop a specific reason", () => {
    expect(result.kept).toEqual(["acme__widget-1"]);
    expect(result.dropped.map(({ instance_id, category }) => ({ instance_id, category }))).toEqual([
      { instance_id: "acme__gizmo-1", category: "no_mirror" },
      { instance_id: "acme__widget-2", category: "passes_without_fix" },
      { instance_id: "acme__widget-3", category: "gold_fails" },
      { instance_id: "acme__widget-4", category: "invalid_row" },
      { instance_id: "django__django-7", category: "no_environment" },
    ]);
    const reasons = Object.fromEntries(
      result.dropped.map((drop) => [drop.instance_id, drop.reason]),
    );
    expect(reasons["acme__widget-2"]).toBe(
      "every FAIL_TO_PASS test passes without the fix: tests/test_clamp.py::test_low",
    );
    expect(reasons["acme__widget-3"]).toBe(
      "gold fails 1 test(s): tests/test_clamp.py::test_high (FAILED)",
    );
    expect(reasons["acme__widget-4"]).toBe("invalid row: base_commit: a 40-character commit hash");
    expect(reasons["django__django-7"]).toBe("lab has no environment spec for django/django 0.1");
    // A repository the mirrors folder lacks is never kept, and says why.
    expect(reasons["acme__gizmo-1"]).toBe(
      `not proven on this machine: no mirror of acme/gizmo in ${mirrors}`,
    );
  });

  it("renders tasks with nothing of the oracle beside them, and removes dropped ones", () => {
    expect(readdirSync(path.join(suiteDir, "tasks"))).toEqual(["acme__widget-1"]);
    expect(readdirSync(path.join(suiteDir, "oracle"))).toEqual(["acme__widget-1"]);
    const taskDir = path.join(suiteDir, "tasks", "acme__widget-1");
    expect(readdirSync(taskDir).sort()).toEqual([
      "check.sh",
      "prompt.txt",
      "setup.sh",
      "task.json",
    ]);
    for (const file of readdirSync(taskDir)) {
      const text = readFileSync(path.join(taskDir, file), "utf8");
      expect(text).not.toContain("min(high");
      expect(text).not.toContain("test_high");
    }
    const prompt = readFileSync(path.join(taskDir, "prompt.txt"), "utf8");
    expect(prompt).toMatch(/^clamp\(\) ignores the upper bound/);
    expect(prompt).not.toContain("Look at max/min.");
    expect(JSON.parse(readFileSync(path.join(taskDir, "task.json"), "utf8"))).toMatchObject({
      id: "acme__widget-1",
      repo: "acme/widget",
      baseCommit: base,
      // The fix date (the pull request's created_at) stays with the task: the contamination
      // slice splits tasks at a model's training cutoff by it.
      metadata: {
        createdAt: "2024-01-01T00:00:00Z",
        goldFiles: 1,
        goldLines: 2,
        hasStackTrace: false,
      },
    });
    expect(
      JSON.parse(
        readFileSync(path.join(suiteDir, "oracle", "acme__widget-1", "tests.json"), "utf8"),
      ),
    ).toEqual({
      FAIL_TO_PASS: ["tests/test_clamp.py::test_high"],
      PASS_TO_PASS: ["tests/test_clamp.py::test_low"],
    });
  });

  it("hands tools a work tree whose history ends at the base commit, with earlier tags only", () => {
    const tree = path.join(root, "tree");
    execFileSync("bash", [path.join(suiteDir, "tasks", "acme__widget-1", "setup.sh"), tree]);
    const inTree = (...args: string[]) =>
      execFileSync("git", args, { cwd: tree, encoding: "utf8" }).trim();
    expect(inTree("rev-parse", "HEAD")).toBe(base);
    expect(inTree("rev-list", "--all")).toBe(base);
    expect(inTree("tag")).toBe("v0.1");
    expect(inTree("remote")).toBe("");
    const objects = inTree("cat-file", "--batch-all-objects", "--batch-check=%(objecttype)").split(
      "\n",
    );
    expect(objects.filter((type) => type === "commit")).toHaveLength(1);
    expect(existsSync(path.join(tree, "NEWS"))).toBe(false);
  });

  it("shares the base repository's objects with a grading checkout only, never with a tool's", () => {
    const setup = path.join(suiteDir, "tasks", "acme__widget-1", "setup.sh");
    // The link count of every object file (loose or packed) of a checkout.
    const objectLinks = (tree: string): number[] => {
      const objects = path.join(tree, ".git", "objects");
      return readdirSync(objects, { recursive: true, encoding: "utf8" })
        .filter((file) => /^([0-9a-f]{2}\/[0-9a-f]{38}|pack\/.*\.(pack|idx))$/.test(file))
        .map((file) => statSync(path.join(objects, file)).nlink);
    };
    const toolTree = path.join(root, "tool-tree");
    execFileSync("bash", [setup, toolTree], { env: { ...process.env, LAB_CHECKOUT: "tool" } });
    const gradeTree = path.join(root, "grade-tree");
    execFileSync("bash", [setup, gradeTree], { env: { ...process.env, LAB_CHECKOUT: "grade" } });
    expect(objectLinks(toolTree).length).toBeGreaterThan(0);
    expect(objectLinks(toolTree).every((links) => links === 1)).toBe(true);
    expect(objectLinks(gradeTree).every((links) => links > 1)).toBe(true);
    const head = (tree: string): string =>
      execFileSync("git", ["rev-parse", "HEAD"], { cwd: tree, encoding: "utf8" }).trim();
    expect(head(gradeTree)).toBe(base);
    expect(head(toolTree)).toBe(base);
  });

  it("resumes: a second gen reuses the stored proofs instead of proving again", async () => {
    const dataset = path.join(root, "dataset.json");
    const started = Date.now();
    const logs: string[] = [];
    const again = await generateSwebench(
      {
        suiteDir,
        dataset: { file: dataset, name: "lite", split: "test", endpoint: "http://127.0.0.1:9" },
        selection: { instances: ["acme__widget-1", "acme__widget-2"], all: false },
        repos: {
          cacheDir: path.join(suiteDir, ".cache"),
          reposDir: path.join(root, "lab-cache", "swebench", "repos"),
          mirrorsDir: mirrors,
        },
        environment: testEnvironment(),
        validate: true,
        proofRuns: 2,
        hints: false,
        concurrency: 1,
        testTimeoutMs: 120_000,
        labVersion: "test",
        signal: new AbortController().signal,
        environmentOf: () => environment,
      },
      {
        emit: (event) => {
          if (event.type === "log") logs.push(event.message);
        },
      },
    );
    expect(again.kept).toEqual(["acme__widget-1"]);
    // The repository is on disk already: nothing is cloned or fetched again.
    expect(logs.filter((line) => /^(cloning|fetching) /.test(line))).toEqual([]);
    expect(again.dropped.map((drop) => drop.category)).toEqual([
      "passes_without_fix",
      "invalid_row",
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("grading the generated suite", () => {
  const runConfig = async (source: ChangeSource, runId: string, taskIds?: string[]) => {
    const { resolveRunConfig, resolveSettings, configFileSchema } =
      await import("../../src/config/index.js");
    const settings = resolveSettings(
      { evalsDir: path.join(root, "evals"), runsDir: path.join(root, "runs") },
      { ...process.env, LAB_CACHE_DIR: sharedCacheDir },
      root,
    );
    return resolveRunConfig({
      flags: { suite: "swebench", runId, tasks: taskIds },
      env: process.env,
      file: configFileSchema.parse({}),
      settings,
      source,
      labVersion: "test",
      signal: new AbortController().signal,
    });
  };
  const quiet = { emit: () => undefined };
  const never = new AbortController().signal;

  it("resolves every kept task with gold and none with noop", async () => {
    const gold = await runSuite(
      await runConfig({ kind: "tool", tool: createGoldTool() }, "gold"),
      quiet,
      never,
    );
    expect(gold.summary).toMatchObject({ trials: 1, resolved: 1, infraErrors: 0 });
    const noop = await runSuite(
      await runConfig({ kind: "tool", tool: createNoopTool() }, "noop"),
      quiet,
      never,
    );
    expect(noop.summary).toMatchObject({ trials: 1, resolved: 0, infraErrors: 0 });
  }, 300_000);

  it("grades a predictions file like gold, and writes upstream's run report", async () => {
    const file = path.join(root, "preds.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ instance_id: "acme__widget-1", model_name_or_path: "gold-as-model", model_patch: goldPatch })}\n`,
    );
    const predictions = readPredictions(file);
    const run = await runSuite(
      await runConfig(predictionChanges(predictions, file), "preds", ["acme__widget-1"]),
      quiet,
      never,
    );
    expect(run.results[0]).toMatchObject({
      taskId: "acme__widget-1",
      resolved: true,
      toolVersion: "gold-as-model",
    });
    // The change exists already: no work tree is checked out for it, no sandbox is made.
    expect(Object.keys(run.results[0]?.phaseMs ?? {})).toEqual(["tool", "grade"]);
    const record = await readRunRecord(runPaths(path.join(root, "runs"), "preds"));
    expect(renderSwebenchReport(record, run.results, ["acme__widget-1"])).toEqual({
      total_instances: 1,
      submitted_instances: 1,
      completed_instances: 1,
      resolved_instances: 1,
      unresolved_instances: 0,
      infra_failure_instances: 0,
      ambiguous_failure_instances: 0,
      empty_patch_instances: 0,
      error_instances: 0,
      completed_ids: ["acme__widget-1"],
      incomplete_ids: [],
      empty_patch_ids: [],
      submitted_ids: ["acme__widget-1"],
      resolved_ids: ["acme__widget-1"],
      unresolved_ids: [],
      infra_failure_ids: [],
      ambiguous_failure_ids: [],
      failure_reasons: {},
      error_ids: [],
      schema_version: 2,
    });

    const mixed = path.join(root, "mixed.json");
    writeFileSync(
      mixed,
      JSON.stringify([{ instance_id: "acme__widget-1", model_name_or_path: "m", model_patch: "" }]),
    );
    const empty = await runSuite(
      await runConfig(predictionChanges(readPredictions(mixed), mixed), "empty", [
        "acme__widget-1",
      ]),
      quiet,
      never,
    );
    const emptyReport = renderSwebenchReport(
      await readRunRecord(runPaths(path.join(root, "runs"), "empty")),
      empty.results,
      ["acme__widget-1"],
    );
    expect(emptyReport).toMatchObject({
      empty_patch_instances: 1,
      empty_patch_ids: ["acme__widget-1"],
      completed_instances: 0,
      resolved_instances: 0,
    });

    const garbage = path.join(root, "garbage.json");
    writeFileSync(
      garbage,
      JSON.stringify([
        {
          instance_id: "acme__widget-1",
          model_name_or_path: "m",
          model_patch:
            "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-x\n+y\n",
        },
      ]),
    );
    const broken = await runSuite(
      await runConfig(predictionChanges(readPredictions(garbage), garbage), "garbage", [
        "acme__widget-1",
      ]),
      quiet,
      never,
    );
    expect(broken.results[0]).toMatchObject({ resolved: false, patchApplied: false });
    expect(
      renderSwebenchReport(
        await readRunRecord(runPaths(path.join(root, "runs"), "garbage")),
        broken.results,
        ["acme__widget-1"],
      ),
    ).toMatchObject({ error_ids: ["acme__widget-1"], completed_ids: [], incomplete_ids: [] });
  }, 300_000);

  it("rejects a predictions file without instance ids, naming the line", () => {
    const file = path.join(root, "bad-preds.json");
    writeFileSync(file, JSON.stringify([{ model_patch: "x" }]));
    expect(() => readPredictions(file)).toThrow(
      /bad-preds\.json, line 1: the prediction has no instance_id/,
    );
  });
});

describe("predictions through the CLI", () => {
  it("grades a predictions file, reports ids not in the suite, and prints upstream's run report", async () => {
    const file = path.join(root, "cli-preds.json");
    writeFileSync(
      file,
      JSON.stringify([
        {
          instance_id: "acme__widget-1",
          model_name_or_path: "org/model-x",
          model_patch: goldPatch,
        },
        { instance_id: "acme__widget-99", model_name_or_path: "org/model-x", model_patch: "" },
      ]),
    );
    const at = ["--evals-dir", path.join(root, "evals"), "--runs-dir", path.join(root, "cli-runs")];
    const run = await runLab(
      ["run", "predictions", "--suite", "swebench", "--predictions", file, ...at],
      { cwd: root },
    );
    expect(run.stderr).toContain(
      '1 prediction(s) name instances not in suite "swebench" and are not graded: acme__widget-99',
    );
    expect(run.stderr).toMatch(/run swebench-predictions-org_model-x completed: 1\/1 resolved/);
    expect(run.code).toBe(0);
    const report = await runLab(["report", "--suite", "swebench", "--format", "swebench", ...at], {
      cwd: root,
    });
    // Keyed by run id, for one run as for several.
    expect(
      (JSON.parse(report.stdout) as Record<string, unknown>)["swebench-predictions-org_model-x"],
    ).toMatchObject({
      resolved_ids: ["acme__widget-1"],
      submitted_instances: 1,
      schema_version: 2,
    });
    const missing = await runLab(["run", "predictions", "--suite", "swebench", ...at], {
      cwd: root,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("The predictions tool needs --predictions FILE.");
  }, 300_000);
});

describe("choosing instances through the CLI", () => {
  it("takes --tasks as the instances of a swebench gen, and refuses both at once", async () => {
    const at = [
      "--suite",
      "swebench-chosen",
      "--dataset",
      path.join(root, "dataset.json"),
      "--mirrors",
      mirrors,
      "--evals-dir",
      path.join(root, "chosen-evals"),
    ];
    const chosen = await runLab(["gen", ...at, "--tasks", "django__django-7"], { cwd: root });
    expect(chosen.code, chosen.stderr).toBe(0);
    // Only the one named is tried (its version has no spec here, a drop of its own).
    expect(chosen.stderr).toContain("generating 1 instance(s)");
    expect(chosen.stderr).toContain("[1/1] django__django-7: dropped");
    expect(chosen.stdout).toContain("swebench-chosen: 0 kept, 1 dropped");
    const both = await runLab(
      ["gen", ...at, "--tasks", "django__django-7", "--instances", "acme__widget-1"],
      { cwd: root },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--instances and --tasks name the same thing here");
  });
});
