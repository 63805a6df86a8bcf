import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { EnvironmentSpec, Oracle, Task, TaskInfo, TaskMetadata } from "../../core/index.js";
import { CHECK_SH } from "../../datasets/index.js";
import { renderPrompt, setupScriptOf, suiteLayout } from "../../suite/index.js";
import { renderRepoSetupScript } from "./base-repo.js";
import type { Candidate } from "./mining.js";

/** Everything written for one repo task. */
export interface RepoTaskDraft {
  readonly candidate: Candidate;
  /** "owner/name" or the repository's folder name. */
  readonly repo: string;
  readonly issue: string;
  readonly metadata: TaskMetadata;
  readonly environment: EnvironmentSpec;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
}

/** The public facts of a repo task. */
export function repoTaskInfo(draft: RepoTaskDraft): TaskInfo {
  return {
    id: draft.candidate.id,
    repo: draft.repo,
    baseCommit: draft.candidate.base,
    metadata: draft.metadata,
  };
}

/** Writes a repo task's folder and oracle in lab's task format, replacing what was there. */
export async function renderRepoTask(suiteDir: string, draft: RepoTaskDraft): Promise<Task> {
  const { candidate } = draft;
  const layout = suiteLayout(suiteDir);
  const taskDir = layout.taskDir(candidate.id);
  const oracleDir = layout.oracleDir(candidate.id);
  await rm(taskDir, { recursive: true, force: true });
  await rm(oracleDir, { recursive: true, force: true });
  await mkdir(taskDir, { recursive: true });
  await mkdir(oracleDir, { recursive: true });
  const prompt = renderPrompt(draft.issue);
  await writeFile(path.join(taskDir, "prompt.txt"), prompt);
  await writeFile(
    setupScriptOf(taskDir),
    renderRepoSetupScript(draft.repo, candidate.id, candidate.base),
  );
  await writeFile(path.join(taskDir, "check.sh"), CHECK_SH);
  await chmod(setupScriptOf(taskDir), 0o755);
  await chmod(path.join(taskDir, "check.sh"), 0o755);
  const info = repoTaskInfo(draft);
  await writeFile(path.join(taskDir, "task.json"), `${JSON.stringify(info, null, 2)}\n`);
  await writeFile(path.join(oracleDir, "gold.patch"), candidate.goldPatch);
  await writeFile(path.join(oracleDir, "test.patch"), candidate.testPatch);
  await writeTestLists(oracleDir, draft.failToPass, draft.passToPass);
  await writeFile(
    path.join(oracleDir, "environment.json"),
    `${JSON.stringify(draft.environment, null, 2)}\n`,
  );
  return {
    suite: path.basename(suiteDir),
    info,
    dir: taskDir,
    oracleDir,
    prompt,
  };
}

/** The oracle of a draft, as the grader takes it. */
export function draftOracle(draft: RepoTaskDraft): Oracle {
  return {
    goldPatch: draft.candidate.goldPatch,
    testPatch: draft.candidate.testPatch,
    failToPass: draft.failToPass,
    passToPass: draft.passToPass,
    environment: draft.environment,
  };
}

/** Writes tests.json once validation has found the lists. */
export async function writeTestLists(
  oracleDir: string,
  failToPass: readonly string[],
  passToPass: readonly string[],
): Promise<void> {
  await writeFile(
    path.join(oracleDir, "tests.json"),
    `${JSON.stringify({ FAIL_TO_PASS: failToPass, PASS_TO_PASS: passToPass }, null, 2)}\n`,
  );
}

/** Writes task.json again with final metadata. */
export async function writeTaskInfo(taskDir: string, info: TaskInfo): Promise<void> {
  await writeFile(path.join(taskDir, "task.json"), `${JSON.stringify(info, null, 2)}\n`);
}

/** Removes a task's folder and oracle. */
export async function removeRepoTask(suiteDir: string, id: string): Promise<void> {
  const layout = suiteLayout(suiteDir);
  await rm(layout.taskDir(id), { recursive: true, force: true });
  await rm(layout.oracleDir(id), { recursive: true, force: true });
}
