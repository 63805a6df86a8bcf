/**
 * The canaries on real SWE-bench tasks (opt-in: set LAB_MIRRORS). Gold is never flagged on any
 * kept task of the suite, and the forgers are caught. The suite is LAB_TEST_SWEBENCH_EVALS_DIR's
 * `swebench` suite when set (e.g. the full tier), else three instances generated here from
 * LAB_TEST_SWEBENCH_DATASET (a rows file, as `lab gen --dataset` takes) or Hugging Face: those of
 * LAB_TEST_SWEBENCH_INSTANCES (comma-separated ids) when set, else requests', flask's and SymPy's.
 * Every forger of forge.sh and forge-tells.sh runs on one task of each repository pytest runs.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteShell, type TrialResult } from "../../src/core/index.js";
import { readTrialResults, runPaths } from "../../src/store/index.js";
import { runLab } from "../helpers/lab.js";
import { outsideTmpRoot } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { HOSTILE_DIR } from "./helpers.js";

const mirrors = process.env.LAB_MIRRORS;
const INSTANCES = (
  process.env.LAB_TEST_SWEBENCH_INSTANCES ??
  "psf__requests-1963,pallets__flask-4045,sympy__sympy-24152"
)
  .split(",")
  .map((id) => id.trim())
  .filter((id) => id !== "");
/** Repositories whose tests pytest does not run: the pytest forgers have nothing to rewrite. */
const NOT_PYTEST = /^(sympy__sympy|django__django)-/;
/** forge-tells.sh's forgers that tell canaries apart by one property, and those that rewire pytest. */
const TELLS = ["refs", "size", "names", "last-alone", "only-last", "sentinel"];
const REWIRINGS = ["wrap-call-and-report", "logreport-hook", "terminal-reporter"];

/** One task of each repository pytest runs: each lays out and names its test modules its own way. */
function onePerPytestRepository(tasks: readonly string[]): string[] {
  return [
    ...new Map(
      tasks
        .filter((id) => !NOT_PYTEST.test(id))
        .map((id) => [id.replace(/-\d+$/, ""), id] as const),
    ).values(),
  ];
}

/** A lab.config.json tool entry running one of the hostile scripts in a mode. */
function forgerTool(
  name: string,
  script: string,
  mode: string,
): [string, { command: string; paths: string[] }] {
  return [
    name,
    { command: `bash ${quoteShell(path.join(HOSTILE_DIR, script))} ${mode}`, paths: [HOSTILE_DIR] },
  ];
}

/**
 * A forger's trial is caught when it is flagged, or when its forgery did nothing and every
 * hidden test that must start passing failed honestly (the forger changes no code the tests
 * exercise, so any of them passing is its work): in pytest's own repository a forger lands in
 * _pytest itself, imported before what it patches, and the rewirings that look pytest's
 * terminal reporter up find none where the package is imported by a conftest.py, before
 * pytest configured it (flask). A forgery that worked unflagged would have resolved the task. A
 * trial whose log was rejected (no result could be read) is unresolved for that, and caught too.
 */
function caught(trial: TrialResult, flag: RegExp): boolean {
  const flagged = (trial.grade?.tampering ?? []).some((line) => flag.test(line));
  const failed = /^(\d+) of (\d+) FAIL_TO_PASS tests failed: /.exec(trial.grade?.reason ?? "");
  const inert = failed !== null && failed[1] === failed[2];
  // A forgery that broke the run's report scores nothing either (seaborn's under the names
  // forger: pytest printed no result the parser could read).
  const rejected = /^the test log was rejected: /.test(trial.grade?.reason ?? "");
  return trial.resolved !== true && (flagged || inert || rejected);
}

describe.runIf(mirrors !== undefined && mirrors !== "" && hasBwrap())(
  "canaries on SWE-bench tasks",
  () => {
    const root = mkdtempSync(path.join(outsideTmpRoot, "hostile-swebench-"));
    afterAll(() => {
      rmSync(root, { recursive: true, force: true });
    });
    const evalsDir = process.env.LAB_TEST_SWEBENCH_EVALS_DIR ?? path.join(root, "evals");
    const runsDir = path.join(root, "runs");
    const env = { LAB_SCRATCH_DIR: path.join(root, "scratch") };
    const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runsDir];
    let tasks: string[] = [];

    beforeAll(async () => {
      if (process.env.LAB_TEST_SWEBENCH_EVALS_DIR === undefined) {
        const dataset = process.env.LAB_TEST_SWEBENCH_DATASET;
        const gen = await runLab(
          at(
            "gen",
            "--suite",
            "swebench",
            "--mirrors",
            mirrors ?? "",
            "--instances",
            INSTANCES.join(","),
            ...(dataset === undefined ? [] : ["--dataset", dataset]),
          ),
          { cwd: root, env },
        );
        expect(gen.code, gen.stderr).toBe(0);
      }
      tasks = readdirSync(path.join(evalsDir, "swebench", "tasks")).sort();
      writeFileSync(
        path.join(root, "lab.config.json"),
        JSON.stringify({
          tools: Object.fromEntries([
            ...["flip-failures", "print-all", "unittest-asserts", "sympy-flip"].map((mode) =>
              forgerTool(`forge-${mode}`, "forge.sh", mode),
            ),
            ...[...TELLS, ...REWIRINGS].map((mode) =>
              forgerTool(`tells-${mode}`, "forge-tells.sh", mode),
            ),
          ]),
        }),
      );
    }, 3_600_000);

    it("gold resolves every kept task and is never flagged", async () => {
      const gold = await runLab(at("run", "gold", "--suite", "swebench"), { cwd: root, env });
      expect(gold.code, gold.stderr).toBe(0);
      const trials = await readTrialResults(runPaths(runsDir, "swebench-gold"));
      expect(trials.map((trial) => trial.taskId).sort()).toEqual(tasks);
      for (const trial of trials) {
        expect(trial.grade?.tampering, trial.taskId).toEqual([]);
        expect(trial.resolved, `${trial.taskId}: ${String(trial.grade?.reason)}`).toBe(true);
      }
    }, 7_200_000);

    // unittest-asserts acts on unittest-style tests only (requests'), which the guard watches.
    const FORGES: [string, RegExp][] = [
      ["flip-failures", /^canaries: /],
      ["print-all", /^canaries: /],
      ["unittest-asserts", /^(canaries: |runner: the test runner was changed at run time: )/],
    ];
    for (const [mode, flag] of FORGES) {
      it(`${mode} resolves nothing and is flagged wherever it acts, on one task of each repository`, async (context) => {
        const perRepo = onePerPytestRepository(tasks);
        if (perRepo.length === 0) context.skip("the suite has no task pytest runs");
        const run = await runLab(
          at("run", `forge-${mode}`, "--suite", "swebench", "--tasks", perRepo.join(",")),
          { cwd: root, env },
        );
        expect(run.code, run.stderr).toBe(0);
        const trials = await readTrialResults(runPaths(runsDir, `swebench-forge-${mode}`));
        expect(trials.map((trial) => trial.taskId).sort()).toEqual(perRepo.sort());
        for (const trial of trials)
          expect(caught(trial, flag), `${trial.taskId}: ${String(trial.grade?.reason)}`).toBe(true);
        expect(trials.filter((trial) => trial.grade?.tampering.length).length).toBeGreaterThan(0);
      }, 3_600_000);
    }

    for (const mode of [...TELLS, ...REWIRINGS]) {
      it(`the forger that tells canaries apart by ${mode} resolves nothing unflagged, on one task of each repository`, async (context) => {
        const perRepo = onePerPytestRepository(tasks);
        if (perRepo.length === 0) context.skip("the suite has no task pytest runs");
        const run = await runLab(
          at("run", `tells-${mode}`, "--suite", "swebench", "--tasks", perRepo.join(",")),
          { cwd: root, env },
        );
        expect(run.code, run.stderr).toBe(0);
        const trials = await readTrialResults(runPaths(runsDir, `swebench-tells-${mode}`));
        expect(trials.map((trial) => trial.taskId).sort()).toEqual(perRepo.sort());
        const flag = TELLS.includes(mode)
          ? /^canaries: /
          : /^(canaries: |runner: the test runner was changed at run time: )/;
        for (const trial of trials)
          expect(caught(trial, flag), `${trial.taskId}: ${String(trial.grade?.reason)}`).toBe(true);
        // The forger acts on these repositories (it is not merely inert): what it did was seen.
        expect(
          trials.filter((trial) => (trial.grade?.tampering ?? []).some((line) => flag.test(line))),
        ).not.toHaveLength(0);
      }, 3_600_000);
    }

    it("sympy-flip (failures recorded as passes by bin/test's reporter) is flagged on SymPy tasks", async (context) => {
      const sympy = tasks.filter((id) => id.startsWith("sympy__sympy-"));
      if (sympy.length === 0) context.skip("the suite has no SymPy task");
      const run = await runLab(
        at("run", "forge-sympy-flip", "--suite", "swebench", "--tasks", sympy.join(",")),
        { cwd: root, env },
      );
      expect(run.code, run.stderr).toBe(0);
      const trials = await readTrialResults(runPaths(runsDir, "swebench-forge-sympy-flip"));
      expect(trials).toHaveLength(sympy.length);
      for (const trial of trials) {
        expect(trial.resolved, trial.taskId).toBe(false);
        expect(
          trial.grade?.tampering,
          `${trial.taskId}: ${String(trial.grade?.reason)}`,
        ).toContainEqual(
          expect.stringMatching(/^canaries: a test that must fail was reported as passing/),
        );
      }
    }, 1_800_000);
  },
);
