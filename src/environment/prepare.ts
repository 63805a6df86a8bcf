import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ensureDebianPackages } from "./system-packages.js";
import { LabError, type PythonEnvironmentSpec } from "../core/index.js";
import { runCommand } from "../process/index.js";
import { findPython, type PythonInterpreter } from "./python.js";
import { ownUvDir } from "./cache.js";
import { ensureUv, lastLine } from "./uv.js";

/** Where and how environments are built. */
export interface EnvironmentOptions {
  /** lab's cache folder (`LAB_CACHE_DIR`, default ~/.cache/lab). */
  readonly cacheDir: string;
  /** PATH used to find uv and interpreters. */
  readonly pathEnv: string;
  /** The user's home: uv keeps its caches under it unless UV_CACHE_DIR says otherwise. */
  readonly home: string;
  /** The user's settings of uv (`UV_PASSED_VARIABLES`: index, cache, certificates, proxies). */
  readonly uvPassEnv: Readonly<Record<string, string>>;
  /** The user's settings of npm (`nodePassEnvFrom`: registry, certificates, proxies); none when absent. */
  readonly npmPassEnv?: Readonly<Record<string, string>> | undefined;
  /** pyenv's root, whose versions/ folder holds era interpreters. */
  readonly pyenvRoot: string;
  /** An explicit uv binary (`LAB_UV`). */
  readonly uv?: string | undefined;
  /** Limit for building one environment. */
  readonly timeoutMs: number;
  /**
   * Where throwaway grading checkouts go (`LAB_SCRATCH_DIR`); the system's temporary folder
   * when absent.
   */
  readonly scratchRoot?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A cached environment holding an interpreter and the task's pins (not the project). */
export interface PreparedEnvironment {
  /** Content hash of interpreter and pins. */
  readonly key: string;
  readonly python: PythonInterpreter;
  /** The cached environment's site-packages, shared read-only by every grade of this era. */
  readonly sitePackages: string;
  /** The uv binary, for per-grade environments. */
  readonly uv: string;
  /** Whether this call built it (false: it came from the cache). */
  readonly built: boolean;
  /** The pins it holds. */
  readonly pins: readonly string[];
}

/** Bumped whenever the way lab builds a cached environment changes, so old entries are not reused. */
const ENVIRONMENT_LAYOUT = 2;

/** The cache key of an environment: what is in it, and nothing else. */
export function environmentKey(
  python: PythonInterpreter,
  pins: readonly string[],
  pinsInstallArgs: readonly string[] = [],
  buildConstraints: readonly string[] = [],
): string {
  const hash = createHash("sha256")
    .update(
      JSON.stringify({
        layout: ENVIRONMENT_LAYOUT,
        python: python.version,
        interpreter: python.path,
        pins: [...pins].sort(),
        args: pinsInstallArgs,
        // Absent from keys made before there were build constraints, so those stay valid.
        ...(buildConstraints.length === 0 ? {} : { buildConstraints }),
      }),
    )
    .digest("hex");
  return `py${python.version}-${hash.slice(0, 16)}`;
}

function sitePackagesOf(venv: string, python: PythonInterpreter): string {
  const [major, minor] = python.version.split(".");
  return path.join(venv, "lib", `python${String(major)}.${String(minor)}`, "site-packages");
}

/** Where lab remembers interpreters uv could not download (`findPython`). */
export function failedDownloadsFile(cacheDir: string): string {
  return path.join(cacheDir, "tools", "python-downloads.json");
}

/** Finds or builds the cached environment for a spec. Safe under concurrent callers. */
export async function prepareEnvironment(
  spec: PythonEnvironmentSpec,
  options: EnvironmentOptions,
): Promise<PreparedEnvironment> {
  // The project's build and tests need these on the host (compilers, headers, tools).
  await ensureDebianPackages(spec.debianPackages ?? [], {
    pathEnv: options.pathEnv,
    isRoot: process.getuid?.() === 0,
    signal: options.signal,
  });
  const uv = await ensureUv({
    explicit: options.uv,
    toolsDir: path.dirname(ownUvDir(options.cacheDir)),
    pathEnv: options.pathEnv,
    home: options.home,
    signal: options.signal,
  });
  const python = await findPython(spec.python, {
    pyenvRoot: options.pyenvRoot,
    pathEnv: options.pathEnv,
    home: options.home,
    uv,
    signal: options.signal,
    failedDownloads: failedDownloadsFile(options.cacheDir),
  });
  const pinsArgs = (spec.pinsInstallArgs ?? []).filter((arg) => arg !== "--compile-bytecode");
  const buildConstraints = spec.pinsBuildConstraints ?? [];
  const key = environmentKey(python, spec.pins, pinsArgs, buildConstraints);
  const envsDir = path.join(options.cacheDir, "envs");
  const finalDir = path.join(envsDir, key);
  const marker = path.join(finalDir, "lab-env.json");
  if (existsSync(marker)) {
    return {
      key,
      python,
      sitePackages: sitePackagesOf(finalDir, python),
      uv,
      built: false,
      pins: spec.pins,
    };
  }
  // Build beside the cache entry and rename it in: a rename is atomic, so a concurrent
  // grader sees either no environment or a whole one, never half of one.
  await mkdir(envsDir, { recursive: true });
  const staging = path.join(envsDir, `.${key}.${String(process.pid)}.${String(Date.now())}.tmp`);
  const log: string[] = [];
  const env = uvEnvironment(options);
  try {
    const venv = await runCommand([uv, "venv", "--quiet", "--python", python.path, staging], {
      env,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    log.push(venv.stderrTail);
    if (venv.exitCode !== 0) throw buildError(spec, `uv venv failed: ${lastLine(venv.stderrTail)}`);
    if (spec.pins.length > 0) {
      const constraintsFile = `${staging}.build-constraints.txt`;
      if (buildConstraints.length > 0)
        await writeFile(constraintsFile, `${buildConstraints.join("\n")}\n`);
      const install = await runCommand(
        [
          uv,
          "pip",
          "install",
          ...(uvCompilesBytecodeFor(python.version) ? ["--compile-bytecode"] : []),
          ...pinsArgs,
          ...(buildConstraints.length === 0 ? [] : ["--build-constraints", constraintsFile]),
          "--python",
          path.join(staging, "bin", "python"),
          ...spec.pins,
        ],
        {
          env,
          timeoutMs: options.timeoutMs,
          signal: options.signal,
        },
      );
      log.push(install.stderrTail);
      if (install.timedOut)
        throw buildError(
          spec,
          `installing the pins timed out after ${String(options.timeoutMs)} ms`,
        );
      if (install.exitCode !== 0)
        throw buildError(
          spec,
          `installing the pins failed: ${summarizeUvFailure(install.stderrTail)}`,
        );
    }
    if (spec.pins.length > 0 && !uvCompilesBytecodeFor(python.version)) {
      // The environment is read-only once built, so its bytecode must be written now.
      // compileall's status is 1 when any file does not compile (a package's files for
      // another Python), which uv's compiler also passes over.
      const compiled = await runCommand(
        [
          path.join(staging, "bin", "python"),
          "-m",
          "compileall",
          "-q",
          sitePackagesOf(staging, python),
        ],
        { env, timeoutMs: options.timeoutMs, signal: options.signal },
      );
      log.push(compiled.stderrTail);
      if (compiled.timedOut || (compiled.exitCode !== 0 && compiled.exitCode !== 1))
        throw buildError(
          spec,
          `compiling the pins' bytecode failed: ${lastLine(compiled.stderrTail)}`,
        );
    }
    await writeFile(
      path.join(staging, "lab-env.json"),
      `${JSON.stringify({ key, python, pins: spec.pins, builtAt: new Date().toISOString() }, null, 2)}\n`,
    );
    try {
      await rename(staging, finalDir);
    } catch {
      if (!existsSync(marker))
        throw buildError(spec, `could not move the environment into ${finalDir}`);
      // Another grader finished the same environment first; theirs is identical.
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(`${staging}.build-constraints.txt`, { force: true });
  }
  return {
    key,
    python,
    sitePackages: sitePackagesOf(finalDir, python),
    uv,
    built: true,
    pins: spec.pins,
  };
}

/**
 * Whether uv's own bytecode compiler runs on this interpreter: its compile script uses
 * py_compile.PycInvalidationMode, which Python 3.7 added (uv 0.13 fails on 3.6 with
 * "Bytecode compilation failed"). Older interpreters compile with their own compileall.
 */
export function uvCompilesBytecodeFor(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 3 || (major === 3 && minor >= 7);
}

/** Variables of the user's environment that uv is given: its index, cache, certificates and proxies. */
export const UV_PASSED_VARIABLES = [
  "UV_CACHE_DIR",
  "UV_INDEX_URL",
  "UV_DEFAULT_INDEX",
  "UV_EXTRA_INDEX_URL",
  "SSL_CERT_FILE",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
] as const;

/** Environment for uv itself: no user config, no interpreter downloads behind our back. */
export function uvEnvironment(
  host: Pick<EnvironmentOptions, "pathEnv" | "home" | "uvPassEnv">,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: host.pathEnv,
    HOME: host.home,
    UV_NO_CONFIG: "1",
    UV_PYTHON_DOWNLOADS: "never",
  };
  for (const name of UV_PASSED_VARIABLES) {
    const value = host.uvPassEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The line of uv's error output that names the failing package, when it has one. */
export function summarizeUvFailure(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) =>
      line
        .trim()
        .replace(/^(error|cause|hint):\s*/i, "")
        .replace(/\.$/, ""),
    )
    .filter((line) => line !== "");
  const named =
    lines.find((line) => /^because /i.test(line)) ??
    lines.find((line) => /failed to (build|download|fetch)|not found/i.test(line));
  return named ?? lastLine(stderr);
}

function buildError(spec: PythonEnvironmentSpec, why: string): LabError {
  return new LabError(
    "ENVIRONMENT_FAILED",
    `Building the Python ${spec.python} environment failed: ${why}.`,
    {
      hint: "Check the pins in the task's environment.json and that PyPI is reachable; `lab cache clear` removes half-built state.",
    },
  );
}

/** A throwaway environment for one grade, layered over a cached one. */
export interface GradeEnvironment {
  /** The per-grade virtual environment. */
  readonly venv: string;
  /** Its site-packages. */
  readonly sitePackages: string;
  /** Variables that make commands run inside it. */
  readonly env: Readonly<Record<string, string>>;
  /** Extra variables for the test run only: see `sitecustomize.py` below. */
  readonly testEnv: Readonly<Record<string, string>>;
}

/**
 * Makes a per-grade virtual environment that sees the cached environment's packages through a
 * .pth file, so installing the project never writes into the shared cache. `pip` in it is uv's pip.
 */
export async function createGradeEnvironment(
  prepared: PreparedEnvironment,
  dir: string,
  options: Pick<EnvironmentOptions, "pathEnv" | "home" | "uvPassEnv"> & {
    timeoutMs: number;
    signal?: AbortSignal | undefined;
  },
): Promise<GradeEnvironment> {
  const venv = path.join(dir, "venv");
  const uvEnv = uvEnvironment(options);
  const result = await runCommand(
    [prepared.uv, "venv", "--quiet", "--python", prepared.python.path, venv],
    { env: uvEnv, timeoutMs: options.timeoutMs, signal: options.signal },
  );
  if (result.exitCode !== 0) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `Creating the grading environment failed: ${lastLine(result.stderrTail)}.`,
      {
        hint: "Run `lab cache clear` and try again.",
      },
    );
  }
  // An `import` line in a .pth file runs at start-up; addsitedir also honours the cached
  // environment's own .pth files, which a plain path line would not.
  await writeFile(
    path.join(sitePackagesOf(venv, prepared.python), "_lab_cached_env.pth"),
    `import site; site.addsitedir(${JSON.stringify(prepared.sitePackages)})\n`,
  );
  // The cached environment's console scripts (pytest, tox, ...) run with this interpreter, so
  // they see the project installed here.
  const cachedBin = path.join(
    path.dirname(path.dirname(path.dirname(prepared.sitePackages))),
    "bin",
  );
  for (const name of await readdir(cachedBin)) {
    if (
      /^(python|pip|activate|deactivate|uv)/.test(name) ||
      existsSync(path.join(venv, "bin", name))
    )
      continue;
    const shim = path.join(venv, "bin", name);
    await writeFile(
      shim,
      `#!/bin/sh\nexec ${JSON.stringify(path.join(venv, "bin", "python"))} ${JSON.stringify(path.join(cachedBin, name))} "$@"\n`,
    );
    await chmod(shim, 0o755);
  }
  const pip = path.join(venv, "bin", "pip");
  await writeFile(
    pip,
    [
      "#!/bin/sh",
      "# lab: pip here is uv's pip, installing into this environment. pip falls back to the",
      "# environment's own setuptools when a project's build backend cannot build an editable",
      "# install (setuptools < 64), with `setup.py develop`, which puts the project's folder on",
      "# sys.path; uv does not, so an install that fails is retried that way: no build isolation,",
      "# and setuptools' compat editable mode (a .pth with the folder), as develop would leave.",
      `${JSON.stringify(prepared.uv)} pip "$@" && exit 0`,
      "status=$?",
      'case " $* " in *" install "*) ;; *) exit $status ;; esac',
      "# Flags the install already has are not given twice (uv refuses a repeated",
      "# --no-build-isolation); an install that already had both goes on to `setup.py develop`.",
      'retry=""',
      'case " $* " in *" --no-build-isolation "*) ;; *) retry="--no-build-isolation" ;; esac',
      'case " $* " in *editable_mode=*) ;; *) retry="$retry --config-settings editable_mode=compat" ;; esac',
      'if [ -n "$retry" ]; then',
      '  echo "lab: retrying the install with$retry" >&2',
      `  ${JSON.stringify(prepared.uv)} pip "$@" $retry && exit 0`,
      "  status=$?",
      "fi",
      "# A setuptools older than 40.8 has no PEP 517 backend at all (astropy 1.3's 38.2.4): for an",
      "# editable install pip then runs `setup.py develop` itself, and so does lab, without deps",
      "# (the pins are the era's dependencies).",
      'target=""; previous=""',
      'for arg in "$@"; do',
      '  case "$previous" in -e|--editable) target="$arg" ;; esac',
      '  previous="$arg"',
      "done",
      '[ -n "$target" ] || exit $status',
      'dir="${target%%[*}"',
      '[ -f "$dir/setup.py" ] || exit $status',
      'echo "lab: retrying the editable install with setup.py develop, as pip does for a setuptools without PEP 517" >&2',
      'cd "$dir" && exec python setup.py develop --no-deps',
      "",
    ].join("\n"),
  );
  await chmod(pip, 0o755);
  // The project's install resolves its dependencies in this venv, which cannot see the cached
  // packages: constrain it to the era's pins so it installs the same versions, never newer ones.
  const constraints = path.join(dir, "lab-constraints.txt");
  await writeFile(constraints, prepared.pins.map((pin) => `${pin}\n`).join(""));
  const env: Record<string, string> = {
    ...uvEnv,
    PATH: `${path.join(venv, "bin")}${path.delimiter}${options.pathEnv}`,
    VIRTUAL_ENV: venv,
    UV_CONSTRAINT: constraints,
  };
  // tox-current-env links .tox/<env>/bin/python to this interpreter; started through that link
  // Python no longer finds pyvenv.cfg and loses the venv. A sitecustomize on PYTHONPATH (which
  // that plugin passes through) adds the grade's packages back in that case, and does nothing
  // when the venv is active. Not set for installs, whose isolated builds must not see them.
  const siteDir = path.join(dir, "lab-site");
  await mkdir(siteDir, { recursive: true });
  const own = sitePackagesOf(venv, prepared.python);
  await writeFile(
    path.join(siteDir, "sitecustomize.py"),
    [
      "# lab: the grade's packages, for an interpreter started outside its virtual environment.",
      "import site, sys",
      `_dirs = [${JSON.stringify(own)}, ${JSON.stringify(prepared.sitePackages)}]`,
      "if _dirs[0] not in sys.path:",
      "    _before = list(sys.path)",
      "    for _d in _dirs:",
      "        site.addsitedir(_d)",
      "    sys.path[:] = [p for p in sys.path if p not in _before] + _before",
      "",
    ].join("\n"),
  );
  return { venv, sitePackages: own, env, testEnv: { PYTHONPATH: siteDir } };
}

/** Reads the cached environment's record, for `lab cache list`. */
export async function readEnvironmentRecord(dir: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(dir, "lab-env.json"), "utf8")) as unknown;
}
