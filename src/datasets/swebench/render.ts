import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { EnvironmentSpec, TaskInfo } from "../../core/index.js";
import { measureDifficulty } from "../difficulty.js";
import {
  CACHE_FROM_TASK_DIR,
  renderPrompt,
  setupScriptOf,
  suiteLayout,
} from "../../suite/index.js";
import { MODULES_DIR } from "./repos.js";
import type { SwebenchRow } from "./row.js";

/**
 * The check.sh every task shares: it runs `lab grade`, which grades in lab's sandbox. Without lab
 * on PATH it says how to get it there, instead of bash's bare "lab: not found".
 */
export const CHECK_SH = `#!/usr/bin/env bash
# Grades a work tree (or, with --patch FILE, a diff) against this task's hidden tests,
# its install and tests run in a bwrap sandbox (unconfined only where bwrap cannot run).
# Runs the lab on PATH (\`npm link\` in lab's folder puts it there), or the one LAB_BIN names.
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
lab="\${LAB_BIN:-lab}"
if ! command -v "$lab" >/dev/null; then
  echo "check.sh: cannot run lab (\${lab}): run \\\`npm link\\\` in lab's folder to put it on PATH, or set LAB_BIN=/path/to/lab/bin/lab.js." >&2
  exit 127
fi
exec "$lab" grade --task-dir "$here" "$@"
`;

/** setup.sh of a swebench task: a clone of the task's base repository, which holds nothing later. */
export function renderSetupScript(row: SwebenchRow): string {
  return `#!/usr/bin/env bash
# Prepares this task's work tree in the folder given: ${row.repo} at ${row.base_commit},
# with its history up to that commit and nothing later.
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
base_repo="$here/${CACHE_FROM_TASK_DIR}/bases/${row.instance_id}.git"
if [ ! -d "$base_repo" ]; then
  echo "setup.sh: $base_repo is missing; run: lab gen --suite swebench --instances ${row.instance_id}" >&2
  exit 2
fi
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
if [ "\${LAB_CHECKOUT:-tool}" = grade ]; then
  # lab's grading checkout: its objects may be hard links to the base repository's, since
  # graded code sees its git directory read-only and git never rewrites an object.
  git clone --quiet "$base_repo" "$1"
else
  # --no-hardlinks: the tool owns its .git, and must not share files with lab's cache.
  git clone --quiet --no-hardlinks "$base_repo" "$1"
fi
git -C "$1" remote remove origin
# The base commit's submodules at their pinned commits, checked out as \`git submodule update
# --init\` does (upstream's images have them so), from the copies lab keeps in the base
# repository. Each keeps its .git folder inside it, so the checkout's own .git may move.
modules="$base_repo/${MODULES_DIR}"
if [ -f "$modules/list" ]; then
  while IFS=$'\\t' read -r name path url; do
    git clone --quiet --no-hardlinks "$modules/$name.git" "$1/$path"
    git -C "$1/$path" checkout --quiet --detach
    git -C "$1/$path" remote set-url origin "$url"
    git -C "$1" config "submodule.$name.url" "$url"
  done <"$modules/list"
fi
`;
}

/** What gets written for one instance. */
export interface RenderedTask {
  readonly info: TaskInfo;
  readonly environment: EnvironmentSpec;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
}

/** Writes a task folder and its oracle, replacing what was there. */
export async function renderTask(
  suiteDir: string,
  row: SwebenchRow,
  task: RenderedTask,
  options: { hints: boolean },
): Promise<void> {
  const layout = suiteLayout(suiteDir);
  const taskDir = layout.taskDir(row.instance_id);
  const oracleDir = layout.oracleDir(row.instance_id);
  await rm(taskDir, { recursive: true, force: true });
  await rm(oracleDir, { recursive: true, force: true });
  await mkdir(taskDir, { recursive: true });
  await mkdir(oracleDir, { recursive: true });
  await writeFile(
    path.join(taskDir, "prompt.txt"),
    renderPrompt(row.problem_statement, options.hints ? row.hints_text : undefined),
  );
  await writeFile(setupScriptOf(taskDir), renderSetupScript(row));
  await writeFile(path.join(taskDir, "check.sh"), CHECK_SH);
  await chmod(setupScriptOf(taskDir), 0o755);
  await chmod(path.join(taskDir, "check.sh"), 0o755);
  await writeFile(path.join(taskDir, "task.json"), `${JSON.stringify(task.info, null, 2)}\n`);
  await writeFile(path.join(oracleDir, "gold.patch"), row.patch);
  await writeFile(path.join(oracleDir, "test.patch"), row.test_patch);
  await writeFile(
    path.join(oracleDir, "tests.json"),
    `${JSON.stringify({ FAIL_TO_PASS: task.failToPass, PASS_TO_PASS: task.passToPass }, null, 2)}\n`,
  );
  await writeFile(
    path.join(oracleDir, "environment.json"),
    `${JSON.stringify(task.environment, null, 2)}\n`,
  );
}

/** task.json of an instance: public facts and difficulty proxies, nothing of the oracle. */
export function taskInfoOf(row: SwebenchRow, dataset: string): TaskInfo {
  return {
    id: row.instance_id,
    repo: row.repo,
    baseCommit: row.base_commit,
    metadata: {
      dataset,
      version: row.version,
      createdAt: row.created_at,
      ...measureDifficulty(row.patch, row.problem_statement),
    },
  };
}
