import os from "node:os";
import path from "node:path";
import { main } from "../../src/cli/main.js";
import { uvPassEnvFrom } from "../../src/config/index.js";
import { nodePassEnvFrom, type EnvironmentOptions } from "../../src/environment/index.js";
import { sharedCacheDir } from "./temp.js";

/** Environment options for tests: the shared cache, the machine's PATH and pyenv. */
export function testEnvironment(signal?: AbortSignal): EnvironmentOptions {
  return {
    cacheDir: sharedCacheDir,
    pathEnv: process.env.PATH ?? "/usr/bin:/bin",
    home: os.homedir(),
    uvPassEnv: uvPassEnvFrom(process.env),
    npmPassEnv: nodePassEnvFrom(process.env),
    pyenvRoot: process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv"),
    uv: process.env.LAB_UV,
    timeoutMs: 10 * 60_000,
    signal,
  };
}

/** What an in-process CLI call printed and returned. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Calls the CLI in-process, with the shared cache and the given folder as cwd. */
export async function runLab(
  argv: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; signal?: AbortSignal },
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    cwd: options.cwd,
    env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir, CI: "1", ...options.env },
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}
