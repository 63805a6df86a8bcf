import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError, removeTree, type Oracle, type Task } from "../core/index.js";
import { prepareEnvironment } from "../environment/index.js";
import { git } from "../git/index.js";
import { applyChange } from "./apply.js";
import { checkoutForGrade } from "./checkout.js";
import { preInstall } from "./install-project.js";
import { openGrade } from "./open-grade.js";
import { describePlan, isPythonPlan, planGrade, type GradeOptions } from "./plan.js";

/** A checkout of a task's base commit with its gold patch applied, for the oracle audit. */
export interface GoldCheckout {
  /** The checkout's folder. */
  readonly repo: string;
  /** The task's language: a Node task's checkout has no environment (the audit's JS mutator runs in lab). */
  readonly language: "python" | "js";
  /**
   * Runs a Python program with the task's own interpreter in the grade's sandbox (`-E -s -S`:
   * no site, no user or environment settings) with `input` on stdin, and returns what it wrote
   * to the file named by its first argument. A Node task's checkout refuses it.
   */
  runPython(script: string, input: string): Promise<string>;
  /**
   * The checkout's change as a grade would take it: a binary-safe diff against the base commit
   * with the task's pre-install steps run.
   */
  diff(): Promise<string>;
}

/**
 * Makes a gold checkout the way a grade makes its checkout (the task's setup.sh, the gold patch
 * applied by the grade's own steps, the era's environment and sandbox), lends it to `work`, and
 * removes it afterwards.
 */
export async function withGoldCheckout<T>(
  task: Task,
  oracle: Oracle,
  options: GradeOptions,
  work: (checkout: GoldCheckout) => Promise<T>,
): Promise<T> {
  const plan = planGrade(
    task,
    oracle,
    { patch: oracle.goldPatch },
    { ...options, canaries: false },
  );
  const { places } = plan;
  const goldMissing = (): LabError =>
    new LabError("PROOF_FAILED", `The gold patch of ${task.info.id} does not apply.`, {
      hint: `Prove the task first: lab gen --suite ${task.suite} --tasks ${task.info.id}.`,
    });
  if (!isPythonPlan(plan)) {
    // A Node task: the checkout and the gold patch only. Nothing of the checkout runs here, so
    // neither an environment nor a sandbox is made; lab's git reads the checkout's own.
    try {
      await writeFile(places.logFile, describePlan(plan));
      await checkoutForGrade(plan, options.signal);
      const gitEnv = { PATH: plan.machine.pathEnv };
      if ((await applyChange(plan, oracle.goldPatch, gitEnv, options.signal)) === null)
        throw goldMissing();
      const baseline = task.info.baseCommit;
      return await work({
        repo: places.repo,
        language: "js",
        runPython: () =>
          Promise.reject(
            new LabError("TASK_INVALID", `${task.info.id} is a Node task: it has no Python.`),
          ),
        diff: () =>
          git(["diff", "--binary", "--no-ext-diff", "--no-color", baseline], {
            cwd: places.repo,
            env: gitEnv,
          }),
      });
    } finally {
      if (!plan.keepScratch) await removeTree(places.scratchDir);
    }
  }
  try {
    await writeFile(places.logFile, describePlan(plan));
    await checkoutForGrade(plan, options.signal);
    const prepared = await prepareEnvironment(plan.environment, plan.machine);
    const open = await openGrade(plan, prepared, options.signal);
    // As in a grade: the change meets the checkout after the pre-install steps, and variants
    // are diffs against the state those steps left.
    const baseline = await preInstall(plan, open, options.signal);
    if ((await applyChange(plan, oracle.goldPatch, open.gitEnv, options.signal)) === null)
      throw goldMissing();
    const python = path.join(open.gradeEnv.venv, "bin", "python");
    const output = path.join(places.tmp, "lab-python-output");
    return await work({
      repo: places.repo,
      language: "python",
      async runPython(script, input) {
        await rm(output, { force: true });
        const result = await open.confinement.phase([], (sandbox) =>
          sandbox.exec([python, "-E", "-s", "-S", "-c", script, output], {
            cwd: places.tmp,
            env: open.runEnv,
            timeoutMs: plan.limits.installMs,
            input,
            logFile: places.logFile,
            signal: options.signal,
          }),
        );
        if (result.exitCode !== 0)
          throw new LabError(
            "ENVIRONMENT_FAILED",
            `Python ${plan.environment.python} failed on ${task.info.id}'s gold checkout (exit ${String(result.exitCode)}): ${result.stderrTail.trim().split("\n").at(-1) ?? ""}`,
            { hint: `See ${places.logFile}.` },
          );
        return readFile(output, "utf8");
      },
      diff: () =>
        git(["diff", "--binary", "--no-ext-diff", "--no-color", baseline], {
          cwd: places.repo,
          env: open.gitEnv,
        }),
    });
  } finally {
    if (!plan.keepScratch) await removeTree(places.scratchDir);
  }
}
