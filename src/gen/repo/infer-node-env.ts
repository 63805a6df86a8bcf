import { errorMessage, type NodeEnvironmentSpec } from "../../core/index.js";
import {
  describeNodeVersionChoice,
  loadNodeReleases,
  NODE_PROJECT_FILES,
  nodeVersionFor,
  packageManagerFor,
  parsePackageJson,
  type EnvironmentOptions,
} from "../../environment/index.js";
import { git } from "../../git/index.js";
import { jsTestRunnerFor } from "../../grader/index.js";

/** A Node environment lab inferred for a commit, or why it could not. */
export type InferredNodeEnvironment =
  | {
      readonly ok: true;
      readonly spec: NodeEnvironmentSpec;
      /** How it was inferred, in words, for the task's record. */
      readonly notes: readonly string[];
    }
  | {
      readonly ok: false;
      /** no_environment: no runner or lockfile lab can use; install: no Node fits. */
      readonly category: "no_environment" | "install";
      readonly reason: string;
    };

/** The commit to read and how lab reaches the npm registry. */
export interface InferNodeOptions {
  readonly gitDir: string;
  readonly commit: string;
  /** The base commit's date, ISO 8601: the Node is the one of its day. */
  readonly date: string;
  /** The commit's files, repository-relative. */
  readonly paths: readonly string[];
  readonly environment: EnvironmentOptions;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Infers a JavaScript/TypeScript project's environment at a commit from its root files, as the
 * grader reads them (docs/design/node-runtime.md): the Node it states or the newest LTS of its
 * day (`nodeVersionFor`), the package manager of its lockfile (`packageManagerFor`), and the
 * runner its package.json shows (`jsTestRunnerFor`). Nothing is installed here; the grade
 * fetches Node and installs frozen. A project without a lockfile is no task: its install would
 * resolve the dependencies as of the grade, not the commit, and differ from grade to grade.
 */
export async function inferNodeEnvironment(
  options: InferNodeOptions,
): Promise<InferredNodeEnvironment> {
  const files: Record<string, string> = {};
  for (const name of NODE_PROJECT_FILES) {
    if (options.paths.includes(name))
      files[name] = await git(["show", `${options.commit}:${name}`], { cwd: options.gitDir });
  }
  let manifest: Record<string, unknown> | null;
  let manager: ReturnType<typeof packageManagerFor>;
  try {
    manifest = parsePackageJson(files);
    manager = packageManagerFor(files);
  } catch (error) {
    return { ok: false, category: "no_environment", reason: errorMessage(error) };
  }
  if (manager.lockfile === null)
    return {
      ok: false,
      category: "no_environment",
      reason: `package.json but no lockfile of ${manager.name}'s at the base commit: an install would resolve the dependencies as of the grade, not of the commit`,
    };
  const runner = jsTestRunnerFor(manifest, options.paths);
  if (runner.runner === null)
    return { ok: false, category: "no_environment", reason: runner.reason };
  const date = new Date(options.date);
  const host = {
    pathEnv: options.environment.pathEnv,
    home: options.environment.home,
    passEnv: options.environment.npmPassEnv,
    notBefore: date,
    signal: options.signal,
  };
  const { releases } = await loadNodeReleases(options.environment.cacheDir, host);
  let choice: ReturnType<typeof nodeVersionFor>;
  try {
    choice = nodeVersionFor(files, date, releases);
  } catch (error) {
    return { ok: false, category: "install", reason: `install failed: ${errorMessage(error)}` };
  }
  const version =
    manager.version === null ? "" : `@${manager.version} (${String(manager.versionFrom)})`;
  return {
    ok: true,
    spec: {
      kind: "node",
      node: choice.version,
      packageManager: manager.name,
      runner: runner.runner,
      env: {},
    },
    notes: [
      describeNodeVersionChoice(choice),
      `${manager.name}${version}: ${manager.install.join(" ")} from ${manager.lockfile}`,
      ...manager.notes,
      `runner ${runner.runner}: ${runner.evidence}`,
    ],
  };
}
