import { existsSync, realpathSync } from "node:fs";
import { lstat, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  LabError,
  type Sandbox,
  type SandboxLimits,
  type SandboxProvider,
  type Task,
} from "../core/index.js";
import type {
  EnvironmentOptions,
  GradeEnvironment,
  PreparedEnvironment,
} from "../environment/index.js";
import { createEnvMarker, killProcessesByEnvMarker } from "../process/index.js";
import { resolveSandboxProvider } from "../sandbox/index.js";
import { suiteDirOf } from "../suite/index.js";

/**
 * Where a grade runs the change's code (its install steps and the tests): a provider from the
 * same machinery as tools. bwrap confines it (docs/design/sandbox.md, "Grading"); none runs
 * it on the host as lab's user.
 */
export interface GradeSandbox {
  readonly provider: SandboxProvider;
  /** The user's home, never shown whole; default: os.homedir(). */
  readonly hostHome?: string | undefined;
  /**
   * Folders the graded code must never see besides those the grade knows of (the task's
   * evals folder, lab's cache, the grade's scratch): suites, runs, the scratch root. Only
   * PATH entries are checked against them; nothing else is shown unless bound below.
   */
  readonly hiddenPaths?: readonly string[] | undefined;
  /** Memory, disk and process limits of each graded command; default: none. */
  readonly limits?: SandboxLimits | undefined;
}

/** How one grade runs the change's code. */
export interface GradeConfinement {
  /** Variables every graded command gets: uv's cache of its own, the grade's marker. */
  readonly env: Readonly<Record<string, string>>;
  /** One line for the grading log: where the change's code runs. */
  readonly note: string;
  /** Runs one phase's commands in a sandbox of their own; `shown` adds lab's read-only folders. */
  phase<T>(shown: readonly string[], work: (sandbox: Sandbox) => Promise<T>): Promise<T>;
}

/**
 * Sets up the confinement of one grade, once the checkout holds the change and the per-grade
 * environment exists, before the change's code first runs.
 */
export async function confineGrade(options: {
  readonly sandbox: GradeSandbox | undefined;
  readonly task: Pick<Task, "oracleDir">;
  /** The task's Debian packages (its era environment's): docker adds them to its image. */
  readonly debianPackages: readonly string[];
  readonly environment: Pick<EnvironmentOptions, "cacheDir" | "pathEnv">;
  readonly scratchDir: string;
  readonly repo: string;
  /** The graded commands' HOME. */
  readonly home: string;
  /** The graded commands' PATH. */
  readonly pathEnv: string;
  /** What of lab's the graded commands run with: an interpreter and its environments, or a Node. */
  readonly toolchain: GradeToolchain;
}): Promise<GradeConfinement & { readonly gitDir: string }> {
  const choice = options.sandbox ?? {
    provider: await defaultGradeProvider(options.environment.pathEnv),
  };
  const gitDir = await moveGitDir(options.repo, options.scratchDir);
  const marker = createEnvMarker("LAB_GRADE_TOKEN");
  const places: ConfinedPlaces = {
    scratchDir: options.scratchDir,
    repo: options.repo,
    gitDir,
    toolchain: options.toolchain,
    pathEnv: options.pathEnv,
    readOnly: [],
    debianPackages: options.debianPackages,
  };
  const hidden = gradeHiddenPaths(options.task, options.environment.cacheDir, options.scratchDir);
  const { provider } = choice;
  return {
    gitDir,
    env: {
      // uv's cache is the grade's own: a shared one could be poisoned for later grades, and
      // uv cannot use a read-only one (astral-sh/uv#15934).
      UV_CACHE_DIR: path.join(options.home, ".cache", "uv"),
      // The venv is another mount in the sandbox: uv's hard links would fail over to copies.
      UV_LINK_MODE: "copy",
      [marker.name]: marker.value,
    },
    note: provider.isolatesFilesystem
      ? `lab: the install and the tests run in the ${provider.name} sandbox`
      : `lab: the install and the tests run on the host, unconfined (sandbox ${provider.name})`,
    async phase(shown, work) {
      const sandbox = await openGradeSandbox(
        choice,
        { ...places, readOnly: [...places.readOnly, ...shown] },
        hidden,
      );
      try {
        return await work(sandbox);
      } finally {
        await sandbox.dispose();
        // bwrap's PID namespace ends every process with its command. Without one, what left
        // its process group still carries the grade's marker (unless it cleared its environment).
        if (!sandbox.isolatesFilesystem) await killProcessesByEnvMarker(marker.name, marker.value);
      }
    },
  };
}

/**
 * What of lab's a grade's commands run with, by how the sandbox shows it: a Python grade's
 * cached environment and uv (read-only), its interpreter (checked like a tool's installation)
 * and its per-grade venv (read-write); a Node grade's runtime and package manager (read-only).
 */
export interface GradeToolchain {
  /** lab's trusted folders (in its cache, which is otherwise hidden): read-only. */
  readonly readOnly: readonly string[];
  /** Installations and user files outside lab's folders: read-only, refused like a tool's paths. */
  readonly toolPaths: readonly string[];
  /** Folders besides the checkout and the grade's /tmp the commands write (a venv). */
  readonly writable: readonly string[];
}

/** A Python grade's toolchain: its cached environment, uv, interpreter and per-grade venv. */
export function pythonToolchain(
  prepared: PreparedEnvironment,
  gradeEnv: GradeEnvironment,
): GradeToolchain {
  // <env>/lib/pythonX.Y/site-packages
  const cachedEnv = path.dirname(path.dirname(path.dirname(prepared.sitePackages)));
  return {
    readOnly: [
      cachedEnv,
      prepared.uv,
      ...pathsNamedBy({ ...gradeEnv.env, ...gradeEnv.testEnv }, ["UV_CONSTRAINT", "PYTHONPATH"]),
    ],
    toolPaths: [
      ...interpreterPrefixes(prepared.python.path),
      ...pathsNamedBy(gradeEnv.env, ["SSL_CERT_FILE"]),
    ],
    writable: [gradeEnv.venv],
  };
}

/** The places of one grade that its graded commands use. */
export interface ConfinedPlaces {
  /** The grade's scratch folder: its `home/` and `tmp/` become the commands' HOME and /tmp. */
  readonly scratchDir: string;
  /** The checkout: read-write. */
  readonly repo: string;
  /** The checkout's git directory, moved out of it: read-only, so lab's own git can trust it. */
  readonly gitDir: string;
  /** What of lab's the commands run with, and how each part is shown. */
  readonly toolchain: GradeToolchain;
  /** The commands' PATH; its folders are shown read-only, as a tool's are. */
  readonly pathEnv: string;
  /** lab's own files one phase's commands read (a services folder): read-only. */
  readonly readOnly: readonly string[];
  /** The task's Debian packages (a compiler, headers): docker adds them to its image. */
  readonly debianPackages: readonly string[];
}

const NO_LIMITS: SandboxLimits = { memoryMb: null, diskMb: null, maxProcesses: null };

let fallback: Promise<SandboxProvider> | undefined;

/**
 * The provider of a grade that was given none (`lab grade`, `lab gen`'s proofs, the bench):
 * bwrap when it can make a sandbox here, else none. Checked once per process.
 */
export function defaultGradeProvider(pathEnv: string): Promise<SandboxProvider> {
  fallback ??= (async () => {
    const bwrap = resolveSandboxProvider("bwrap", { pathEnv });
    try {
      await bwrap.checkReady();
      return bwrap;
    } catch {
      return resolveSandboxProvider("none");
    }
  })();
  return fallback;
}

/** The folders a grade always hides: the task's evals folder, lab's cache and its own scratch. */
export function gradeHiddenPaths(
  task: Pick<Task, "oracleDir">,
  cacheDir: string,
  scratchDir: string,
): string[] {
  return [path.dirname(suiteDirOf(task)), cacheDir, scratchDir];
}

/**
 * Makes the sandbox one phase of a grade runs its commands in. Under bwrap they see the system
 * and the PATH's folders read-only; the toolchain as it says (a Python grade's interpreter,
 * cached environment and uv read-only, its venv read-write; a Node grade's runtime and package
 * manager read-only); the checkout, HOME and /tmp read-write; the checkout's git directory and
 * lab's files read-only; and nothing else of the host.
 */
export async function openGradeSandbox(
  choice: GradeSandbox,
  places: ConfinedPlaces,
  hidden: readonly string[],
): Promise<Sandbox> {
  const { toolchain } = places;
  return choice.provider.create({
    workTree: places.repo,
    stateDir: places.scratchDir,
    readOnlyPaths: [places.gitDir, ...toolchain.readOnly, ...places.readOnly],
    // Checked like a tool's installation: refused if it holds the home or a hidden folder.
    toolPaths: toolchain.toolPaths,
    // The grade's TMPDIR is its tmp/ at its real path; bwrap also shows it at /tmp.
    writablePaths: [...toolchain.writable, path.join(places.scratchDir, "tmp")],
    hiddenPaths: [...hidden, ...(choice.hiddenPaths ?? [])],
    hostHome: choice.hostHome ?? os.homedir(),
    pathEnv: places.pathEnv,
    // The install fetches from the package index, and services listen on the host's loopback.
    network: true,
    limits: choice.limits ?? NO_LIMITS,
    debianPackages: places.debianPackages,
  });
}

/**
 * The installation folders of an interpreter (`<prefix>/bin/pythonX.Y`), as named and with
 * symlinks resolved: a venv's python links to the path as named, which may link further.
 */
function interpreterPrefixes(python: string): string[] {
  const prefixes = [path.dirname(path.dirname(python))];
  try {
    const real = path.dirname(path.dirname(realpathSync(python)));
    if (!prefixes.includes(real)) prefixes.push(real);
  } catch {
    // Gone: the venv fails on its own, with a clearer message.
  }
  return prefixes;
}

/**
 * Existing files and folders named by some variables (PATH-like lists), to show read-only. For
 * the variables lab sets itself, never the task's: those name places in the checkout.
 */
export function pathsNamedBy(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string[] {
  const found: string[] = [];
  for (const name of names) {
    for (const entry of (env[name] ?? "").split(path.delimiter)) {
      if (path.isAbsolute(entry) && existsSync(entry) && !found.includes(entry)) found.push(entry);
    }
  }
  return found;
}

/**
 * Moves a checkout's git directory to `<scratch>/git`, leaving a `.git` file that names it:
 * git still works in the checkout, the folder can be shown read-only, and lab's own git names
 * it by `GIT_DIR`, so nothing the change's code writes into the checkout steers it.
 */
async function moveGitDir(repo: string, scratchDir: string): Promise<string> {
  const inside = path.join(repo, ".git");
  const gitDir = path.join(scratchDir, "git");
  if (!(await lstat(inside)).isDirectory()) {
    throw new LabError("SETUP_FAILED", `The grading checkout's .git in ${repo} is not a folder.`, {
      hint: "Make the task's setup.sh create an ordinary repository (git init or git clone).",
    });
  }
  await rename(inside, gitDir);
  await writeFile(inside, `gitdir: ${gitDir}\n`);
  return gitDir;
}

/**
 * Removes `relative` under `root` without following a symlink on the way: the change's code may
 * have made `tests` a link to a folder of the host. Such a link is removed instead.
 */
export async function removeInside(root: string, relative: string): Promise<void> {
  let current = root;
  for (const part of relative.split("/").slice(0, -1)) {
    current = path.join(current, part);
    const stats = await lstat(current).catch(() => null);
    if (stats === null) return;
    if (stats.isSymbolicLink()) {
      await rm(current, { force: true });
      return;
    }
    if (!stats.isDirectory()) return;
  }
  await rm(path.join(root, relative), { recursive: true, force: true });
}
