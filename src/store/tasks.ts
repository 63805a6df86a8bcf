import { existsSync } from "node:fs";
import { z } from "zod";
import { SCHEMA_VERSION, taskInfoSchema, type TaskInfo } from "../core/index.js";
import { writeJsonAtomic } from "./atomic.js";
import { readStored, type RunPaths } from "./runs.js";

/** tasks.json, as stored: the public facts of every task the run has attempted. */
export const runTasksSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tasks: z.record(z.string(), taskInfoSchema),
});

/** Task id to task facts, as a report reads them. */
export type RunTasks = Readonly<Record<string, TaskInfo>>;

/** Reads a run's tasks.json; an empty record for runs made before lab wrote one. */
export async function readRunTasks(run: RunPaths): Promise<RunTasks> {
  if (!existsSync(run.tasksJson)) return {};
  return (await readStored(run.tasksJson, runTasksSchema)).tasks;
}

/**
 * Writes tasks.json atomically, merged with the one already there (a resumed run may add
 * tasks): the newest facts of a task win.
 */
export async function writeRunTasks(run: RunPaths, tasks: readonly TaskInfo[]): Promise<void> {
  // A damaged copy is rewritten rather than fatal: these facts come from the suite's task.json.
  const earlier = await readRunTasks(run).catch(() => ({}));
  const merged: Record<string, TaskInfo> = { ...earlier };
  for (const task of tasks) merged[task.id] = task;
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((id) => [id, merged[id]]),
  );
  await writeJsonAtomic(run.tasksJson, { schemaVersion: SCHEMA_VERSION, tasks: sorted });
}
