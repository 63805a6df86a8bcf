import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseJsResults } from "../../../src/grader/js/index.js";
import type { JsTestRunner } from "../../../src/grader/js/index.js";
import { runCommand, type ExecResult } from "../../../src/process/index.js";
import { sharedCacheDir, tempDir } from "../../helpers/temp.js";

/** Marks a cached install as whole: written last, so a half-built folder is never used. */
const COMPLETE = ".lab-complete";

/**
 * A folder holding `node_modules` with exactly `dependencies` (pinned versions), installed from
 * the npm registry once per machine under the shared test cache and reused by every run. Built
 * in a folder of its own and renamed into place, so test files racing for it each get a whole one.
 */
export async function cachedNpmInstall(
  name: string,
  dependencies: Readonly<Record<string, string>>,
): Promise<string> {
  const key = Object.entries(dependencies)
    .map(([pkg, version]) => `${pkg.replace(/\W/g, "_")}-${version}`)
    .join("+");
  const dir = path.join(sharedCacheDir, "js-runners", `${name}-${key}`);
  if (existsSync(path.join(dir, COMPLETE))) return dir;
  const building = `${dir}.building-${process.pid}-${randomBytes(4).toString("hex")}`;
  mkdirSync(building, { recursive: true });
  writeFileSync(
    path.join(building, "package.json"),
    JSON.stringify({ name: `lab-test-${name}`, private: true, dependencies }, null, 2),
  );
  const result = await runCommand(
    ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
    { cwd: building, env: baseEnv(), timeoutMs: 10 * 60_000 },
  );
  if (result.exitCode !== 0) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(`npm install of ${name} failed:\n${result.stderrTail}`);
  }
  writeFileSync(path.join(building, COMPLETE), "");
  try {
    renameSync(building, dir);
  } catch {
    // Another test file finished first (or a stale half-built folder is in the way).
    if (!existsSync(path.join(dir, COMPLETE))) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    } else {
      rmSync(building, { recursive: true, force: true });
    }
  }
  return dir;
}

/**
 * A tiny project in a fresh temp folder (its real path, as the runners report it): the given
 * files, and `node_modules` a link to a cached install's when one is given.
 */
export function writeProject(files: Readonly<Record<string, string>>, install?: string): string {
  const root = realpathSync(tempDir("lab-js-"));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  if (install !== undefined)
    symlinkSync(path.join(install, "node_modules"), path.join(root, "node_modules"));
  return root;
}

/** What a run of a test command left: the process's end and the results file's text. */
export interface TestRun {
  readonly exec: ExecResult;
  readonly results: string;
  readonly statuses: ReturnType<typeof parseJsResults>;
}

/**
 * Runs `command` with sh in `root`, with a bare environment (PATH, HOME and CI only: nothing of
 * this vitest run's own settings reaches the project's runner), then parses the results file.
 */
export async function runTests(
  runner: JsTestRunner,
  command: string,
  root: string,
  resultsPath: string,
  pathPrefix?: string,
): Promise<TestRun> {
  const env = baseEnv();
  if (pathPrefix !== undefined) env.PATH = `${pathPrefix}:${env.PATH ?? ""}`;
  const exec = await runCommand(["sh", "-c", command], { cwd: root, env, timeoutMs: 5 * 60_000 });
  const results = existsSync(resultsPath) ? readFileSync(resultsPath, "utf8") : "";
  try {
    return { exec, results, statuses: parseJsResults(runner, results, root) };
  } catch (error) {
    const output = `--- stdout\n${exec.stdoutTail}\n--- stderr\n${exec.stderrTail}`;
    throw new Error(`${(error as Error).message}\n${output}`, { cause: error });
  }
}

/** A results path in a temp folder of its own, outside the project. */
export function resultsFile(name = "results.json"): string {
  return path.join(realpathSync(tempDir("lab-js-results-")), name);
}

function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.homedir(), CI: "1" };
}
