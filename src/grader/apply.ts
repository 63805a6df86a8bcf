import { writeFile } from "node:fs/promises";
import path from "node:path";
import { tryGit } from "../git/index.js";
import { runCommand } from "../process/index.js";
import { captureWorkTree, type CapturedChange } from "./capture.js";
import type { GradingPlan } from "./plan.js";

/**
 * The change as a diff: the stated patch, or the work tree's diff against the base commit
 * (`capture.ts`), with what was left out of it.
 */
export async function readChange(plan: GradingPlan): Promise<CapturedChange> {
  const { change, places } = plan;
  return "patch" in change
    ? { patch: change.patch, leftOut: [] }
    : captureWorkTree({
        workTree: change.workTree,
        gitDir: path.join(places.repo, ".git"),
        baseCommit: plan.task.info.baseCommit,
        scratchDir: places.scratchDir,
        pathEnv: plan.machine.pathEnv,
      });
}

/**
 * Applies a change to the checkout with the plan's fallbacks, cleaning the tree between
 * attempts; returns the method that worked, "already applied", or null. `gitEnv` names the
 * checkout's git directory (moved out of it): the pre-install steps have run in the checkout
 * by now, so lab's git never takes its git directory, or its config and filters, from there.
 */
export async function applyChange(
  plan: GradingPlan,
  patch: string,
  gitEnv: Readonly<Record<string, string>>,
  signal: AbortSignal | undefined,
): Promise<string | null> {
  const { repo, scratchDir, logFile } = plan.places;
  const patchFile = path.join(scratchDir, "change.diff");
  const env = { ...gitEnv, PATH: plan.machine.pathEnv };
  await writeFile(patchFile, patch.endsWith("\n") ? patch : `${patch}\n`);
  for (const method of plan.apply) {
    const argv = [...method, patchFile];
    const [program, ...args] = argv;
    const result =
      program === "git"
        ? await tryGit(args, { cwd: repo, env, logFile, signal })
        : await runCommand(argv, {
            cwd: repo,
            env: { PATH: plan.machine.pathEnv },
            timeoutMs: 120_000,
            logFile,
            ...(signal === undefined ? {} : { signal }),
          });
    if (result.exitCode === 0) return method.join(" ");
    // Clean the tree between attempts so a half-applied patch never meets the next method.
    await tryGit(["checkout", "--", "."], { cwd: repo, env });
    await tryGit(["clean", "-fdq"], { cwd: repo, env });
  }
  const reverse = await tryGit(["apply", "--check", "--reverse", patchFile], { cwd: repo, env });
  return reverse.exitCode === 0 ? "already applied" : null;
}
