import path from "node:path";
import type { Task } from "../core/index.js";

/**
 * The files and folders of a suite folder, `evals/<suite>/`. Their names are written here only,
 * so gen, the runner, the grader and review cannot drift apart; evals/README.md describes them.
 */
export interface SuiteLayout {
  /** The suite folder itself. */
  readonly dir: string;
  /** `tasks/`: one folder per task, what a tool may know. */
  readonly tasksDir: string;
  /** `oracle/`: one folder per task, the answer key a tool never sees. */
  readonly oracleRoot: string;
  /** `suite.json`: the suite's name, version and description. */
  readonly suiteFile: string;
  /** `README.md`: what the suite is; gen writes its kept and dropped lists into it. */
  readonly readmeFile: string;
  /** `proof.json`: written by `lab gen`, each task's proof. */
  readonly proofFile: string;
  /** `dropped.json`: written by `lab gen`, what it kept and what it dropped, with reasons. */
  readonly droppedFile: string;
  /** `candidates.json`: written by `lab gen --from-repo`, every change it mined and its profile. */
  readonly candidatesFile: string;
  /** `sampling.md`: written by `lab gen --from-repo`, its sampling report. */
  readonly samplingFile: string;
  /** `reviews.jsonl`: the reviews `lab review` records, beside the tasks. */
  readonly reviewsFile: string;
  /** `audit.json`: written by `lab audit`, each task's oracle audit (variants of its gold patch). */
  readonly auditFile: string;
  /** `.cache/`: gen's repositories and proof logs (setup.sh clones from there). */
  readonly cacheDir: string;
  /** `tasks/<id>`. */
  taskDir(id: string): string;
  /** `oracle/<id>`. */
  oracleDir(id: string): string;
  /** `.cache/audit-logs/<id>`: `lab audit`'s grading logs of a task's variants. */
  auditLogDir(id: string): string;
  /**
   * `.cache/proof-logs`: gen's grading logs of its proofs; with a run number, that run's own
   * folder `run<N>` (swebench gen, which names its logs by task and grade only).
   */
  proofLogDir(run?: number): string;
}

/** The layout of the suite folder `dir`. */
export function suiteLayout(dir: string): SuiteLayout {
  const tasksDir = path.join(dir, "tasks");
  const oracleRoot = path.join(dir, "oracle");
  const cacheDir = path.join(dir, ".cache");
  return {
    dir,
    tasksDir,
    oracleRoot,
    suiteFile: path.join(dir, "suite.json"),
    readmeFile: path.join(dir, "README.md"),
    proofFile: path.join(dir, "proof.json"),
    droppedFile: path.join(dir, "dropped.json"),
    candidatesFile: path.join(dir, "candidates.json"),
    samplingFile: path.join(dir, "sampling.md"),
    reviewsFile: path.join(dir, "reviews.jsonl"),
    auditFile: path.join(dir, "audit.json"),
    cacheDir,
    taskDir: (id) => path.join(tasksDir, id),
    oracleDir: (id) => path.join(oracleRoot, id),
    auditLogDir: (id) => path.join(cacheDir, "audit-logs", id),
    proofLogDir: (run) =>
      run === undefined
        ? path.join(cacheDir, "proof-logs")
        : path.join(cacheDir, "proof-logs", `run${String(run)}`),
  };
}

/**
 * The suite's cache folder as a task's setup.sh reaches it from its own folder (`../../.cache`):
 * setup.sh clones its base repository from there.
 */
export const CACHE_FROM_TASK_DIR = path.relative(
  suiteLayout(path.sep).taskDir("id"),
  suiteLayout(path.sep).cacheDir,
);

/** The suite folder a loaded task belongs to, from its oracle folder `<suite>/oracle/<id>`. */
export function suiteDirOf(task: Pick<Task, "oracleDir">): string {
  return path.dirname(path.dirname(task.oracleDir));
}

/**
 * The suite folder and task id of a task folder `<suite>/tasks/<id>`, or undefined when the
 * path is not laid out as one.
 */
export function locateTaskDir(taskDir: string): { suiteDir: string; id: string } | undefined {
  const suiteDir = path.dirname(path.dirname(taskDir));
  if (path.dirname(taskDir) !== suiteLayout(suiteDir).tasksDir) return undefined;
  return { suiteDir, id: path.basename(taskDir) };
}

/** A task folder's `setup.sh`, which makes a work tree at the base commit (evals/README.md). */
export function setupScriptOf(taskDir: string): string {
  return path.join(taskDir, "setup.sh");
}
