import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot, sharedCacheDir } from "./temp.js";

/** lab running in a process of its own, from source (through tsx). */
export interface LabProcess {
  readonly child: ChildProcess;
  /** Its exit code (128 when killed by a signal). */
  readonly exited: Promise<number>;
  stderr(): string;
  stdout(): string;
}

/** Starts `lab ARGS` in its own process, with the shared cache unless `env` names another. */
export function startLab(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): LabProcess {
  const tsx = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;
  const child = spawn(
    process.execPath,
    ["--import", tsx, path.join(repoRoot, "src/cli/bin.ts"), ...args],
    {
      cwd: options.cwd,
      env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir, CI: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number>((resolve) =>
    child.on("exit", (code, signal) => {
      resolve(code ?? (signal === null ? 1 : 128));
    }),
  );
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

/** Waits until `check` holds, polling; fails after `timeoutMs` saying what it waited for. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
