// Opt-in: real SWE-bench instances from local mirrors of their repositories.
//
//   LAB_MIRRORS=/path/to/mirrors [LAB_REAL_INSTANCES=id,id] [LAB_TEST_CACHE_DIR=~/.cache/lab] \
//     npx vitest run test/e2e/swebench-real.test.ts
//
// LAB_MIRRORS holds <owner>/<name> mirrors (bare or not) of the instances' repositories and of
// SWE-bench/SWE-bench, whose history gives the Lite dataset (data/SWE-bench_Lite/test.parquet at
// 9fa5614). Without LAB_MIRRORS the file is skipped: CI reaches no GitHub.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readProofFile } from "../../src/suite/index.js";
import { readTrialResults, runPaths } from "../../src/store/index.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const mirrors = process.env.LAB_MIRRORS;
/** One Lite instance per mirrored repository, each kept on this project's machines. */
const DEFAULT_INSTANCES = [
  "astropy__astropy-12907",
  "mwaskom__seaborn-3010",
  "pallets__flask-4992",
  "psf__requests-2317",
  "pydata__xarray-4094",
  "pylint-dev__pylint-7080",
  "pytest-dev__pytest-5227",
  "sphinx-doc__sphinx-8713",
  "sympy__sympy-20590",
];
const instances = (process.env.LAB_REAL_INSTANCES ?? DEFAULT_INSTANCES.join(","))
  .split(",")
  .filter((id) => id !== "");

describe.skipIf(mirrors === undefined)("real SWE-bench instances (opt-in: LAB_MIRRORS)", () => {
  const root = tempDir();
  const at = (...args: string[]) => [
    ...args,
    "--evals-dir",
    path.join(root, "evals"),
    "--runs-dir",
    path.join(root, "runs"),
  ];
  const dataset = path.join(root, "lite.parquet");

  it("proves each instance twice from the mirrors; gold resolves each, noop none, and the gold patches as predictions get gold's verdicts", async () => {
    const upstream = path.join(mirrors ?? "", "SWE-bench", "SWE-bench");
    expect(existsSync(upstream), `${upstream} (a mirror of SWE-bench/SWE-bench)`).toBe(true);
    writeFileSync(
      dataset,
      execFileSync("git", ["-C", upstream, "show", "9fa5614:data/SWE-bench_Lite/test.parquet"], {
        maxBuffer: 256 * 1024 * 1024,
      }),
    );
    const gen = await runLab(
      at(
        "gen",
        "--suite",
        "swebench",
        "--dataset",
        dataset,
        "--mirrors",
        mirrors ?? "",
        "--tasks",
        instances.join(","),
        "--concurrency",
        "2",
        "--display",
        "plain",
      ),
      { cwd: root },
    );
    expect(gen.code, gen.stderr).toBe(0);
    const suiteDir = path.join(root, "evals", "swebench");
    const proven = (await readProofFile(suiteDir))?.instances ?? {};
    const kept = new Set(
      Object.entries(proven)
        .filter(([, entry]) => entry.kept && entry.runs.length === 2)
        .map(([id]) => id),
    );
    expect([...kept].sort(), gen.stderr).toEqual([...instances].sort());

    const verdicts = async (runId: string): Promise<Record<string, boolean | null>> =>
      Object.fromEntries(
        (await readTrialResults(runPaths(path.join(root, "runs"), runId))).map((trial) => [
          trial.taskId,
          trial.resolved,
        ]),
      );
    const run = async (runId: string, ...args: string[]) => {
      const result = await runLab(
        at("run", ...args, "--suite", "swebench", "--run-id", runId, "--concurrency", "2"),
        { cwd: root },
      );
      expect(result.code, result.stderr).toBe(0);
      return verdicts(runId);
    };
    const gold = await run("real-gold", "gold");
    expect(Object.keys(gold).sort()).toEqual([...instances].sort());
    expect(
      Object.values(gold).every((resolved) => resolved === true),
      JSON.stringify(gold),
    ).toBe(true);
    const noop = await run("real-noop", "noop");
    expect(
      Object.values(noop).some((resolved) => resolved !== false),
      JSON.stringify(noop),
    ).toBe(false);

    const predictions = path.join(root, "gold-predictions.jsonl");
    writeFileSync(
      predictions,
      instances
        .map((id) =>
          JSON.stringify({
            instance_id: id,
            model_name_or_path: "gold-as-predictions",
            model_patch: readFileSync(path.join(suiteDir, "oracle", id, "gold.patch"), "utf8"),
          }),
        )
        .join("\n"),
    );
    expect(await run("real-gold-predictions", "predictions", "--predictions", predictions)).toEqual(
      gold,
    );
  }, 7_200_000);
});
