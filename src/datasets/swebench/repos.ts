import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../../core/index.js";
import { fetchCommitWithTags, findMissingObjects, git, tryGit } from "../../git/index.js";
import { withLock } from "../../store/index.js";

/** Where repositories come from and where lab keeps its copies. */
export interface RepoSource {
  /** The suite's `.cache`: one base repository per task in bases/, which setup.sh clones. */
  readonly cacheDir: string;
  /**
   * Full copies of each repository, shared by every suite made from SWE-bench (lab's cache):
   * a Lite and a Verified suite fetch a repository's history once.
   */
  readonly reposDir: string;
  /** A folder holding `<owner>/<name>` git repositories (bare or not), instead of GitHub. */
  readonly mirrorsDir?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Told before a repository's history is fetched, which can take minutes: for progress. */
  readonly onFetch?: ((message: string) => void) | undefined;
}

/** The folder name of a repository in the cache. */
export function repoSlug(repo: string): string {
  return repo.replace("/", "__");
}

/** Where a repository's full mirror is kept. */
export function mirrorPath(source: RepoSource, repo: string): string {
  return path.join(source.reposDir, `${repoSlug(repo)}.git`);
}

/**
 * Whether a repository can be had: always from GitHub; with a mirrors folder, only when it
 * holds that repository (or lab's cache already has a full copy).
 */
export function hasSource(source: RepoSource, repo: string): boolean {
  return (
    source.mirrorsDir === undefined ||
    existsSync(path.join(source.mirrorsDir, repo)) ||
    existsSync(mirrorPath(source, repo))
  );
}

/** Where a task's base repository (the base commit and its ancestors only) is kept. */
export function baseRepoPath(cacheDir: string, instanceId: string): string {
  return path.join(cacheDir, "bases", `${instanceId}.git`);
}

/** The URL or folder a repository is cloned from. */
export function upstreamOf(source: RepoSource, repo: string): string {
  if (source.mirrorsDir === undefined) return `https://github.com/${repo}.git`;
  const local = path.join(source.mirrorsDir, repo);
  if (!existsSync(local)) {
    throw new LabError("GIT_FAILED", `No mirror of ${repo} at ${local}.`, {
      hint: "--mirrors DIR (or LAB_MIRRORS) must hold DIR/<owner>/<name> git repositories, bare or not.",
    });
  }
  return local;
}

/**
 * Makes sure lab has a full copy of a repository: the first time it is cloned (all refs) from
 * GitHub or the mirror; later tasks and reruns use the local copy. Safe under concurrent gens.
 */
export async function ensureMirror(
  source: RepoSource,
  repo: string,
  commit: string,
): Promise<string> {
  const target = mirrorPath(source, repo);
  return withLock(
    target,
    async () => {
      if (existsSync(target)) {
        const has = await tryGit(["cat-file", "-e", `${commit}^{commit}`], { cwd: target });
        if (has.exitCode === 0) return target;
        const upstream = upstreamOf(source, repo);
        source.onFetch?.(`fetching ${repo}'s new commits from ${upstream}`);
        await git(["fetch", "--quiet", "--prune", upstream, "+refs/*:refs/*"], {
          cwd: target,
          timeoutMs: 3_600_000,
          signal: source.signal,
        });
        return target;
      }
      const staging = `${target}.${String(process.pid)}.tmp`;
      await rm(staging, { recursive: true, force: true });
      const upstream = upstreamOf(source, repo);
      source.onFetch?.(
        `cloning ${repo}'s full history from ${upstream} (once: later tasks and reruns reuse it)`,
      );
      await mkdir(source.reposDir, { recursive: true });
      await git(["clone", "--quiet", "--mirror", upstream, staging], {
        cwd: source.reposDir,
        timeoutMs: 3_600_000,
        signal: source.signal,
      });
      await rename(staging, target);
      return target;
    },
    { signal: source.signal },
  );
}

/**
 * Makes a task's base repository: a bare repository holding the base commit and its ancestors
 * and nothing later, with `main` at the base. Work trees are cloned from it, so no later commit,
 * tag or object can reach a tool.
 */
export async function ensureBaseRepo(
  source: RepoSource,
  repo: string,
  instanceId: string,
  baseCommit: string,
): Promise<string> {
  const target = baseRepoPath(source.cacheDir, instanceId);
  if (existsSync(path.join(target, "HEAD"))) {
    const head = await tryGit(["rev-parse", "refs/heads/main"], { cwd: target });
    const hasModules =
      existsSync(path.join(target, MODULES_DIR, "list")) ||
      (await tryGit(["cat-file", "-e", "refs/heads/main:.gitmodules"], { cwd: target }))
        .exitCode !== 0;
    if (head.exitCode === 0 && (head.stdout ?? "").trim() === baseCommit && hasModules)
      return target;
  }
  const mirror = await ensureMirror(source, repo, baseCommit);
  return withLock(target, async () => {
    const staging = `${target}.${String(process.pid)}.tmp`;
    await rm(staging, { recursive: true, force: true });
    await git(["init", "--quiet", "--bare", staging], { cwd: source.cacheDir });
    try {
      await fetchCommitWithTags(staging, mirror, baseCommit, "refs/heads/main", source.signal);
    } catch (error) {
      const missing = await findMissingObjects(mirror, baseCommit, source.signal).catch(() => []);
      if (missing.length === 0) throw error;
      const files = missing.flatMap((entry) => (entry.path === null ? [] : [entry.path]));
      // Only the history lacks them (a snapshot without a large file deleted long ago): the
      // base commit's own tree is whole, so the task gets it without its history, and says so.
      if (files.length === 0 && (await fetchCommitAlone(staging, mirror, baseCommit, source))) {
        source.onFetch?.(
          `lab's copy of ${repo} lacks ${String(missing.length)} object(s) of ${baseCommit.slice(0, 10)}'s history, none of its tree: ${instanceId}'s repository holds the base commit without its history`,
        );
        await git(["symbolic-ref", "HEAD", "refs/heads/main"], { cwd: staging });
        await addSubmodules(source, repo, staging, baseCommit);
        await rm(target, { recursive: true, force: true });
        await rename(staging, target);
        return target;
      }
      throw new LabError(
        "GIT_FAILED",
        `lab's copy of ${repo} lacks ${String(missing.length)} object(s) the base commit ${baseCommit.slice(0, 10)} needs${files.length > 0 ? `, among them ${files.slice(0, 3).join(", ")} of its own tree` : " in its history"}: the copy it was cloned from is incomplete.`,
        {
          hint: "Clone it again from a complete repository (a snapshot made without large files lacks them), then `lab cache clear`.",
          cause: error,
        },
      );
    }
    await git(["symbolic-ref", "HEAD", "refs/heads/main"], { cwd: staging });
    await addSubmodules(source, repo, staging, baseCommit);
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
    return target;
  });
}

/** Fetches `commit` alone, without its history (`--depth=1`), into `staging`; whether it could. */
async function fetchCommitAlone(
  staging: string,
  mirror: string,
  commit: string,
  source: RepoSource,
): Promise<boolean> {
  const fetched = await tryGit(
    [
      "-c",
      "uploadpack.allowAnySHA1InWant=true",
      "fetch",
      "--quiet",
      "--no-tags",
      "--depth=1",
      `file://${mirror}`,
      `+${commit}:refs/heads/main`,
    ],
    { cwd: staging, timeoutMs: 1_800_000, signal: source.signal },
  );
  return fetched.exitCode === 0;
}

/**
 * Inside a base repository: one bare repository per submodule of the base commit, holding its
 * pinned commit and ancestors, and `list` (name, path and URL per line, tab-separated; written
 * whenever the commit has a .gitmodules, so a base repository without it is an old one), from
 * which setup.sh checks them out as `git submodule update --init` does. Upstream's images have
 * them so: astropy's old `setup.py` (ah_bootstrap) runs `git submodule update --init` on
 * astropy_helpers while the image is built.
 */
export const MODULES_DIR = "lab-modules";

/** A submodule of a base commit. */
export interface Submodule {
  readonly name: string;
  readonly path: string;
  /** The URL `.gitmodules` gives. */
  readonly url: string;
  /** The GitHub repository it names, as owner/name. */
  readonly repo: string;
  /** The commit the base commit pins it at. */
  readonly commit: string;
}

/** A name or path lab takes from `.gitmodules` into a file name and a shell line: plain ones only. */
const SAFE_MODULE_PART = /^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9_][A-Za-z0-9._/-]*$/;

/**
 * The submodules a commit pins whose URL names a GitHub repository (absolute, or relative to the
 * repository's own GitHub URL). Others are left out: the checkout has them uninitialized, as a
 * plain clone does.
 */
export async function submodulesOf(
  gitDir: string,
  repo: string,
  commit: string,
): Promise<Submodule[]> {
  const config = await tryGit(
    ["config", "--blob", `${commit}:.gitmodules`, "--get-regexp", "^submodule\\..*\\.(path|url)$"],
    { cwd: gitDir },
  );
  if (config.exitCode !== 0) return [];
  const entries = new Map<string, { path?: string; url?: string }>();
  for (const line of (config.stdout ?? "").split("\n")) {
    const match = /^submodule\.(.+)\.(path|url) (.+)$/.exec(line);
    if (match === null) continue;
    const [, name = "", key, value = ""] = match;
    const entry = entries.get(name) ?? {};
    if (key === "path") entry.path = value;
    else entry.url = value;
    entries.set(name, entry);
  }
  const modules: Submodule[] = [];
  for (const [name, entry] of entries) {
    if (entry.path === undefined || entry.url === undefined) continue;
    if (!SAFE_MODULE_PART.test(name) || !SAFE_MODULE_PART.test(entry.path)) continue;
    const owner = githubRepoOf(entry.url, repo);
    if (owner === null) continue;
    const tree = await tryGit(["ls-tree", commit, "--", entry.path], { cwd: gitDir });
    const pinned = /^160000 commit ([0-9a-f]{40})\t/.exec(tree.stdout ?? "");
    if (pinned?.[1] === undefined) continue;
    modules.push({ name, path: entry.path, url: entry.url, repo: owner, commit: pinned[1] });
  }
  return modules;
}

/** owner/name of a submodule URL on GitHub, or null. */
function githubRepoOf(url: string, repo: string): string | null {
  const absolute = url.startsWith("../") ? new URL(url, `https://github.com/${repo}/`).href : url;
  const match =
    /^(?:https?:\/\/github\.com\/|git@github\.com:|git:\/\/github\.com\/)([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(
      absolute,
    );
  return match === null ? null : `${match[1] ?? ""}/${match[2] ?? ""}`;
}

/** Puts the base commit's submodules into the base repository being made (see MODULES_DIR). */
async function addSubmodules(
  source: RepoSource,
  repo: string,
  staging: string,
  baseCommit: string,
): Promise<void> {
  const hasGitmodules = await tryGit(["cat-file", "-e", `${baseCommit}:.gitmodules`], {
    cwd: staging,
  });
  if (hasGitmodules.exitCode !== 0) return;
  const modules = await submodulesOf(staging, repo, baseCommit);
  const dir = path.join(staging, MODULES_DIR);
  // Written even when empty (no submodule on GitHub): the base repository is then complete.
  await mkdir(dir, { recursive: true });
  for (const module of modules) {
    if (!hasSource(source, module.repo))
      throw new LabError(
        "GIT_FAILED",
        `the base commit pins submodule ${module.path} of ${module.repo}, and there is no mirror of ${module.repo} in ${source.mirrorsDir ?? "the mirrors folder"}.`,
        { hint: `Add ${module.repo} to the mirrors folder, or gen from GitHub.` },
      );
    const mirror = await ensureMirror(source, module.repo, module.commit);
    const bare = path.join(dir, `${module.name}.git`);
    await mkdir(path.dirname(bare), { recursive: true });
    await git(["init", "--quiet", "--bare", bare], { cwd: staging });
    await fetchCommitWithTags(bare, mirror, module.commit, "refs/heads/main", source.signal);
    await git(["symbolic-ref", "HEAD", "refs/heads/main"], { cwd: bare });
  }
  await writeFile(
    path.join(dir, "list"),
    modules.map((module) => `${module.name}\t${module.path}\t${module.url}\n`).join(""),
  );
}
