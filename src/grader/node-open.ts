import { mkdir } from "node:fs/promises";
import path from "node:path";
import {
  ensureNodeRuntime,
  ensurePackageManager,
  nodeProjectEnvironment,
  packageManagerFor,
  readNodeProjectFiles,
  type InstalledPackageManager,
  type NodeProjectFiles,
  type NodeRuntime,
  type NpmHost,
  type PackageManagerChoice,
} from "../environment/index.js";
import { LabError, type NodeEnvironmentSpec, type NodeUpstreamCommands } from "../core/index.js";
import { confineGrade, pathsNamedBy, type GradeConfinement } from "./grade-sandbox.js";
import type { NodeGradingPlan } from "./plan.js";

/** A Node grade's toolchain and the confinement its graded commands run in. */
export interface NodeOpenGrade {
  readonly runtime: NodeRuntime;
  readonly manager: InstalledPackageManager;
  /** The package manager as chosen from the project's files, with its frozen install. */
  readonly choice: PackageManagerChoice;
  /** The project's root files at the base commit (package.json, the lockfile, ...). */
  readonly files: NodeProjectFiles;
  /** What the grade records as its environment key: the runtime and the manager. */
  readonly key: string;
  readonly confinement: GradeConfinement;
  /** Names the checkout's git directory (moved out of the checkout) for lab's own git. */
  readonly gitEnv: Readonly<Record<string, string>>;
  /** The environment of every graded command: the task's Node and manager first on PATH. */
  readonly runEnv: Readonly<Record<string, string>>;
}

/** How lab reaches the npm registry for a plan's runtime and package manager. */
export function npmHostOf(plan: NodeGradingPlan, signal: AbortSignal | undefined): NpmHost {
  return {
    pathEnv: plan.machine.pathEnv,
    home: plan.machine.home,
    passEnv: plan.machine.npmPassEnv,
    timeoutMs: plan.limits.installMs,
    signal,
  };
}

/**
 * The package manager of a project, as the spec states it or else as its files at the base
 * commit do (`packageManagerFor`). A spec with a version stands in for package.json's
 * `packageManager`; a bare name must be the one the project's files show.
 */
export function nodePackageManagerChoice(
  spec: NodeEnvironmentSpec,
  files: NodeProjectFiles,
): PackageManagerChoice {
  const stated = spec.packageManager;
  if (stated === undefined) return packageManagerFor(files);
  if (stated.includes("@")) {
    let manifest: Record<string, unknown> = {};
    try {
      manifest = JSON.parse(files["package.json"] ?? "{}") as Record<string, unknown>;
    } catch {
      // packageManagerFor names the broken file below.
      return packageManagerFor(files);
    }
    return packageManagerFor({
      ...files,
      "package.json": JSON.stringify({ ...manifest, packageManager: stated }),
    });
  }
  const found = packageManagerFor(files);
  if (found.name !== stated)
    throw new LabError(
      "TASK_INVALID",
      `The task's environment.json says packageManager "${stated}", but the project installs with ${found.name} (${found.lockfile ?? "no lockfile"}).`,
      {
        hint: `State "${found.name}", or a version ("${stated}@<version>") to override the project.`,
      },
    );
  return found;
}

/**
 * Fetches the plan's Node and the project's package manager into lab's cache (once per
 * version) and sets up the confinement of the commands that run the checkout's code; the
 * checkout must exist at `plan.places.repo`, still at the base commit, since the package
 * manager is read from its files.
 */
export async function openNodeGrade(
  plan: NodeGradingPlan,
  signal: AbortSignal | undefined,
): Promise<NodeOpenGrade> {
  const { places, machine, environment: spec } = plan;
  await mkdir(places.home, { recursive: true });
  await mkdir(places.tmp, { recursive: true });
  const globalPrefix = path.join(places.home, ".npm-global");
  await mkdir(path.join(globalPrefix, "lib", "node_modules"), { recursive: true });
  await mkdir(path.join(globalPrefix, "bin"), { recursive: true });
  const files = await readNodeProjectFiles(places.repo);
  const choice = nodePackageManagerChoice(spec, files);
  const host = npmHostOf(plan, signal);
  const runtime = await ensureNodeRuntime(spec.node, machine.cacheDir, host);
  const manager = await ensurePackageManager(choice, runtime.version, machine.cacheDir, host);
  const passEnv = machine.npmPassEnv ?? {};
  const commandEnv: Record<string, string> = {
    ...nodeProjectEnvironment({
      runtime,
      manager,
      pathEnv: machine.pathEnv,
      home: places.home,
      passEnv,
    }),
    // Install scripts that fetch a browser (puppeteer's Chrome, playwright's, Cypress's binary)
    // reach hosts other than the registry, which a grade need not reach; unit tests do not use
    // them. A project whose tests need a browser names one of the machine's (CHROME_BIN).
    PUPPETEER_SKIP_DOWNLOAD: "true",
    PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: "true",
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
    CYPRESS_INSTALL_BINARY: "0",
    // npm-merge-driver-install's install script writes a merge driver into the checkout's git
    // config, which a grade shows read-only: its failure failed preact's whole npm install. It
    // configures how git merges lockfiles, nothing an install or a test reads.
    NPM_MERGE_DRIVER_SKIP_INSTALL: "1",
    // npm's global prefix in the grade's HOME, with the folders npx reads: the default, the
    // cached Node's own folder, has no lib/ (the registry's Node package has none), and npm 8's
    // npx stops on that ("ENOENT: lstat .../16.20.2/lib", preact's `npx karma`).
    npm_config_prefix: globalPrefix,
    // node-gyp builds a native addon (preact's iltorb) against Node's headers, which it fetches
    // from nodejs.org unless told where they are: the cached Node has them, in include/node.
    npm_config_nodedir: runtime.dir,
    ...spec.env,
    HOME: places.home,
    TMPDIR: places.tmp,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TZ: "UTC",
    // vitest writes missing snapshots unless it sees CI; jest runs with --ci already. Not with
    // upstream's commands: upstream's script has no CI, and picocolors colours output under CI,
    // which puts escape codes inside the test ids vitest's verbose lines give its parser.
    ...(spec.upstream === undefined ? { CI: "true" } : {}),
  };
  const confinement = await confineGrade({
    sandbox: plan.sandbox,
    task: plan.task,
    debianPackages: [],
    environment: machine,
    scratchDir: places.scratchDir,
    repo: places.repo,
    home: places.home,
    pathEnv: commandEnv.PATH ?? machine.pathEnv,
    toolchain: {
      // In lab's cache, which is otherwise hidden: trusted, like a Python grade's environment.
      readOnly: [runtime.dir, manager.dir],
      toolPaths: pathsNamedBy(passEnv, [
        "NODE_EXTRA_CA_CERTS",
        "SSL_CERT_FILE",
        "npm_config_cafile",
        "NPM_CONFIG_CAFILE",
      ]),
      writable: [],
    },
  });
  return {
    runtime,
    manager,
    choice,
    files,
    key: `node${runtime.version}-${manager.name}${manager.version}`,
    confinement,
    gitEnv: { PATH: machine.pathEnv, GIT_DIR: confinement.gitDir, GIT_WORK_TREE: places.repo },
    runEnv: { ...commandEnv, ...confinement.env },
  };
}

/** One line for grader.log: the Node, the package manager and its install, with notes. */
export function describeNodeToolchain(
  open: NodeOpenGrade,
  upstream: NodeUpstreamCommands | null = null,
): string {
  const { runtime, manager, choice } = open;
  const install =
    upstream === null
      ? `${choice.install.join(" ")}${choice.lockfile === null ? "" : ` (frozen from ${choice.lockfile})`}`
      : `upstream's ${[...upstream.install, ...upstream.build].join(" && ")} (${choice.lockfile === null ? "no lockfile" : `over ${choice.lockfile}`})`;
  const from = choice.versionFrom === null ? "" : `, version from ${choice.versionFrom}`;
  const notes = choice.notes.length === 0 ? "" : `; ${choice.notes.join("; ")}`;
  return `lab: Node ${runtime.version}${runtime.fetched ? " (fetched)" : ""}, ${manager.name} ${manager.version} (${manager.spec}${from}); install: ${install}${notes}`;
}
