import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Job } from "bullmq";
import { errorMessage, isLabError, type Task, type ValidationProof } from "../core/index.js";
import { ensureBaseRepo } from "../datasets/index.js";
import { localProver } from "../gen/index.js";
import { loadOracle, loadSuite, loadTask, suiteLayout, taskContentHash } from "../suite/index.js";
import { packFolder } from "./bundle.js";
import {
  PROTOCOL_VERSION,
  type ProofJobData,
  type ProofReturn,
  type TaskFile,
} from "./protocol.js";
import { markTriedHere, preferOtherWorkers, refuse, type WorkerContext } from "./worker-context.js";

/** Whether `file` holds `content` already. */
async function holds(file: string, content: string): Promise<boolean> {
  try {
    return (await readFile(file, "utf8")) === content;
  } catch {
    return false;
  }
}

/**
 * Puts a task this gen has just made into this worker's copy of its suite, as the job ships
 * it: its task and oracle folders are replaced when they differ. Files outside them are refused.
 */
async function placeTask(
  suiteDir: string,
  taskId: string,
  files: readonly TaskFile[],
): Promise<void> {
  const layout = suiteLayout(suiteDir);
  const allowed = [layout.taskDir(taskId), layout.oracleDir(taskId)];
  const targets = files.map((file) => {
    const target = path.resolve(suiteDir, file.path);
    if (!allowed.some((dir) => target.startsWith(`${dir}${path.sep}`)))
      throw new Error(`the job ships a file outside task ${taskId}'s folders: ${file.path}`);
    return { file, target };
  });
  const same = await Promise.all(targets.map(({ file, target }) => holds(target, file.content)));
  if (same.every(Boolean)) return;
  for (const dir of allowed) await rm(dir, { recursive: true, force: true });
  for (const { file, target } of targets) {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    if (file.executable) await chmod(target, 0o755);
  }
}

/**
 * Proves a task on this worker (`localProver`: gold resolves it, no change fails it), `runs`
 * times, and returns the proofs with their grading logs. A task this gen has just made comes
 * with its files and is put into this worker's copy of the suite, with its base repository
 * fetched here; otherwise the worker's suite must hold the task, with the same content.
 */
export async function processProof(
  job: Job,
  data: ProofJobData,
  token: string | undefined,
  signal: AbortSignal,
  context: WorkerContext,
): Promise<ProofReturn> {
  const { settings } = context;
  const { gen } = data;
  if (gen.labVersion !== settings.labVersion)
    return refuse(
      context,
      job,
      token,
      gen.key,
      `the gen was started by lab ${gen.labVersion} and this worker is lab ${settings.labVersion}; run the same lab version on the coordinator and the workers`,
    );
  const evalsRoot = settings.evalsDir ?? path.join(settings.cwd, "evals");
  if (data.task !== undefined) {
    const suiteDir = path.join(evalsRoot, gen.suite);
    await placeTask(suiteDir, data.taskId, data.task.files);
    if (data.task.baseRepo !== undefined) {
      try {
        await ensureBaseRepo(
          {
            cacheDir: suiteLayout(suiteDir).cacheDir,
            // As on the coordinator: full copies shared by every SWE-bench suite in lab's cache.
            reposDir: path.join(settings.environment.cacheDir, "swebench", "repos"),
            mirrorsDir: settings.mirrorsDir,
            signal,
          },
          data.task.baseRepo.repo,
          data.taskId,
          data.task.baseRepo.baseCommit,
        );
      } catch (error) {
        await markTriedHere(context, job, data.triedOn);
        throw new Error(
          `worker ${settings.name} could not fetch ${data.task.baseRepo.repo} at ${data.task.baseRepo.baseCommit.slice(0, 10)}${settings.mirrorsDir === undefined ? " from GitHub (no --mirrors)" : ` from ${settings.mirrorsDir}`}: ${errorMessage(error)}`,
        );
      }
    }
  }
  let task: Task;
  try {
    const suite = await loadSuite(gen.suite, {
      evalsDir: data.task === undefined ? settings.evalsDir : evalsRoot,
      cwd: settings.cwd,
    });
    task = await loadTask(suite, data.taskId);
  } catch (error) {
    return refuse(
      context,
      job,
      token,
      gen.key,
      `this worker cannot load the task: ${errorMessage(error)}`,
    );
  }
  const hash = await taskContentHash(task);
  if (hash !== data.taskHash)
    return refuse(
      context,
      job,
      token,
      gen.key,
      `task ${data.taskId} of suite "${gen.suite}" differs here (content hash ${hash}, the gen's ${data.taskHash}): give this worker the coordinator's copy of the suite`,
    );
  await preferOtherWorkers(context, job, token, data.triedOn, data.deferrals);

  const staging = await mkdtemp(path.join(context.stagingRoot, `proof-${data.taskId}-`));
  const what = `${gen.suite}: proof of ${data.taskId}`;
  settings.onLog("info", `${what}: started`);
  try {
    const prove = localProver({
      environment: settings.environment,
      labVersion: settings.labVersion,
      testTimeoutMs: gen.testTimeoutMs,
      signal,
    });
    let proofs: ValidationProof[] = [];
    let failure: ProofReturn["failure"] = null;
    try {
      proofs = await prove({
        task,
        oracle: await loadOracle(task),
        runs: data.runs,
        logDirOf: (run) => path.join(staging, `run${String(run)}`),
      });
    } catch (error) {
      const attemptsLeft = (job.opts.attempts ?? 1) - job.attemptsMade - 1;
      // An environment that cannot be built decides the task (as here, so anywhere); any other
      // failure is this machine's, and is tried again elsewhere while attempts are left.
      if (isLabError(error) && error.code === "ENVIRONMENT_FAILED") {
        failure = { code: error.code, message: error.message };
      } else if (attemptsLeft > 0 && !signal.aborted) {
        settings.onLog("warn", `${what}: failed on this worker: ${errorMessage(error)}`);
        await markTriedHere(context, job, data.triedOn);
        throw error;
      } else {
        throw error;
      }
    }
    settings.onLog(
      "info",
      `${what}: ${failure !== null ? `not proven: ${failure.message}` : proofs.every((proof) => proof.valid) ? "proven" : "NOT proven"}`,
    );
    return {
      v: PROTOCOL_VERSION,
      worker: settings.name,
      proofs,
      failure,
      bundle: await packFolder(staging, { first: [], where: `worker ${settings.name}` }),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
