import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { environmentOptions } from "../config/index.js";
import { LabError, UsageError } from "../core/index.js";
import { gradeChange } from "../grader/index.js";
import { loadOracle, loadSuite, loadTask, locateTaskDir } from "../suite/index.js";
import { defineCommand, flagOption, stringOption } from "./command.js";
import { settingsFrom } from "./shared.js";

/** `lab grade`: what a task's check.sh runs. */
export const gradeCommand = defineCommand({
  name: "grade",
  summary:
    "Grade one change against a task's hidden tests, its install and tests run in a bwrap sandbox (unconfined on the host only where bwrap cannot run): the work tree's diff (or a patch file) is applied to a fresh checkout of the base commit, never graded in place. Exit 0 when resolved, 1 when not, 2 when it could not be graded (a usage error, a missing task or work tree, an environment that would not build).",
  usage: "grade --task-dir DIR (WORKTREE | --patch FILE) [--json]",
  positionals: { min: 0, max: 1 },
  errorExitCode: 2,
  options: {
    "task-dir": {
      type: "string",
      value: "DIR",
      description: "The task folder (evals/<suite>/tasks/<id>)",
    },
    patch: { type: "string", value: "FILE", description: "Grade this diff instead of a work tree" },
    log: {
      type: "string",
      value: "FILE",
      description: "Keep the grading log in this file (default: none is kept)",
    },
    json: { type: "boolean", description: "Print the grade as JSON" },
  },
  async run(args, io) {
    const taskDirArg = stringOption(args, "task-dir");
    if (taskDirArg === undefined) throw new UsageError("lab grade needs --task-dir DIR.");
    const taskDir = path.resolve(io.cwd, taskDirArg);
    const located = locateTaskDir(taskDir);
    if (located === undefined || !existsSync(taskDir)) {
      throw new LabError(
        "TASK_NOT_FOUND",
        `${taskDir} is not a task folder (evals/<suite>/tasks/<id>).`,
      );
    }
    const patchFile = stringOption(args, "patch");
    const workTree = args.positionals[0];
    if ((patchFile === undefined) === (workTree === undefined))
      throw new UsageError("Give either a work tree or --patch FILE, not both or neither.");
    const suite = await loadSuite(path.basename(located.suiteDir), {
      evalsDir: path.dirname(located.suiteDir),
      cwd: io.cwd,
    });
    const task = await loadTask(suite, located.id);
    const oracle = await loadOracle(task);
    let change: { patch: string } | { workTree: string };
    if (patchFile !== undefined) {
      const file = path.resolve(io.cwd, patchFile);
      if (!existsSync(file))
        throw new LabError("PATCH_INVALID", `Patch file ${file} does not exist.`);
      change = { patch: await readFile(file, "utf8") };
    } else {
      const tree = path.resolve(io.cwd, workTree ?? "");
      if (!existsSync(tree))
        throw new LabError("PATCH_INVALID", `Work tree ${tree} does not exist.`);
      change = { workTree: tree };
    }
    const settings = settingsFrom(args, io);
    await mkdir(settings.scratchRoot, { recursive: true });
    const scratch = await mkdtemp(path.join(settings.scratchRoot, `lab-grade-${task.info.id}-`));
    const keptLog = stringOption(args, "log");
    const logFile =
      keptLog === undefined
        ? path.join(
            os.tmpdir(),
            `lab-grade-${task.info.id}-${String(process.pid)}-${String(Date.now())}.log`,
          )
        : path.resolve(io.cwd, keptLog);
    let grade;
    try {
      ({ grade } = await gradeChange(task, oracle, change, {
        scratchDir: scratch,
        logFile,
        environment: environmentOptions(settings, io.signal),
        setupTimeoutMs: 10 * 60_000,
        installTimeoutMs: 20 * 60_000,
        testTimeoutMs: 30 * 60_000,
        signal: io.signal,
      }));
    } finally {
      if (keptLog === undefined) await rm(logFile, { force: true });
    }
    const kept = keptLog === undefined ? null : logFile;
    if (flagOption(args, "json"))
      io.stdout.write(
        `${JSON.stringify({ taskId: task.info.id, logFile: kept, ...grade }, null, 2)}\n`,
      );
    else
      io.stdout.write(
        `${task.info.id}: ${grade.resolved ? "resolved" : `unresolved: ${String(grade.reason)}`}${kept === null ? "" : ` (log: ${kept})`}\n`,
      );
    return grade.resolved ? 0 : 1;
  },
});
