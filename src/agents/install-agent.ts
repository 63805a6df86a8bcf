import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { LabError, type ToolInstallation } from "../core/index.js";
import {
  ensureUv,
  findPython,
  uvEnvironment,
  type EnvironmentOptions,
} from "../environment/index.js";
import { runCommand } from "../process/index.js";
import { writeJsonAtomic } from "../store/index.js";
import type { AgentAdapter } from "./types.js";

/** The Python that lab installs Python agents with (aider and mini-swe-agent support it). */
export const AGENT_PYTHON = "3.12";

/** What `lab tools install` leaves beside an installation, and `lab tools list` reads. */
const manifestSchema = z.object({
  name: z.string(),
  manager: z.enum(["npm", "pypi"]),
  package: z.string(),
  version: z.string(),
  executable: z.string(),
  /** Host folders the installation needs besides its own (a venv's base interpreter). */
  extraPaths: z.array(z.string()),
  installedAt: z.string(),
});

/** One installed agent CLI. */
export type InstalledAgent = z.output<typeof manifestSchema> & { readonly installDir: string };

const MANIFEST = "lab-install.json";
const CURRENT = "current.json";

/**
 * The folder lab installs agent CLIs into: `LAB_TOOLS_DIR`, else `$XDG_DATA_HOME/lab/tools`,
 * else `~/.local/share/lab/tools`. It is not inside lab's cache: `lab cache clear` must not
 * remove installed tools, and the sandbox hides the cache but shows tool installations.
 */
export function defaultToolsDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.LAB_TOOLS_DIR !== undefined && env.LAB_TOOLS_DIR !== "") {
    return path.resolve(env.LAB_TOOLS_DIR);
  }
  const dataHome =
    env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== ""
      ? env.XDG_DATA_HOME
      : path.join(env.HOME ?? os.homedir(), ".local", "share");
  return path.join(dataHome, "lab", "tools");
}

function readManifest(installDir: string): InstalledAgent | null {
  try {
    const parsed = manifestSchema.safeParse(
      JSON.parse(readFileSync(path.join(installDir, MANIFEST), "utf8")),
    );
    return parsed.success ? { ...parsed.data, installDir } : null;
  } catch {
    return null;
  }
}

/**
 * The installation of `name` that `lab run` uses: the version `current.json` names, if its
 * executable is still there. Synchronous, because a tool's sandbox paths are known up front.
 */
export function findInstalled(toolsDir: string, name: string): InstalledAgent | null {
  try {
    const current = z
      .object({ version: z.string() })
      .parse(JSON.parse(readFileSync(path.join(toolsDir, name, CURRENT), "utf8")));
    const installed = readManifest(path.join(toolsDir, name, current.version));
    return installed !== null && existsSync(installed.executable) ? installed : null;
  } catch {
    return null;
  }
}

/** An installation as sandboxes take it: docker bakes its paths into a layer per install. */
export function installationOf(installed: InstalledAgent): ToolInstallation {
  return {
    name: installed.name,
    version: installed.version,
    paths: [installed.installDir, ...installed.extraPaths],
    key: `${installed.package}@${installed.version} ${installed.installedAt}`,
  };
}

/** Every installed version of every agent, sorted by name then version. */
export function listInstalled(toolsDir: string): (InstalledAgent & { current: boolean })[] {
  if (!existsSync(toolsDir)) return [];
  const found: (InstalledAgent & { current: boolean })[] = [];
  for (const name of readdirSync(toolsDir).sort()) {
    const current = findInstalled(toolsDir, name);
    let versions: string[];
    try {
      versions = readdirSync(path.join(toolsDir, name)).filter(
        (entry) => !entry.startsWith(".") && entry !== CURRENT,
      );
    } catch {
      continue;
    }
    for (const version of versions.sort()) {
      const installed = readManifest(path.join(toolsDir, name, version));
      if (installed !== null) {
        found.push({ ...installed, current: current?.installDir === installed.installDir });
      }
    }
  }
  return found;
}

/** How an install reports progress and where it gets uv and interpreters. */
export interface InstallOptions {
  readonly toolsDir: string;
  /** The version to install; the adapter's pinned one by default. */
  readonly version?: string | undefined;
  /** Reinstall even when that version is there. */
  readonly force?: boolean | undefined;
  /** For pypi packages: uv and the interpreter. */
  readonly environment: EnvironmentOptions;
  readonly signal?: AbortSignal | undefined;
  /** Where npm's and uv's output goes. */
  readonly logFile?: string | undefined;
  readonly timeoutMs?: number | undefined;
}

/**
 * Installs an agent CLI at a pinned version into `<toolsDir>/<name>/<version>` and makes it the
 * current one. The install happens in a temporary folder renamed into place, so an interrupted
 * install leaves nothing half-made behind.
 */
export async function installAgent(
  adapter: AgentAdapter,
  options: InstallOptions,
): Promise<InstalledAgent> {
  const version = options.version ?? adapter.package.version;
  if (!/^[A-Za-z0-9][A-Za-z0-9.+_-]*$/.test(version)) {
    throw new LabError("USAGE", `"${version}" is not a version number.`, {
      hint: `Give an exact version, e.g. --version ${adapter.package.version}.`,
    });
  }
  const agentDir = path.join(options.toolsDir, adapter.name);
  const finalDir = path.join(agentDir, version);
  const existing = readManifest(finalDir);
  if (existing !== null && existsSync(existing.executable) && options.force !== true) {
    await writeJsonAtomic(path.join(agentDir, CURRENT), { version });
    return existing;
  }
  await mkdir(agentDir, { recursive: true });
  const workDir = path.join(agentDir, `.installing-${version}-${String(process.pid)}`);
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  try {
    const { executableIn, extraPaths } =
      adapter.package.manager === "npm"
        ? await installNpm(adapter, version, workDir, options)
        : await installPypi(adapter, version, workDir, options);
    await rm(finalDir, { recursive: true, force: true });
    await rename(workDir, finalDir);
    const manifest = {
      name: adapter.name,
      manager: adapter.package.manager,
      package: adapter.package.name,
      version,
      executable: executableIn(finalDir),
      extraPaths,
      installedAt: new Date().toISOString(),
    };
    await writeFile(path.join(finalDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeJsonAtomic(path.join(agentDir, CURRENT), { version });
    if (!existsSync(manifest.executable)) {
      throw new LabError(
        "TOOL_NOT_INSTALLED",
        `${adapter.package.name}@${version} installed, but its executable ${manifest.executable} is missing.`,
        { hint: "The package may have changed its layout; try the pinned version." },
      );
    }
    return { ...manifest, installDir: finalDir };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

type Installed = { executableIn: (dir: string) => string; extraPaths: string[] };

function failed(adapter: AgentAdapter, version: string, tool: string, detail: string): LabError {
  return new LabError(
    "TOOL_NOT_INSTALLED",
    `Installing ${adapter.package.name}@${version} with ${tool} failed: ${detail}`,
    {
      hint: `Check that the ${adapter.package.manager === "npm" ? "npm" : "PyPI"} registry is reachable and that the version exists, then run \`lab tools install ${adapter.name}\` again.`,
    },
  );
}

function lastLines(text: string, count = 5): string {
  return text.trim().split("\n").slice(-count).join("\n");
}

async function installNpm(
  adapter: AgentAdapter,
  version: string,
  dir: string,
  options: InstallOptions,
): Promise<Installed> {
  // A package.json of its own keeps npm from walking up to some project around the folder.
  await writeFile(
    path.join(dir, "package.json"),
    `${JSON.stringify({ name: `lab-tool-${adapter.name}`, private: true })}\n`,
  );
  const result = await runCommand(
    [
      "npm",
      "install",
      "--no-audit",
      "--no-fund",
      "--no-update-notifier",
      "--omit=dev",
      "--loglevel=error",
      `${adapter.package.name}@${version}`,
    ],
    {
      cwd: dir,
      env: {
        PATH: options.environment.pathEnv,
        HOME: options.environment.home,
        // Some CLIs declare a newer Node than they need (see docs/design/agents.md).
        npm_config_engine_strict: "false",
      },
      timeoutMs: options.timeoutMs ?? 15 * 60_000,
      signal: options.signal,
      logFile: options.logFile,
    },
  );
  if (result.exitCode !== 0) {
    throw failed(adapter, version, "npm", lastLines(result.stderrTail || result.stdoutTail));
  }
  return {
    executableIn: (final) => path.join(final, "node_modules", ".bin", adapter.package.bin),
    extraPaths: [],
  };
}

async function installPypi(
  adapter: AgentAdapter,
  version: string,
  dir: string,
  options: InstallOptions,
): Promise<Installed> {
  const uv = await ensureUv({
    explicit: options.environment.uv,
    toolsDir: path.join(options.environment.cacheDir, "tools"),
    pathEnv: options.environment.pathEnv,
    home: options.environment.home,
    signal: options.signal,
  });
  const python = await findPython(AGENT_PYTHON, {
    pyenvRoot: options.environment.pyenvRoot,
    pathEnv: options.environment.pathEnv,
    home: options.environment.home,
    uv,
    signal: options.signal,
  });
  const env = {
    ...uvEnvironment(options.environment),
    UV_CACHE_DIR: path.join(options.environment.cacheDir, "uv"),
  };
  const venv = path.join(dir, "venv");
  const run = async (argv: string[]): Promise<void> => {
    const result = await runCommand(argv, {
      env,
      timeoutMs: options.timeoutMs ?? 15 * 60_000,
      signal: options.signal,
      logFile: options.logFile,
    });
    if (result.exitCode !== 0) {
      throw failed(adapter, version, "uv", lastLines(result.stderrTail || result.stdoutTail));
    }
  };
  await run([uv, "venv", "--quiet", "--relocatable", "--python", python.path, venv]);
  await run([
    uv,
    "pip",
    "install",
    "--quiet",
    "--python",
    path.join(venv, "bin", "python"),
    `${adapter.package.name}==${version}`,
  ]);
  // The venv's python links to its base interpreter, which the sandbox must show too.
  const prefix = path.dirname(path.dirname(python.path));
  return {
    executableIn: (final) => path.join(final, "venv", "bin", adapter.package.bin),
    extraPaths: [prefix],
  };
}
