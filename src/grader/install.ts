import { appendFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { LabError, quoteShell, type Oracle, type Task } from "../core/index.js";
import {
  addStandIns,
  createGradeEnvironment,
  removeStandIns,
  type GradeEnvironment,
  type PreparedEnvironment,
} from "../environment/index.js";
import { checkoutForGrade } from "./checkout.js";
import { confineGrade, type GradeConfinement } from "./confine.js";
import {
  captureInstallLayer,
  installLayerKey,
  isEditableInstall,
  readInstallLayer,
  readRepoState,
  restoreInstallLayer,
  stampTree,
  type InstallLayer,
} from "./install-layer.js";
import { installAffectedBy, listChangedPaths } from "./install-scope.js";
import type { GradeOptions } from "./grade.js";

/** A grade's places and the confinement its graded commands run in. */
export interface OpenGrade {
  readonly scratchDir: string;
  readonly repo: string;
  readonly prepared: PreparedEnvironment;
  readonly gradeEnv: GradeEnvironment;
  readonly confinement: GradeConfinement;
  /** Names the checkout's git directory (moved out of the checkout) for lab's own git. */
  readonly gitEnv: Readonly<Record<string, string>>;
  /** The environment of every graded command. */
  readonly runEnv: Readonly<Record<string, string>>;
}

/**
 * Makes the per-grade venv, HOME and /tmp under `scratchDir`, and the confinement of the
 * commands that run the checkout's code. The checkout must be at `scratchDir/repo`.
 */
export async function openGrade(
  task: Task,
  oracle: Oracle,
  prepared: PreparedEnvironment,
  scratchDir: string,
  options: GradeOptions,
): Promise<OpenGrade> {
  const repo = path.join(scratchDir, "repo");
  const home = path.join(scratchDir, "home");
  // A /tmp of the grade's own: concurrent grades of one repository would otherwise share
  // pytest's basetemp (/tmp/pytest-of-USER) and delete each other's folders.
  const tmp = path.join(scratchDir, "tmp");
  await mkdir(home, { recursive: true });
  await mkdir(tmp, { recursive: true });
  const gradeEnv = await createGradeEnvironment(prepared, scratchDir, {
    pathEnv: options.environment.pathEnv,
    timeoutMs: options.installTimeoutMs,
    signal: options.signal,
  });
  const commandEnv: Record<string, string> = {
    ...gradeEnv.env,
    ...oracle.environment.env,
    HOME: home,
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TZ: "UTC",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  // From here the checkout's code runs (its setup.py or build backend, its package, its
  // conftest.py): in a sandbox, and with the checkout's git directory out of its reach.
  const confinement = await confineGrade({
    sandbox: options.sandbox,
    task,
    environment: options.environment,
    scratchDir,
    repo,
    home,
    pathEnv: commandEnv.PATH ?? options.environment.pathEnv,
    prepared,
    gradeEnv,
  });
  return {
    scratchDir,
    repo,
    prepared,
    gradeEnv,
    confinement,
    gitEnv: { GIT_DIR: confinement.gitDir, GIT_WORK_TREE: repo },
    runEnv: { ...commandEnv, ...confinement.env },
  };
}

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
  open: OpenGrade,
  commands: readonly string[],
  options: GradeOptions & { readonly standIns: boolean },
): Promise<boolean> {
  if (commands.length === 0) return true;
  const log = (text: string): Promise<void> => appendFile(options.logFile, `${text}\n`);
  const standIns = options.standIns
    ? await addStandIns(open.prepared.sitePackages, open.gradeEnv.sitePackages)
    : [];
  try {
    return await open.confinement.phase([], async (sandbox) => {
      const result = await sandbox.exec(["bash", "-c", installScript(commands)], {
        cwd: open.repo,
        env: open.runEnv,
        timeoutMs: options.installTimeoutMs,
        logFile: options.logFile,
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
 * The install phase of a grade whose checkout holds the change: the spec's pre-install steps
 * and install, as upstream's eval script runs them. When the change leaves the install alone
 * (`install-scope.ts`) and the install is editable, the install of the base commit stands for
 * it: it is made once per base commit and environment, by a trusted install in a checkout of
 * its own, kept in lab's cache (`install-layer.ts`), and its files are put into each such grade
 * in a few milliseconds instead of a build of seconds. The pre-install steps still run.
 * Returns how the project was installed.
 */
export async function installChange(
  task: Task,
  oracle: Oracle,
  open: OpenGrade,
  options: GradeOptions,
  timed: <T>(phase: string, work: () => Promise<T>) => Promise<T>,
): Promise<"fresh" | "reused"> {
  const spec = oracle.environment;
  const log = (text: string): Promise<void> => appendFile(options.logFile, `${text}\n`);
  const choice = await timed("layer", () => chooseLayer(task, oracle, open, options));
  return timed("install", async () => {
    let steps = [...spec.preInstall, spec.install];
    let why = "reason" in choice ? choice.reason : "";
    if ("layer" in choice) {
      await runInstallSteps(open, spec.preInstall, { ...options, standIns: false });
      const blocked = await restoreInstallLayer(choice.layer, {
        scratchDir: open.scratchDir,
        venv: open.gradeEnv.venv,
        repo: open.repo,
      });
      if (blocked === null) {
        await log(
          `lab: the change leaves the install alone, so the base commit's install (layer ${choice.layer.key}) stands for it`,
        );
        return "reused";
      }
      steps = [spec.install];
      why = `the base commit's install cannot be put in: ${blocked}`;
    }
    await log(`lab: installing the change: ${why}`);
    await runInstallSteps(open, steps, { ...options, standIns: true });
    return "fresh";
  });
}

/** The layer a grade can reuse, made now if need be, or why it installs the change itself. */
async function chooseLayer(
  task: Task,
  oracle: Oracle,
  open: OpenGrade,
  options: GradeOptions,
): Promise<{ layer: InstallLayer } | { reason: string }> {
  const spec = oracle.environment;
  if (!isEditableInstall(spec.install))
    return { reason: "the install is not editable, so it copies the change's code" };
  const { changes, baseDirs } = await listChangedPaths(
    open.repo,
    task.info.baseCommit,
    open.gitEnv,
  );
  const affected = installAffectedBy(changes, baseDirs);
  if (affected !== null) return { reason: affected };
  const key = await installLayerKey({
    repo: task.info.repo,
    baseCommit: task.info.baseCommit,
    environmentKey: open.prepared.key,
    sitePackages: open.prepared.sitePackages,
    spec,
    uv: open.prepared.uv,
  });
  let layer: InstallLayer | { unusable: string } | null = await readInstallLayer(
    options.environment.cacheDir,
    key,
  );
  try {
    layer ??= await buildInstallLayer(task, oracle, open.prepared, key, options);
  } catch (error) {
    // The grade can still install the change itself; only a cancel ends it.
    if (
      options.signal?.aborted === true ||
      (error instanceof LabError && error.code === "CANCELLED")
    )
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
  task: Task,
  oracle: Oracle,
  prepared: PreparedEnvironment,
  key: string,
  options: GradeOptions,
): Promise<InstallLayer | { unusable: string }> {
  const spec = oracle.environment;
  const scratchDir = path.join(options.scratchDir, "base-install");
  await appendFile(
    options.logFile,
    "lab: installing the base commit once, in a checkout of its own, to reuse for changes that leave the install alone\n",
  );
  try {
    await checkoutForGrade(task, scratchDir, {
      pathEnv: options.environment.pathEnv,
      timeoutMs: options.setupTimeoutMs,
      logFile: options.logFile,
      signal: options.signal,
    });
    const open = await openGrade(task, oracle, prepared, scratchDir, {
      ...options,
      scratchDir,
    });
    await runInstallSteps(open, spec.preInstall, { ...options, standIns: false });
    const venvBefore = await stampTree(open.gradeEnv.venv);
    const repoBefore = await readRepoState(open.repo, task.info.baseCommit, open.gitEnv);
    const installed = await runInstallSteps(open, [spec.install], { ...options, standIns: true });
    // A failure may be passing (the network, a timeout): nothing is kept, the next grade tries.
    if (!installed) return { unusable: "the install of the base commit failed" };
    return await captureInstallLayer(options.environment.cacheDir, key, {
      scratchDir,
      repo: open.repo,
      venv: open.gradeEnv.venv,
      baseCommit: task.info.baseCommit,
      gitEnv: open.gitEnv,
      venvBefore,
      repoBefore,
    });
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}
