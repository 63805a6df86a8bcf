import { existsSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../core/index.js";
import { runCommand } from "../process/index.js";
import { writeJsonAtomic } from "../store/index.js";
import { lastLine } from "./uv.js";
import { findOnPath } from "../process/index.js";

/** An interpreter lab found for a requested version. */
export interface PythonInterpreter {
  /** Absolute path of the executable. */
  readonly path: string;
  /** Its full version, "3.11.7". */
  readonly version: string;
  /** Where it came from: "pyenv", "path" or "uv". */
  readonly source: "pyenv" | "path" | "uv";
}

/** Whether a full version such as 3.11.7 satisfies a request such as 3.11 or 3.11.7. */
export function versionMatches(requested: string, full: string): boolean {
  return full === requested || full.startsWith(`${requested}.`);
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Interpreters under pyenv's versions folder that satisfy the request, newest first. */
export function pyenvCandidates(requested: string, pyenvRoot: string): string[] {
  const versionsDir = path.join(pyenvRoot, "versions");
  if (!existsSync(versionsDir)) return [];
  const [major, minor] = requested.split(".");
  return readdirSync(versionsDir)
    .filter((name) => /^\d+\.\d+\.\d+$/.test(name) && versionMatches(requested, name))
    .sort((a, b) => compareVersions(b, a))
    .map((name) => path.join(versionsDir, name, "bin", `python${String(major)}.${String(minor)}`))
    .filter((file) => existsSync(file));
}

async function probeVersion(executable: string, signal?: AbortSignal): Promise<string | null> {
  const result = await runCommand(
    [executable, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
    { env: { PATH: "/usr/bin:/bin" }, timeoutMs: 20_000, captureStdout: true, signal },
  ).catch(() => null);
  if (result?.exitCode !== 0) return null;
  const version = (result.stdout ?? "").trim();
  return /^\d+\.\d+\.\d+$/.test(version) ? version : null;
}

const found = new Map<string, PythonInterpreter>();

/** How long a failed download of an interpreter is remembered. */
const RETRY_DOWNLOAD_MS = 24 * 60 * 60 * 1000;

type FailedDownloads = Record<string, { at: string; error: string }>;

async function readFailedDownloads(file: string | undefined): Promise<FailedDownloads> {
  if (file === undefined) return {};
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as FailedDownloads) : {};
  } catch {
    return {};
  }
}

/**
 * Finds an interpreter for `requested`: pyenv's versions folder, then PATH, then uv's
 * managed Pythons, and finally asks uv to download one.
 */
export async function findPython(
  requested: string,
  options: {
    pyenvRoot: string;
    pathEnv: string;
    /** The user's home, where uv keeps the interpreters it manages. */
    home: string;
    uv: string;
    signal?: AbortSignal | undefined;
    /**
     * A file (in lab's cache) that remembers uv's failed downloads, so that an offline machine
     * asks once a day, not once per process and era (each failure takes seconds).
     */
    failedDownloads?: string | undefined;
  },
): Promise<PythonInterpreter> {
  const memo = found.get(requested);
  if (memo !== undefined) return memo;
  const remember = (interpreter: PythonInterpreter): PythonInterpreter => {
    found.set(requested, interpreter);
    return interpreter;
  };

  for (const candidate of pyenvCandidates(requested, options.pyenvRoot)) {
    const version = await probeVersion(candidate, options.signal);
    if (version !== null && versionMatches(requested, version))
      return remember({ path: candidate, version, source: "pyenv" });
  }
  const [major, minor] = requested.split(".");
  const onPath = findOnPath(`python${String(major)}.${String(minor)}`, options.pathEnv);
  if (onPath !== null) {
    const version = await probeVersion(onPath, options.signal);
    if (version !== null && versionMatches(requested, version))
      return remember({ path: onPath, version, source: "path" });
  }
  // uv's own search trips over pyenv shims on PATH, so give it a PATH without them.
  const uvEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: options.home };
  const findManaged = async (): Promise<string | null> => {
    const result = await runCommand(
      [options.uv, "python", "find", "--no-python-downloads", requested],
      {
        env: uvEnv,
        timeoutMs: 60_000,
        captureStdout: true,
        signal: options.signal,
      },
    );
    return result.exitCode === 0 ? (result.stdout ?? "").trim() || null : null;
  };
  let managed = await findManaged();
  let installError = "";
  if (managed === null) {
    const failed = await readFailedDownloads(options.failedDownloads);
    const earlier = failed[requested];
    if (earlier !== undefined && Date.now() - Date.parse(earlier.at) < RETRY_DOWNLOAD_MS) {
      installError = `${earlier.error} (at ${earlier.at}; lab asks again a day later)`;
    } else {
      const install = await runCommand([options.uv, "python", "install", requested], {
        env: uvEnv,
        timeoutMs: 600_000,
        signal: options.signal,
      });
      if (install.exitCode === 0) managed = await findManaged();
      else if (!install.aborted) {
        installError = lastLine(install.stderrTail);
        failed[requested] = { at: new Date().toISOString(), error: installError };
        if (options.failedDownloads !== undefined)
          await writeJsonAtomic(options.failedDownloads, failed);
      }
    }
  }
  if (managed !== null) {
    const version = await probeVersion(managed, options.signal);
    if (version !== null && versionMatches(requested, version))
      return remember({ path: managed, version, source: "uv" });
  }
  // An exact patch release (upstream's 3.9.20) that cannot be had here: the same minor version
  // is the era's interpreter all the same; the grade records which one ran.
  const parts = requested.split(".");
  if (parts.length === 3) {
    const minor = await findPython(parts.slice(0, 2).join("."), options).catch(() => null);
    if (minor !== null) return remember(minor);
  }
  throw new LabError(
    "PYTHON_NOT_FOUND",
    `No Python ${requested} found (looked in ${path.join(options.pyenvRoot, "versions")}, on PATH and among uv's Pythons)${installError === "" ? "" : `, and uv could not download one: ${installError}`}.`,
    {
      hint: `Install Python ${requested} (\`uv python install ${requested}\` or \`pyenv install ${requested}\`), then run lab again.`,
    },
  );
}
