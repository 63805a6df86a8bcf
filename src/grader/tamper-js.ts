/**
 * The part of a JS task's tamper scan that reads files rather than the diff: package.json's
 * `jest`, `mocha` and `babel` keys (runner configuration living among the project's metadata), and the
 * setup files they name. A diff's hunks do not show which key a changed line sits under, so the
 * keys are compared between the base commit and the applied checkout. See tamper.ts.
 */
import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { listPatchFiles } from "../core/index.js";
import { tryGit } from "../git/index.js";

/** package.json keys that configure a runner, or the transform jest runs test files through. */
const RUNNER_KEYS = ["jest", "mocha", "babel"] as const;

/** Settings of those keys that name files the runner loads before the tests. */
const SETUP_SETTINGS: Readonly<Record<(typeof RUNNER_KEYS)[number], readonly string[]>> = {
  jest: ["setupFiles", "setupFilesAfterEnv", "globalSetup", "globalTeardown", "testEnvironment"],
  mocha: ["require", "file"],
  babel: ["plugins", "presets"],
};

/**
 * Findings, one per line naming the file, for a change (applied in `repo`) that changes the
 * `jest` or `mocha` key of a package.json, or a setup file such a key names (at the base
 * commit or after the change). Files the test patch touches are the hidden tests' own.
 */
export async function detectJsRunnerConfigChange(
  patch: string,
  testPatch: string,
  repo: string,
  baseCommit: string,
  gitEnv: Readonly<Record<string, string>>,
): Promise<string[]> {
  const hidden = new Set(listPatchFiles(testPatch).map((file) => file.path));
  const touched = listPatchFiles(patch)
    .map((file) => file.path)
    .filter((file) => !hidden.has(file));
  const findings: string[] = [];
  const manifests = new Set([
    "package.json",
    ...touched.filter((file) => path.posix.basename(file) === "package.json"),
  ]);
  for (const manifest of manifests) {
    const before = await readBase(manifest, baseCommit, repo, gitEnv);
    const after = await readApplied(path.join(repo, manifest));
    const dir = path.posix.dirname(manifest);
    for (const key of RUNNER_KEYS) {
      const old = before?.[key];
      const now = after?.[key];
      if (touched.includes(manifest) && JSON.stringify(old) !== JSON.stringify(now))
        findings.push(`${manifest}: changes package.json's "${key}" key (${key}'s configuration)`);
      const named = new Set([...setupFilesOf(key, old, dir), ...setupFilesOf(key, now, dir)]);
      for (const file of touched.filter((entry) => named.has(entry)))
        findings.push(`${file}: changes a setup file package.json's "${key}" key names`);
    }
  }
  return findings;
}

async function readBase(
  file: string,
  baseCommit: string,
  repo: string,
  gitEnv: Readonly<Record<string, string>>,
): Promise<Record<string, unknown> | null> {
  const shown = await tryGit(["show", `${baseCommit}:${file}`], {
    cwd: repo,
    env: gitEnv,
  });
  return shown.exitCode === 0 ? parseObject(shown.stdout ?? "") : null;
}

/** The most of a package.json the scan reads. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * A package.json of the applied checkout, parsed: only a regular file, never followed through a
 * link (the change may make it one to a host file or a device), and of a sane size.
 */
async function readApplied(file: string): Promise<Record<string, unknown> | null> {
  const stats = await lstat(file).catch(() => null);
  if (stats?.isFile() !== true || stats.size > MAX_MANIFEST_BYTES) return null;
  return readFile(file, "utf8").then(parseObject, () => null);
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Repository-relative paths of the setup files a runner key names (`./x`, `<rootDir>/x`). */
function setupFilesOf(key: (typeof RUNNER_KEYS)[number], config: unknown, dir: string): string[] {
  if (typeof config !== "object" || config === null) return [];
  const values = SETUP_SETTINGS[key].flatMap((setting) => {
    const value = (config as Record<string, unknown>)[setting];
    return Array.isArray(value) ? (value as unknown[]) : [value];
  });
  return values
    .filter((value): value is string => typeof value === "string")
    .filter((value) => value.startsWith("./") || value.startsWith("<rootDir>/"))
    .map((value) => path.posix.normalize(path.posix.join(dir, value.replace(/^<rootDir>\//, ""))));
}
