import { mkdir } from "node:fs/promises";
import path from "node:path";
import { LabError, type Task } from "../core/index.js";
import { verifyHeadIs, verifyHistoryEndsAt } from "../git/index.js";
import { setupScriptOf } from "./layout.js";
import { runCommand } from "../process/index.js";

/**
 * Runs a task's setup.sh into `dest` and checks that the result is the base commit with no
 * later history. Used for the tool's work tree and for every fresh grading checkout. A grading
 * checkout never reaches a tool, so for `purpose: "grade"` the scan of its objects is skipped,
 * and setup.sh is told (`LAB_CHECKOUT=grade`): it may then share files with lab's cache (hard
 * links to the objects of a base repository), which graded code only ever sees read-only.
 */
export async function checkoutTask(
  task: Pick<Task, "dir" | "info">,
  dest: string,
  options: {
    timeoutMs: number;
    env: Readonly<Record<string, string>>;
    logFile?: string;
    signal?: AbortSignal | undefined;
    purpose: "tool" | "grade";
  },
): Promise<void> {
  await mkdir(path.dirname(dest), { recursive: true });
  const result = await runCommand(["bash", setupScriptOf(task.dir), dest], {
    env: { ...options.env, LAB_CHECKOUT: options.purpose },
    timeoutMs: options.timeoutMs,
    ...(options.logFile === undefined ? {} : { logFile: options.logFile }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (result.aborted) throw new LabError("CANCELLED", "Cancelled while preparing the work tree.");
  if (result.timedOut || result.exitCode !== 0) {
    const why = result.timedOut
      ? `timed out after ${String(options.timeoutMs)} ms`
      : `exited with ${String(result.exitCode ?? result.signal)}`;
    throw new LabError(
      "SETUP_FAILED",
      `${setupScriptOf(task.dir)} ${why}: ${result.stderrTail.trim().split("\n").at(-1) ?? ""}`,
      {
        hint: "Run the script by hand with an empty folder to see why.",
      },
    );
  }
  if (options.purpose === "grade") await verifyHeadIs(dest, task.info.baseCommit);
  else await verifyHistoryEndsAt(dest, task.info.baseCommit);
}
