import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { closestNames, isLabError, LabError, UsageError } from "../core/index.js";
import {
  acquireRunLock,
  describeRun,
  listRunIds,
  listRunOverviews,
  runFolderOf,
  runPaths,
  type RunLock,
  type RunOverview,
} from "../store/index.js";
import { defineCommand, flagOption } from "./command.js";
import { alignColumns, commonOptions, settingsFrom } from "./shared.js";

/** A run's state as the list shows it: a running run names its process. */
function stateText(run: RunOverview): string {
  if (run.state === "running")
    return run.holder === null || run.holder.pid === 0
      ? "running (locked)"
      : `running (pid ${String(run.holder.pid)})`;
  return run.state;
}

/** An unknown run id's error, with the near ones. */
export function unknownRun(runId: string, runsDir: string): LabError {
  const known = listRunIds(runsDir);
  const near = closestNames(runId, known);
  return new LabError("RUN_NOT_FOUND", `No run "${runId}" in ${runsDir}.`, {
    hint:
      near.length > 0
        ? `Did you mean ${near.join(" or ")}?`
        : known.length > 0
          ? "`lab runs list` shows the runs there (--runs-dir or LAB_RUNS_DIR for another folder)."
          : "That folder holds no runs; --runs-dir or LAB_RUNS_DIR names another.",
  });
}

/** The folder of an existing run, or RUN_NOT_FOUND with the near ids. */
export function existingRunFolder(runsDir: string, runId: string): string {
  const dir = runFolderOf(runsDir, runId);
  if (!listRunIds(runsDir).includes(runId)) throw unknownRun(runId, runsDir);
  return dir;
}

/** `lab runs list|rm`. */
export const runsCommand = defineCommand({
  name: "runs",
  summary:
    "List the runs in the runs folder (id, suite, tool, state, trials done of planned, resolved, when started), or remove runs that are not running.",
  usage: "runs (list | rm ID...)",
  positionals: { min: 1, max: 1000 },
  options: {
    json: { type: "boolean", description: "list: one JSON object per run on stdout" },
    ...commonOptions,
  },
  details: `States: completed (every planned trial finished), cancelled (Ctrl-C), failed (lab itself
failed), stopped (--max-cost-total reached), running (a live lab process holds its run.lock),
incomplete (ended early or killed: rerunning the same \`lab run\` resumes it), unreadable
(run.json cannot be read; \`lab runs rm\` still removes it).

\`lab runs rm ID...\` removes each run's folder, checking them all first: it refuses a run a live
lab process is running, and an id that is not a run folder of the runs folder.

Examples:
  lab runs list
  lab runs list --json
  lab runs rm starter-noop`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const [action, ...ids] = args.positionals;
    if (action === "list") {
      if (ids.length > 0) throw new UsageError(`Unexpected argument "${String(ids[0])}".`);
      const runs = await listRunOverviews(settings.runsDir);
      if (flagOption(args, "json")) {
        for (const run of runs) io.stdout.write(`${JSON.stringify(run)}\n`);
        return 0;
      }
      if (runs.length === 0) {
        io.stderr.write(`No runs in ${settings.runsDir}.\n`);
        return 0;
      }
      io.stdout.write(
        alignColumns([
          ["RUN", "SUITE", "TOOL", "STATE", "TRIALS", "RESOLVED", "STARTED"],
          ...runs.map((run) => [
            run.runId,
            run.suite ?? "-",
            run.label ?? "-",
            stateText(run),
            run.suite === null ? "-" : `${String(run.trialsDone)}/${String(run.trialsPlanned)}`,
            run.suite === null ? "-" : String(run.resolved),
            run.createdAt === null ? "-" : `${run.createdAt.slice(0, 16).replace("T", " ")} UTC`,
          ]),
        ]),
      );
      for (const run of runs)
        if (run.note !== null) io.stderr.write(`lab: ${run.runId}: ${run.note}\n`);
      return 0;
    }
    if (action === "rm") {
      if (ids.length === 0) throw new UsageError("Missing argument: lab runs rm ID...");
      await removeRuns(settings.runsDir, [...new Set(ids)], io.stderr);
      return 0;
    }
    throw new UsageError(
      `lab runs has no "${String(action)}": it takes list or rm.`,
      "Run `lab runs --help` for the usage.",
    );
  },
});

/**
 * Removes runs: every id is checked before any folder goes (a run folder of runsDir, not
 * running), and each run's lock is held while its folder is removed, so a `lab run` starting
 * at that moment waits for nothing half-removed.
 */
async function removeRuns(
  runsDir: string,
  ids: readonly string[],
  stderr: { write(text: string): unknown },
): Promise<void> {
  const locks: { id: string; dir: string; lock: RunLock }[] = [];
  try {
    for (const id of ids) {
      const dir = existingRunFolder(runsDir, id);
      const lock = await acquireRunLock(runPaths(runsDir, id)).catch(async (error: unknown) => {
        if (!isLabError(error) || error.code !== "RUN_LOCKED") throw error;
        const run = await describeRun(runsDir, id);
        const who =
          run.holder === null || run.holder.pid === 0
            ? "a lab process"
            : `lab process ${String(run.holder.pid)} on ${run.holder.host}`;
        throw new LabError("RUN_LOCKED", `Run "${id}" is running (${who}); it was not removed.`, {
          hint: `Stop that process first (Ctrl-C in its terminal, or kill ${run.holder?.pid === undefined || run.holder.pid === 0 ? "it" : String(run.holder.pid)}), then run \`lab runs rm ${id}\` again.${ids.length > 1 ? " No run was removed." : ""}`,
        });
      });
      locks.push({ id, dir, lock });
    }
    for (const { id, dir } of locks) {
      // Checked again at the last moment: the folder must sit right in runsDir.
      if (path.dirname(dir) !== path.resolve(runsDir) || !existsSync(dir)) continue;
      await rm(dir, { recursive: true, force: true });
      stderr.write(`removed run ${id} (${dir})\n`);
    }
  } finally {
    // A removed run's lock went with its folder; the others' are given back.
    for (const { lock } of locks) await lock.release();
  }
}
