import { appendFile, rm } from "node:fs/promises";
import path from "node:path";
import { LabError, quoteShell, type PhaseTimer } from "../core/index.js";
import { git } from "../git/index.js";
import { addStandIns, removeStandIns, type PreparedEnvironment } from "../environment/index.js";
import { checkoutForGrade } from "./checkout.js";
import {
  BASE_INSTALL_FOLDER,
  captureInstallLayer,
  installLayerKey,
  readInstallLayer,
  readRepoState,
  restoreInstallLayer,
  stampTree,
  type InstallLayer,
} from "./install-layer.js";
import { installAffectedBy, listChangedPaths } from "./install-scope.js";
import { openGrade, type OpenGrade } from "./open-grade.js";
import { placesUnder, type GradingPlan, type PythonGradingPlan } from "./plan.js";

/**
 * Runs install commands in the grade's sandbox as the lines of one bash script, the way
 * upstream's scripts run them (a `cd` carries over). Like upstream's eval script (no `set -e`),
 * a failed command goes on to the next and the tests, which then fail on their own; the log
 * shows each command (`+ command`) and each failure (`lab: install step exited with N`). With
 * `standIns`, the pins count as installed for the install's resolver, as in upstream's images;
 * the stand-ins are removed once the install's processes are gone. Returns whether every
 * command succeeded.
 */
export async function runInstallSteps(
  plan: GradingPlan,
  open: OpenGrade,
  commands: readonly string[],
  options: { readonly standIns: boolean; readonly signal: AbortSignal | undefined },
): Promise<boolean> {
  if (commands.length === 0) return true;
  const { logFile } = plan.places;
  const log = (text: string): Promise<void> => appendFile(logFile, `${text}\n`);
  const standIns = options.standIns
    ? await addStandIns(open.prepared.sitePackages, open.gradeEnv.sitePackages)
    : [];
  try {
    return await open.confinement.phase([], async (sandbox) => {
      const result = await sandbox.exec(["bash", "-c", installScript(commands)], {
        cwd: plan.places.repo,
        env: open.runEnv,
        timeoutMs: plan.limits.installMs,
        logFile,
        signal: options.signal,
      });
      if (result.aborted)
        throw new LabError("CANCELLED", "Cancelled while installing the project.");
      if (result.exitCode === 0) return true;
      if (result.exitCode !== INSTALL_STEP_FAILED)
        await log(
          `lab: install step exited with ${String(result.exitCode ?? result.signal)}${result.timedOut ? " (timed out)" : ""}`,
        );
      return false;
    });
  } finally {
    await removeStandIns(open.gradeEnv.sitePackages, standIns);
  }
}

/** The exit status of an install script one of whose commands failed (and which went on). */
const INSTALL_STEP_FAILED = 97;

/**
 * One bash script running `commands` in order: each is echoed first, and a failure is logged
 * and remembered, not fatal. Everything goes to one stream, so the log keeps its order.
 */
export function installScript(commands: readonly string[]): string {
  const lines = ["exec 1>&2", "lab_failed=0"];
  for (const command of commands) {
    lines.push(
      `printf '+ %s\\n' ${quoteShell(command)}`,
      command,
      `lab_status=$?; if [ "$lab_status" -ne 0 ]; then echo "lab: install step exited with $lab_status"; lab_failed=1; fi`,
    );
  }
  lines.push(`[ "$lab_failed" -eq 0 ] || exit ${String(INSTALL_STEP_FAILED)}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Runs the plan's pre-install steps on the fresh checkout before the change is applied, as
 * upstream's image has them run before a prediction meets the repository, and returns what the
 * change is then measured against: a commit (reachable from no ref) of the checkout as the
 * steps left it, every file staged, so the apply's clean-ups between fallbacks keep their edits;
 * or the base commit itself when there are no steps.
 */
export async function preInstall(
  plan: PythonGradingPlan,
  open: OpenGrade,
  signal: AbortSignal | undefined,
): Promise<string> {
  const { baseCommit } = plan.task.info;
  if (plan.install.preInstall.length === 0) return baseCommit;
  await runInstallSteps(plan, open, plan.install.preInstall, { standIns: false, signal });
  const options = { cwd: plan.places.repo, env: open.gitEnv, signal };
  // --force: a file the steps wrote that .gitignore names is theirs too, not the change's.
  await git(["add", "--all", "--force"], options);
  const tree = (await git(["write-tree"], options)).trim();
  return (
    await git(["commit-tree", tree, "-p", baseCommit, "-m", "lab: the pre-install steps"], options)
  ).trim();
}

/**
 * The install step of a grade whose checkout holds the change (over the pre-install steps'
 * edits): the plan's install command, as upstream's eval script runs it. When the plan allows
 * it (an editable install) and the applied change leaves the install alone against `baseline`
 * (`install-scope.ts`), the install of the base commit stands for it: it is made once per base
 * commit and environment, by a trusted install in a checkout of its own, kept in lab's cache
 * (`install-layer.ts`), and its files are put into each such grade in a few milliseconds
 * instead of a build of seconds. Returns how the project was installed.
 */
export async function installProject(
  plan: PythonGradingPlan,
  open: OpenGrade,
  baseline: string,
  timer: PhaseTimer,
  signal: AbortSignal | undefined,
): Promise<"fresh" | "reused"> {
  const { install } = plan;
  const log = (text: string): Promise<void> => appendFile(plan.places.logFile, `${text}\n`);
  const choice = await timer.timed("layer", () => chooseLayer(plan, open, baseline, signal));
  return timer.timed("install", async () => {
    let why = "reason" in choice ? choice.reason : "";
    if ("layer" in choice) {
      const blocked = await restoreInstallLayer(choice.layer, {
        scratchDir: plan.places.scratchDir,
        venv: open.gradeEnv.venv,
        repo: plan.places.repo,
      });
      if (blocked === null) {
        await log(
          `lab: the change leaves the install alone, so the base commit's install (layer ${choice.layer.key}) stands for it`,
        );
        return "reused";
      }
      why = `the base commit's install cannot be put in: ${blocked}`;
    }
    await log(`lab: installing the change: ${why}`);
    await runInstallSteps(plan, open, [install.command], { standIns: true, signal });
    return "fresh";
  });
}

/** The layer a grade can reuse, made now if need be, or why it installs the change itself. */
async function chooseLayer(
  plan: PythonGradingPlan,
  open: OpenGrade,
  baseline: string,
  signal: AbortSignal | undefined,
): Promise<{ layer: InstallLayer } | { reason: string }> {
  if (!plan.install.reuse.allowed) return { reason: plan.install.reuse.why };
  const { baseCommit, repo } = plan.task.info;
  const { changes, baseDirs } = await listChangedPaths(plan.places.repo, baseline, open.gitEnv);
  const affected = installAffectedBy(changes, baseDirs);
  if (affected !== null) return { reason: affected };
  const key = await installLayerKey({
    repo,
    baseCommit,
    environmentKey: open.prepared.key,
    sitePackages: open.prepared.sitePackages,
    spec: plan.environment,
    uv: open.prepared.uv,
  });
  let layer: InstallLayer | { unusable: string } | null = await readInstallLayer(
    plan.machine.cacheDir,
    key,
  );
  try {
    layer ??= await buildInstallLayer(plan, open.prepared, key, signal);
  } catch (error) {
    // The grade can still install the change itself; only a cancel ends it.
    if (signal?.aborted === true || (error instanceof LabError && error.code === "CANCELLED"))
      throw error;
    return {
      reason: `installing the base commit failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if ("unusable" in layer)
    return { reason: `the base commit's install cannot be reused: ${layer.unusable}` };
  return { layer };
}

/**
 * Installs the base commit in a checkout of its own (under the grade's scratch folder, in the
 * same sandbox a grade uses) and keeps what the install wrote as the layer `key`. Only the base
 * commit's code runs here, never a change's, so the layer is as trusted as the environment.
 */
async function buildInstallLayer(
  plan: PythonGradingPlan,
  prepared: PreparedEnvironment,
  key: string,
  signal: AbortSignal | undefined,
): Promise<InstallLayer | { unusable: string }> {
  const base: PythonGradingPlan = {
    ...plan,
    places: placesUnder(
      path.join(plan.places.scratchDir, BASE_INSTALL_FOLDER),
      plan.places.logFile,
    ),
  };
  const { baseCommit } = plan.task.info;
  await appendFile(
    plan.places.logFile,
    "lab: installing the base commit once, in a checkout of its own, to reuse for changes that leave the install alone\n",
  );
  try {
    await checkoutForGrade(base, signal);
    const open = await openGrade(base, prepared, signal);
    await runInstallSteps(base, open, plan.install.preInstall, { standIns: false, signal });
    const venvBefore = await stampTree(open.gradeEnv.venv);
    const repoBefore = await readRepoState(base.places.repo, baseCommit, open.gitEnv);
    const installed = await runInstallSteps(base, open, [plan.install.command], {
      standIns: true,
      signal,
    });
    // A failure may be passing (the network, a timeout): nothing is kept, the next grade tries.
    if (!installed) return { unusable: "the install of the base commit failed" };
    return await captureInstallLayer(plan.machine.cacheDir, key, {
      scratchDir: base.places.scratchDir,
      repo: base.places.repo,
      venv: open.gradeEnv.venv,
      baseCommit,
      gitEnv: open.gitEnv,
      venvBefore,
      repoBefore,
    });
  } finally {
    await rm(base.places.scratchDir, { recursive: true, force: true });
  }
}
