import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Task } from "../core/index.js";
import { checkoutTask } from "../suite/index.js";

/**
 * A grading checkout at `<scratchDir>/repo`, made by the task's setup.sh with `<scratchDir>/home`
 * as HOME. Returns the checkout's path.
 */
export async function checkoutForGrade(
  task: Pick<Task, "dir" | "info">,
  scratchDir: string,
  options: {
    pathEnv: string;
    timeoutMs: number;
    logFile: string;
    signal?: AbortSignal | undefined;
  },
): Promise<string> {
  const repo = path.join(scratchDir, "repo");
  const home = path.join(scratchDir, "home");
  await mkdir(home, { recursive: true });
  await checkoutTask(task, repo, {
    timeoutMs: options.timeoutMs,
    env: { PATH: options.pathEnv, HOME: home, LANG: "C.UTF-8", LC_ALL: "C.UTF-8", TZ: "UTC" },
    logFile: options.logFile,
    signal: options.signal,
    purpose: "grade",
  });
  return repo;
}
