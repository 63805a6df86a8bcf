/**
 * The canaries on real SWE-bench tasks (opt-in: set LAB_MIRRORS). Gold is never flagged on any
 * kept task of the suite, and the forgers are caught. The suite is LAB_SWEBENCH_EVALS_DIR's
 * `swebench` suite when set (e.g. the full tier), else three instances generated here from
 * LAB_SWEBENCH_DATASET (a rows file, as `lab gen --dataset` takes) or Hugging Face.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteShell } from "../../src/core/index.js";
import { readTrialResults, runPaths } from "../../src/store/index.js";
import { runLab } from "../helpers/lab.js";
import { outsideTmpRoot } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { HOSTILE_DIR } from "./helpers.js";

const mirrors = process.env.LAB_MIRRORS;
const INSTANCES = ["psf__requests-1963", "pallets__flask-4045", "sympy__sympy-24152"];
/** Repositories whose tests pytest does not run: the pytest forgers have nothing to rewrite. */
const NOT_PYTEST = /^(sympy__sympy|django__django)-/;

describe.runIf(mirrors !== undefined && mirrors !== "" && hasBwrap())(
  "canaries on SWE-bench tasks",
  () => {
    const root = mkdtempSync(path.join(outsideTmpRoot, "hostile-swebench-"));
    afterAll(() => {
      rmSync(root, { recursive: true, force: true });
    });
    const evalsDir = process.env.LAB_SWEBENCH_EVALS_DIR ?? path.join(root, "evals");
    const runsDir = path.join(root, "runs");
    const env = { LAB_SCRATCH_DIR: path.join(root, "scratch") };
    const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runsDir];
    let tasks: string[] = [];

    beforeAll(async () => {
      if (process.env.LAB_SWEBENCH_EVALS_DIR === undefined) {
        const dataset = process.env.LAB_SWEBENCH_DATASET;
        const gen = await runLab(
          at(
            "gen",
            "--suite",
            "swebench",
            "--mirrors",
            mirrors ?? "",
            "--instances",
            ...INSTANCES,
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
          tools: Object.fromEntries(
            ["flip-failures", "print-all", "sympy-flip"].map((mode) => [
              `forge-${mode}`,
              {
                command: `bash ${quoteShell(path.join(HOSTILE_DIR, "forge.sh"))} ${mode}`,
                paths: [HOSTILE_DIR],
              },
            ]),
          ),
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

    for (const mode of ["flip-failures", "print-all"]) {
      it(`${mode} resolves nothing and is flagged wherever it acts, on one task of each repository`, async (context) => {
        // One task per repository: each repository lays out and names its test modules its own
        // way (pylint's unittest_*.py), and the canaries must find a place in every one.
        const perRepo = [
          ...new Map(
            tasks
              .filter((id) => !NOT_PYTEST.test(id))
              .map((id) => [id.replace(/-\d+$/, ""), id] as const),
          ).values(),
        ];
        if (perRepo.length === 0) context.skip("the suite has no task pytest runs");
        const run = await runLab(
          at("run", `forge-${mode}`, "--suite", "swebench", "--tasks", perRepo.join(",")),
          { cwd: root, env },
        );
        expect(run.code, run.stderr).toBe(0);
        const trials = await readTrialResults(runPaths(runsDir, `swebench-forge-${mode}`));
        expect(trials.map((trial) => trial.taskId).sort()).toEqual(perRepo.sort());
        for (const trial of trials) {
          expect(trial.resolved, trial.taskId).toBe(false);
          // Flagged, unless the forgery did nothing: in pytest's own repository the forger lands
          // in _pytest itself, imported before the module it patches, and the hidden tests then
          // fail honestly. A forgery that worked would have made them pass.
          const flagged = trial.grade?.tampering.some((line) => line.startsWith("canaries: "));
          const inert = /^\d+ of \d+ FAIL_TO_PASS tests failed: /.test(trial.grade?.reason ?? "");
          expect(
            flagged === true || (trial.taskId.startsWith("pytest-dev__pytest-") && inert),
            `${trial.taskId}: ${String(trial.grade?.reason)}`,
          ).toBe(true);
        }
        expect(trials.filter((trial) => trial.grade?.tampering.length).length).toBeGreaterThan(0);
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
