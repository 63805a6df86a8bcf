import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../../core/index.js";
import { fetchCommitCuttingMissing, git, tryGit } from "../../git/index.js";
import { withLock } from "../../store/index.js";
import { CACHE_FROM_TASK_DIR } from "../../suite/index.js";
import { isGitRepository } from "./infer-env.js";

/** The suite's base repository: one branch `lab/<task id>` per task, at its base commit. */
export function suiteBaseRepo(cacheDir: string): string {
  return path.join(cacheDir, "base.git");
}

/** The branch of a task in the suite's base repository. */
export function taskBranch(id: string): string {
  return `lab/${id}`;
}

/**
 * The repository lab mines: a local repository (bare or not) is read in place; a URL is cloned
 * once into the suite's cache as a mirror and fetched again on later runs.
 */
export async function resolveSource(
  from: string,
  cacheDir: string,
  signal?: AbortSignal,
): Promise<string> {
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(from) || /^[^/]+@[^/:]+:/.test(from);
  if (!isUrl) {
    if (!(await isGitRepository(from)))
      throw new LabError("GIT_FAILED", `${from} is not a git repository.`, {
        hint: "--from-repo takes a local git repository (bare or not) or a URL git can clone.",
      });
    return from;
  }
  const mirror = path.join(cacheDir, "source.git");
  await mkdir(cacheDir, { recursive: true });
  return withLock(mirror, async () => {
    if (existsSync(path.join(mirror, "HEAD"))) {
      await git(
        [
          "fetch",
          "--quiet",
          "--prune",
          from,
          "+refs/heads/*:refs/heads/*",
          "+refs/tags/*:refs/tags/*",
        ],
        {
          cwd: mirror,
          timeoutMs: 3_600_000,
          signal,
        },
      );
      return mirror;
    }
    const staging = `${mirror}.${String(process.pid)}.tmp`;
    await rm(staging, { recursive: true, force: true });
    await git(["clone", "--quiet", "--mirror", from, staging], {
      cwd: cacheDir,
      timeoutMs: 3_600_000,
      signal,
    });
    await rename(staging, mirror);
    return mirror;
  });
}

/**
 * Puts a task's base commit into the suite's base repository, as branch `lab/<id>`, with the
 * tags on its ancestors (version tools such as setuptools_scm read them). The repository holds
 * base commits and their ancestors only: fetching a commit by hash brings its ancestry and
 * nothing later, and setup.sh clones one branch through git's transport, which sends only what
 * that branch reaches. Returns the commits the history was cut at when the mined copy lacks
 * objects of older history only (see fetchCommitCuttingMissing; the repository is then shallow).
 */
export async function addTaskBase(
  source: string,
  repo: string,
  cacheDir: string,
  id: string,
  commit: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const target = suiteBaseRepo(cacheDir);
  return withLock(
    target,
    async () => {
      if (!existsSync(path.join(target, "HEAD"))) {
        await mkdir(cacheDir, { recursive: true });
        await git(["init", "--quiet", "--bare", target], { cwd: cacheDir });
      }
      const ref = `refs/heads/${taskBranch(id)}`;
      const current = await tryGit(["rev-parse", "--verify", "--quiet", ref], { cwd: target });
      if ((current.stdout ?? "").trim() === commit) return [];
      return fetchCommitCuttingMissing(target, source, commit, ref, repo, signal);
    },
    { signal },
  );
}

/** Removes a dropped task's branch from the suite's base repository. */
export async function removeTaskBase(cacheDir: string, id: string): Promise<void> {
  const target = suiteBaseRepo(cacheDir);
  if (!existsSync(path.join(target, "HEAD"))) return;
  await withLock(target, async () => {
    await tryGit(["update-ref", "-d", `refs/heads/${taskBranch(id)}`], { cwd: target });
  });
}

/** setup.sh of a repo task: one branch of the suite's base repository, cloned through git's transport. */
export function renderRepoSetupScript(repo: string, id: string, commit: string): string {
  return `#!/usr/bin/env bash
# Prepares this task's work tree in the folder given: ${repo} at ${commit},
# with its history up to that commit and nothing later.
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
base_repo="$here/${CACHE_FROM_TASK_DIR}/base.git"
commit=${commit}
if [ ! -d "$base_repo" ]; then
  echo "setup.sh: $base_repo is missing; run lab gen --from-repo again for this suite" >&2
  exit 2
fi
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
# --no-local: git's transport sends only what the task's branch reaches (a local clone would
# copy every object of the base repository, later base commits included).
git clone --quiet --no-local --no-tags --single-branch --branch ${taskBranch(id)} "$base_repo" "$1"
tags="$(git --git-dir="$base_repo" for-each-ref --merged "$commit" --format='+%(refname):%(refname)' refs/tags)"
if [ -n "$tags" ]; then
  # shellcheck disable=SC2086
  git -C "$1" fetch --quiet --no-tags origin $tags
fi
git -C "$1" branch --quiet -m main
git -C "$1" remote remove origin
`;
}
