import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  errorMessage,
  type EnvironmentSpec,
  type PythonEnvironmentSpec,
} from "../../core/index.js";
import {
  ensureUv,
  failedDownloadsFile,
  findPython,
  pyenvCandidates,
  summarizeUvFailure,
  uvEnvironment,
  type EnvironmentOptions,
} from "../../environment/index.js";
import { git, tryGit } from "../../git/index.js";
import { findOnPath, runCommand } from "../../process/index.js";
import { writeJsonAtomic } from "../../store/index.js";
import { inferNodeEnvironment } from "./infer-node-env.js";
import { readProjectFacts, type ProjectFacts } from "./project.js";
import { choosePython, PYTHON_RELEASES } from "./python-choice.js";

/** Bumped when the way pins are resolved changes, so cached resolutions are not reused. */
const PINS_LAYOUT = 1;

/** An environment lab inferred for a commit, or why it could not. */
export type InferredEnvironment =
  | {
      readonly ok: true;
      readonly spec: EnvironmentSpec;
      /** How it was inferred, in words, for the task's record. */
      readonly notes: readonly string[];
      /** The Python project's facts; null for a JavaScript/TypeScript project. */
      readonly facts: ProjectFacts | null;
    }
  | {
      readonly ok: false;
      /** no_environment: nothing to install from; install: resolving or finding Python failed. */
      readonly category: "no_environment" | "install";
      readonly reason: string;
    };

/** Where and how to infer. */
export interface InferOptions {
  /** The repository lab mines. */
  readonly gitDir: string;
  readonly commit: string;
  /** Dependencies are resolved as of this date (uv's --exclude-newer), ISO 8601. */
  readonly date: string;
  /** A Python version that overrides the inferred one (--python). */
  readonly python?: string | undefined;
  readonly environment: EnvironmentOptions;
  /** The suite's cache folder: resolutions are kept in pins/. */
  readonly cacheDir: string;
  readonly signal?: AbortSignal | undefined;
}

/** Minor versions installed here (pyenv's versions, then PATH), to their full versions. */
export function installedPythons(options: EnvironmentOptions): Map<string, string> {
  const found = new Map<string, string>();
  for (const minor of Object.keys(PYTHON_RELEASES)) {
    const fromPyenv = pyenvCandidates(minor, options.pyenvRoot)[0];
    const full = fromPyenv?.split(path.sep).at(-3);
    if (full !== undefined && /^\d+\.\d+\.\d+$/.test(full)) found.set(minor, full);
    else if (findOnPath(`python${minor}`, options.pathEnv) !== null) found.set(minor, `${minor}.0`);
  }
  return found;
}

/**
 * Infers a commit's environment the way a developer would set one up: the Python its metadata
 * asks for, the project's dependencies and test extras, groups or requirements files, and
 * pytest, resolved by uv as of the given date into exact pins. The project itself is installed
 * editable without dependencies at grading time; build requirements are resolved as of the
 * same date (UV_EXCLUDE_NEWER). A commit with a package.json at its root and no Python project
 * or requirements file is a JavaScript/TypeScript project: its Node spec (inferNodeEnvironment).
 */
export async function inferEnvironment(options: InferOptions): Promise<InferredEnvironment> {
  const cwd = options.gitDir;
  const paths = (await git(["ls-tree", "-r", "--name-only", options.commit], { cwd }))
    .split("\n")
    .filter((line) => line !== "");
  const files = new Map<string, string>();
  for (const file of ["pyproject.toml", "setup.cfg", "setup.py"]) {
    if (paths.includes(file)) files.set(file, await show(cwd, options.commit, file));
  }
  const facts = readProjectFacts(files, paths);
  if (
    facts.projectFile === null &&
    facts.requirementFiles.length === 0 &&
    paths.includes("package.json")
  ) {
    const node = await inferNodeEnvironment({ ...options, paths });
    return node.ok ? { ...node, facts: null } : node;
  }
  if (facts.projectFile === null && facts.requirementFiles.length === 0)
    return {
      ok: false,
      category: "no_environment",
      reason: "no pyproject.toml, setup.py, setup.cfg or requirements file at the base commit",
    };
  const choice = choosePython(facts, {
    date: options.date,
    installed: installedPythons(options.environment),
    override: options.python,
  });
  if (choice.version === null)
    return { ok: false, category: "no_environment", reason: choice.reason };
  const uv = await ensureUv({
    explicit: options.environment.uv,
    toolsDir: path.join(options.environment.cacheDir, "tools"),
    pathEnv: options.environment.pathEnv,
    home: options.environment.home,
    signal: options.signal,
  });
  const interpreter = await findPython(choice.version, {
    ...options.environment,
    uv,
    failedDownloads: failedDownloadsFile(options.environment.cacheDir),
  }).catch((error: unknown) => new Error(errorMessage(error)));
  if (interpreter instanceof Error)
    return { ok: false, category: "install", reason: `install failed: ${interpreter.message}` };
  const resolved = await resolvePins({
    ...options,
    facts,
    uv,
    interpreter: interpreter.path,
    interpreterVersion: interpreter.version,
    requirementTexts: await Promise.all(
      facts.requirementFiles.map((file) => show(cwd, options.commit, file)),
    ),
    metadataTexts: [...files.values()],
  });
  if (!resolved.ok) return { ok: false, category: "install", reason: resolved.reason };
  const own = facts.name === null ? null : normalizeName(facts.name);
  const pins = resolved.pins.filter((pin) => own === null || normalizeName(pinName(pin)) !== own);
  const sources = [
    facts.projectFile,
    ...facts.testExtras.map((extra) => `extra "${extra}"`),
    ...facts.testGroups.map((group) => `group "${group}"`),
    ...facts.requirementFiles,
  ].filter((part) => part !== null);
  const spec: PythonEnvironmentSpec = {
    python: choice.version,
    pins,
    preInstall: [],
    install: facts.projectFile === null ? "true" : "pip install -e . --no-deps",
    testCommand: "pytest -rA",
    env: { UV_EXCLUDE_NEWER: options.date },
    logParser: "pytest",
  };
  return {
    ok: true,
    facts,
    spec,
    notes: [
      `Python ${choice.reason}`,
      `pins: ${sources.join(", ")} and pytest, resolved by uv as of ${options.date}`,
    ],
  };
}

async function show(cwd: string, commit: string, file: string): Promise<string> {
  return git(["show", `${commit}:${file}`], { cwd });
}

/** A distribution name in PEP 503's normal form. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

function pinName(pin: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(pin)?.[0] ?? pin;
}

interface ResolveInput extends InferOptions {
  readonly facts: ProjectFacts;
  readonly uv: string;
  readonly interpreter: string;
  readonly interpreterVersion: string;
  readonly requirementTexts: readonly string[];
  readonly metadataTexts: readonly string[];
}

/**
 * Resolves the pins with `uv pip compile --exclude-newer` in an export of the commit's tree.
 * Resolutions are cached by everything they depend on, so a rerun or a later change with the
 * same metadata and date costs nothing.
 */
async function resolvePins(
  input: ResolveInput,
): Promise<{ ok: true; pins: string[] } | { ok: false; reason: string }> {
  const { facts } = input;
  const extra =
    facts.name !== null && normalizeName(facts.name) === "pytest"
      ? [...facts.poetryTestDependencies]
      : ["pytest", ...facts.poetryTestDependencies];
  const key = createHash("sha256")
    .update(
      JSON.stringify([
        PINS_LAYOUT,
        input.interpreterVersion,
        input.date,
        input.metadataTexts,
        input.requirementTexts,
        facts,
        extra,
      ]),
    )
    .digest("hex")
    .slice(0, 20);
  const cacheFile = path.join(input.cacheDir, "pins", `${key}.json`);
  if (existsSync(cacheFile)) {
    const cached = JSON.parse(await readFile(cacheFile, "utf8")) as { pins: string[] };
    return { ok: true, pins: cached.pins };
  }
  await mkdir(path.join(input.cacheDir, "tmp"), { recursive: true });
  const tree = await mkdtemp(path.join(input.cacheDir, "tmp", "tree-"));
  try {
    const archive = `${tree}.tar`;
    await git(["archive", "--format=tar", "-o", archive, input.commit], {
      cwd: input.gitDir,
      timeoutMs: 300_000,
    });
    const untar = await runCommand(["tar", "-xf", archive, "-C", tree], {
      env: { PATH: input.environment.pathEnv },
      timeoutMs: 300_000,
    });
    await rm(archive, { force: true });
    if (untar.exitCode !== 0)
      return { ok: false, reason: `could not export the base commit: ${untar.stderrTail.trim()}` };
    await writeFile(
      path.join(tree, "lab-test-dependencies.in"),
      extra.map((d) => `${d}\n`).join(""),
    );
    const compile = async (withOptional: boolean) => {
      const sources: string[] = [];
      if (facts.projectFile !== null) {
        sources.push(facts.projectFile);
        if (withOptional) {
          for (const name of facts.testExtras) sources.push("--extra", name);
          if (facts.projectFile === "pyproject.toml")
            for (const name of facts.testGroups) sources.push("--group", `pyproject.toml:${name}`);
        }
      }
      sources.push(...facts.requirementFiles, "lab-test-dependencies.in");
      return runCommand(
        [
          input.uv,
          "pip",
          "compile",
          "--quiet",
          "--no-header",
          "--no-annotate",
          "--python",
          input.interpreter,
          "--exclude-newer",
          input.date,
          ...sources,
        ],
        {
          cwd: tree,
          env: {
            ...uvEnvironment(input.environment),
            SETUPTOOLS_SCM_PRETEND_VERSION: "0.0.0",
          },
          timeoutMs: 600_000,
          captureStdout: true,
          signal: input.signal,
          limited: true,
        },
      );
    };
    let result = await compile(true);
    // An extra or group lab guessed that the project does not define: resolve without them.
    if (
      result.exitCode !== 0 &&
      /(extra|group).*not (found|defined)|not (found|defined).*(extra|group)/i.test(
        result.stderrTail,
      )
    )
      result = await compile(false);
    if (result.exitCode !== 0)
      return {
        ok: false,
        reason: `install failed: resolving the dependencies as of ${input.date.slice(0, 10)} failed: ${summarizeUvFailure(result.stderrTail)}`,
      };
    const pins = (result.stdout ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith("-"))
      .filter((line) => !line.includes(`file://${tree}`));
    await writeJsonAtomic(cacheFile, { pins, date: input.date, python: input.interpreterVersion });
    return { ok: true, pins };
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}

/** Whether git can read the repository at `dir`. */
export async function isGitRepository(dir: string): Promise<boolean> {
  if (!existsSync(dir)) return false;
  const result = await tryGit(["rev-parse", "--git-dir"], { cwd: dir });
  return result.exitCode === 0;
}
