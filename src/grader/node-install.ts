/**
 * A Node grade's install: the frozen install of the project's package manager, with the base
 * commit's `node_modules` kept in lab's cache by Node, package manager and lockfile
 * (`nodeInstallKey`) and copied into each grade whose change leaves what the install reads alone
 * (`nodeInstallInputs`). See docs/design/node-runtime.md ("How a JS task is graded").
 */
import { existsSync } from "node:fs";
import { appendFile, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError, quoteShell, type PhaseTimer } from "../core/index.js";
import { nodeCacheDir, nodeInstallInputs, nodeInstallKey } from "../environment/index.js";
import { runCommand } from "../process/index.js";
import { checkoutForGrade } from "./checkout.js";
import { removeInside } from "./grade-sandbox.js";
import { installScript } from "./install-project.js";
import { BASE_INSTALL_FOLDER } from "./install-layer.js";
import { listChangedPaths } from "./install-scope.js";
import { openNodeGrade, type NodeOpenGrade } from "./node-open.js";
import { placesUnder, type NodeGradingPlan } from "./plan.js";

/** Written last into a cached install's folder: a folder without it is not used. */
const COMPLETE = ".lab-complete";

/** Written instead of the install when the base commit's install cannot be kept (says why). */
const UNUSABLE = "unusable.txt";

/** Where lab keeps the base commits' installs of JS projects. */
export function nodeInstallsDir(cacheDir: string): string {
  return path.join(nodeCacheDir(cacheDir), "installs");
}

/**
 * Installs the project in the grade's checkout (which holds the change): the cached install of
 * the base commit, copied in, when the applied change leaves package.json, the lockfiles and
 * the manager's settings alone; else the frozen install, run in the grade's sandbox over the
 * change. grader.log says which and why. Returns how the project was installed.
 */
export async function installNodeProject(
  plan: NodeGradingPlan,
  open: NodeOpenGrade,
  timer: PhaseTimer,
  signal: AbortSignal | undefined,
): Promise<"fresh" | "reused"> {
  const log = (text: string): Promise<void> => appendFile(plan.places.logFile, `${text}\n`);
  const choice = await timer.timed("layer", () => chooseNodeInstall(plan, open, signal));
  return timer.timed("install", async () => {
    if ("dir" in choice) {
      let copied: string | null = null;
      for (const folder of await listNodeModulesFolders(choice.dir)) {
        await removeInside(plan.places.repo, folder);
        copied ??= await copyTree(
          path.join(choice.dir, folder),
          path.join(plan.places.repo, folder),
          signal,
        );
      }
      if (copied === null) {
        await log(
          `lab: the change leaves the install's inputs alone, so the base commit's install (node install ${choice.key}) is copied in`,
        );
        return "reused";
      }
      await log(`lab: the base commit's install could not be copied in: ${copied}`);
      await removeInside(plan.places.repo, "node_modules");
    }
    await log(`lab: installing the change: ${"reason" in choice ? choice.reason : "see above"}`);
    await runNodeInstall(plan, open, signal);
    return "fresh";
  });
}

/** Runs the project's frozen install in a plan's checkout, in its sandbox; whether it succeeded. */
async function runNodeInstall(
  plan: NodeGradingPlan,
  open: NodeOpenGrade,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const { upstream } = plan.js;
  const run = (commands: readonly string[]): Promise<boolean> =>
    open.confinement.phase([], async (sandbox) => {
      const result = await sandbox.exec(["bash", "-c", installScript(commands)], {
        cwd: plan.places.repo,
        env: { ...open.runEnv, ...unlockedResolution(plan, open) },
        timeoutMs: plan.limits.installMs,
        logFile: plan.places.logFile,
        signal,
      });
      if (result.aborted)
        throw new LabError("CANCELLED", "Cancelled while installing the project.");
      if (result.timedOut) await appendFile(plan.places.logFile, "lab: the install timed out\n");
      return result.exitCode === 0;
    });
  if (upstream === null) return run([open.choice.install.map(quoteShell).join(" ")]);
  if (!(await run(upstream.install))) return false;
  // Upstream's image builds after the install. Only node_modules is kept, and the build runs
  // again after the test patch, so a failed build (immutable-js's stats step asks
  // bundlephobia.com, unreachable here) does not fail the install; the tests show its effect.
  if (upstream.build.length > 0 && !(await run(upstream.build)))
    await appendFile(
      plan.places.logFile,
      "lab: the build failed; the install stands (only node_modules is kept, and the build runs again after the test patch)\n",
    );
  return true;
}

/**
 * Upstream's `npm install` of a project without a lockfile resolves its dependencies as of the
 * grade; lab resolves them as of the instance's day instead (npm's `before`), so every grade of
 * the task installs the same tree. Other managers have no such setting (nor do these projects
 * lack a lockfile); a project with a lockfile follows it.
 */
function unlockedResolution(plan: NodeGradingPlan, open: NodeOpenGrade): Record<string, string> {
  const createdAt = plan.task.info.metadata.createdAt;
  if (plan.js.upstream === null || open.choice.lockfile !== null || open.manager.name !== "npm")
    return {};
  if (typeof createdAt !== "string" || Number.isNaN(Date.parse(createdAt))) return {};
  return { npm_config_before: new Date(createdAt).toISOString() };
}

/** The cached install a grade can copy in, made now if need be, or why it installs itself. */
async function chooseNodeInstall(
  plan: NodeGradingPlan,
  open: NodeOpenGrade,
  signal: AbortSignal | undefined,
): Promise<{ dir: string; key: string } | { reason: string }> {
  const { baseCommit } = plan.task.info;
  const { changes } = await listChangedPaths(plan.places.repo, baseCommit, open.gitEnv);
  const touched = nodeInstallInputs(changes.map((change) => change.path));
  if (touched.length > 0)
    return { reason: `the change touches ${touched.join(", ")}, which the install reads` };
  const { choice, files } = open;
  if (choice.lockfile === null)
    return { reason: "the project has no lockfile, so its install is not kept" };
  const key = nodeInstallKey(
    open.runtime.version,
    { name: open.manager.name, version: open.manager.version },
    files[choice.lockfile] ?? null,
    files["package.json"] ?? null,
    plan.js.upstream === null
      ? undefined
      : [...plan.js.upstream.install, ...plan.js.upstream.build],
  );
  const dir = path.join(nodeInstallsDir(plan.machine.cacheDir), key);
  if (!existsSync(path.join(dir, COMPLETE))) {
    try {
      await buildNodeInstall(plan, dir, signal);
    } catch (error) {
      if (signal?.aborted === true || (error instanceof LabError && error.code === "CANCELLED"))
        throw error;
      return {
        reason: `installing the base commit failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  if (existsSync(path.join(dir, UNUSABLE)))
    return { reason: `the base commit's install (node install ${key}) cannot be reused` };
  if (!existsSync(path.join(dir, COMPLETE)))
    return { reason: "the install of the base commit failed" };
  return { dir, key };
}

/**
 * Installs the base commit in a checkout of its own (under the grade's scratch folder, in the
 * same sandbox as a grade) and keeps its `node_modules` at `dir`. Only the base commit's code
 * runs there, never a change's, so the cached install is as trusted as the runtime. Built in a
 * staging folder and renamed in; a grade that loses the race keeps the other's. A failed
 * install keeps nothing, so the next grade tries again.
 */
async function buildNodeInstall(
  plan: NodeGradingPlan,
  dir: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const base: NodeGradingPlan = {
    ...plan,
    places: placesUnder(
      path.join(plan.places.scratchDir, BASE_INSTALL_FOLDER),
      plan.places.logFile,
    ),
  };
  await appendFile(
    plan.places.logFile,
    "lab: installing the base commit once, in a checkout of its own, to reuse for changes that leave the install alone\n",
  );
  const staging = `${dir}.staging-${String(process.pid)}-${String(Date.now())}`;
  try {
    await checkoutForGrade(base, signal);
    const open = await openNodeGrade(base, signal);
    if (!(await runNodeInstall(base, open, signal))) return;
    await mkdir(staging, { recursive: true });
    const folders = await listNodeModulesFolders(base.places.repo);
    if (folders.length > 0) {
      for (const folder of folders) {
        await mkdir(path.dirname(path.join(staging, folder)), { recursive: true });
        const failed = await copyTree(
          path.join(base.places.repo, folder),
          path.join(staging, folder),
          signal,
        );
        if (failed !== null) throw new Error(failed);
      }
    } else if (existsSync(path.join(base.places.repo, ".pnp.cjs"))) {
      // yarn berry's Plug'n'Play keeps no node_modules: nothing of it can be copied in.
      await writeFile(path.join(staging, UNUSABLE), "Plug'n'Play installs are not kept\n");
    } else {
      // A project without dependencies: npm may make no node_modules at all.
      await mkdir(path.join(staging, "node_modules"));
    }
    await writeFile(path.join(staging, COMPLETE), "");
    try {
      await rename(staging, dir);
    } catch {
      // Another grade renamed its copy in first: keep that one.
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(base.places.scratchDir, { recursive: true, force: true });
  }
}

/** How deep a workspace package's `node_modules` is looked for (`packages/a/b/node_modules`). */
const NODE_MODULES_DEPTH = 4;

/**
 * The `node_modules` folders of an installed checkout (or of a cached install), relative:
 * the root's, and a workspace package's (pnpm links each package's dependencies in its own),
 * never one inside another or under `.git`.
 */
export async function listNodeModulesFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true }).catch(
      () => [],
    );
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === ".git") continue;
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.name === "node_modules") found.push(child);
      else if (depth < NODE_MODULES_DEPTH) await walk(child, depth + 1);
    }
  };
  await walk("", 0);
  return found.sort();
}

/**
 * Copies a folder tree by lab's own `cp -a` (links kept as links; a copy on write where the
 * file system can), on the host: the copy never shares a file with lab's cache, so nothing a
 * grade's code writes reaches a later grade. Returns null, or why it failed.
 */
async function copyTree(
  from: string,
  to: string,
  signal: AbortSignal | undefined,
): Promise<string | null> {
  const result = await runCommand(["cp", "-a", "--reflink=auto", from, to], {
    env: { PATH: "/usr/bin:/bin" },
    timeoutMs: 10 * 60_000,
    signal,
  });
  return result.exitCode === 0
    ? null
    : `cp exited with ${String(result.exitCode)}: ${result.stderrTail.trim()}`;
}
