import { mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../core/index.js";
import { runCommand, type ExecResult } from "../process/index.js";

/** Where git is looked for when the caller names no PATH: the system's folders. */
export const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Environment for every git call lab makes: the user's global and system config are ignored,
 * so settings such as diff.noprefix or commit.gpgsign cannot change what lab writes or reads.
 * No HOME: with no global config, git reads nothing from it. `extra.PATH` (the user's, passed
 * down from config) wins over the system's folders.
 */
export function gitEnvironment(
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    PATH: SYSTEM_PATH,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "lab",
    GIT_AUTHOR_EMAIL: "lab@localhost",
    GIT_COMMITTER_NAME: "lab",
    GIT_COMMITTER_EMAIL: "lab@localhost",
    LC_ALL: "C",
    ...extra,
  };
}

/** Options for one git call. */
export interface GitOptions {
  readonly cwd: string;
  readonly timeoutMs?: number;
  readonly input?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal | undefined;
  readonly logFile?: string;
}

/** Runs git and returns its result whatever the exit code. */
export async function tryGit(args: readonly string[], options: GitOptions): Promise<ExecResult> {
  return runCommand(
    ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args],
    {
      cwd: options.cwd,
      env: gitEnvironment(options.env),
      timeoutMs: options.timeoutMs ?? 120_000,
      captureStdout: true,
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.logFile === undefined ? {} : { logFile: options.logFile }),
    },
  );
}

/** Runs git and returns its stdout; fails with GIT_FAILED on a non-zero exit. */
export async function git(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await tryGit(args, options);
  if (result.exitCode !== 0) {
    throw new LabError(
      "GIT_FAILED",
      `git ${args.join(" ")} failed in ${options.cwd} (exit ${String(result.exitCode)}): ${result.stderrTail.trim().split("\n").at(-1) ?? ""}`,
      {
        hint: "See the log beside the trial for git's full output.",
      },
    );
  }
  return result.stdout ?? "";
}

/**
 * Fetches `commit` from the repository at `source` into the bare repository `target` as `ref`:
 * exactly the commit and its ancestry (upload-pack must allow a want by hash). The tags on that
 * ancestry come too: they tell version tools (setuptools_scm) what release this is, as in a
 * real clone; a tag on any later commit stays out.
 */
export async function fetchCommitWithTags(
  target: string,
  source: string,
  commit: string,
  ref: string,
  signal?: AbortSignal,
): Promise<void> {
  const timeoutMs = 1_800_000;
  await git(
    [
      "-c",
      "uploadpack.allowAnySHA1InWant=true",
      "fetch",
      "--quiet",
      "--no-tags",
      // From a shallow source (fetchCommitCuttingMissing's view) the target takes its boundary.
      "--update-shallow",
      source,
      `+${commit}:${ref}`,
    ],
    { cwd: target, timeoutMs, signal },
  );
  const tags = (await git(["tag", "--merged", commit], { cwd: source }))
    .split("\n")
    .filter((tag) => tag !== "");
  if (tags.length === 0) return;
  await git(["fetch", "--quiet", "--no-tags", "--update-shallow", "--stdin", source], {
    cwd: target,
    input: tags.map((tag) => `+refs/tags/${tag}:refs/tags/${tag}\n`).join(""),
    timeoutMs,
    signal,
  });
}

/**
 * The objects `commit` and its ancestry need that the repository `dir` lacks (a damaged copy,
 * or a snapshot made without its large files), each with its path when it is a file of the
 * commit's own tree; empty when nothing is missing.
 */
export async function findMissingObjects(
  dir: string,
  commit: string,
  signal?: AbortSignal,
): Promise<{ oid: string; path: string | null }[]> {
  const listed = await tryGit(["rev-list", "--objects", "--missing=print", commit], {
    cwd: dir,
    timeoutMs: 600_000,
    signal,
  });
  const missing = (listed.stdout ?? "")
    .split("\n")
    .filter((line) => line.startsWith("?"))
    .map((line) => line.slice(1).trim());
  if (missing.length === 0) return [];
  const wanted = new Set(missing);
  const paths = new Map<string, string>();
  for (const line of (await git(["ls-tree", "-r", "-z", commit], { cwd: dir, signal })).split(
    "\0",
  )) {
    // `<mode> <type> <oid>\t<path>`
    const [meta, file] = line.split("\t");
    const oid = meta?.split(" ")[2];
    if (oid !== undefined && file !== undefined && wanted.has(oid)) paths.set(oid, file);
  }
  return missing.map((oid) => ({ oid, path: paths.get(oid) ?? null }));
}

/**
 * fetchCommitWithTags from a copy of a repository that may lack objects (a snapshot made without
 * its large files). When the commit's own tree is whole and only its older history lacks them,
 * the history is cut at the commits that deleted them: the fetch is made from a shallow view of
 * `source` whose boundary is those commits, so `target` becomes a shallow repository holding the
 * commit and its history since then, and the tags on that history. Returns the commits the
 * history was cut at (none when the copy was whole). A commit whose tree lacks an object, or a
 * history the cut does not make whole, fails with describeMissingObjects' words.
 */
export async function fetchCommitCuttingMissing(
  target: string,
  source: string,
  commit: string,
  ref: string,
  repo: string,
  signal?: AbortSignal,
): Promise<string[]> {
  try {
    await fetchCommitWithTags(target, source, commit, ref, signal);
    return [];
  } catch (error) {
    if (signal?.aborted === true) throw error;
    const missing = await findMissingObjects(source, commit, signal).catch(() => []);
    if (missing.length === 0) throw error;
    const incomplete = new LabError("GIT_FAILED", describeMissingObjects(repo, commit, missing), {
      hint: MISSING_OBJECTS_HINT,
      cause: error,
    });
    if (missing.some((entry) => entry.path !== null)) throw incomplete;
    const cut = new Set<string>();
    for (const { oid } of missing) {
      const deleting = await git(
        ["log", "--format=%H", "--diff-filter=D", `--find-object=${oid}`, commit],
        { cwd: source, timeoutMs: 600_000, signal },
      );
      for (const line of deleting.split("\n")) if (line !== "") cut.add(line);
    }
    if (cut.size === 0) throw incomplete;
    const view = await mkdtemp(path.join(path.dirname(target), ".cut-"));
    try {
      const objects = path.resolve(
        source,
        (await git(["rev-parse", "--git-path", "objects"], { cwd: source })).trim(),
      );
      await git(["init", "--quiet", "--bare", view], { cwd: path.dirname(view) });
      await writeFile(path.join(view, "objects", "info", "alternates"), `${objects}\n`);
      await writeFile(path.join(view, "shallow"), `${[...cut].join("\n")}\n`);
      // Tags on the history behind the cut cannot come: their commits are not in the view.
      const behind = new Set<string>();
      for (const at of cut) {
        const parents = (await git(["rev-list", "--parents", "-n", "1", at], { cwd: source }))
          .trim()
          .split(" ")
          .slice(1);
        for (const parent of parents)
          for (const tag of (await git(["tag", "--merged", parent], { cwd: source })).split("\n"))
            if (tag !== "") behind.add(tag);
      }
      const refs = [`update ${ref} ${commit}`];
      const tags = (await git(["tag", "--merged", commit], { cwd: source }))
        .split("\n")
        .filter((tag) => tag !== "" && !behind.has(tag));
      for (const tag of tags) {
        const oid = (await git(["rev-parse", `refs/tags/${tag}`], { cwd: source })).trim();
        refs.push(`update refs/tags/${tag} ${oid}`);
      }
      await git(["update-ref", "--stdin"], { cwd: view, input: `${refs.join("\n")}\n` });
      try {
        await fetchCommitWithTags(target, view, commit, ref, signal);
      } catch (cause) {
        throw new LabError("GIT_FAILED", describeMissingObjects(repo, commit, missing), {
          hint: MISSING_OBJECTS_HINT,
          cause,
        });
      }
      return [...cut];
    } finally {
      await rm(view, { recursive: true, force: true });
    }
  }
}

/** What findMissingObjects found for a task's base commit, in words naming up to three files of its tree. */
export function describeMissingObjects(
  repo: string,
  commit: string,
  missing: readonly { oid: string; path: string | null }[],
): string {
  const files = missing.flatMap((entry) => (entry.path === null ? [] : [entry.path]));
  return `lab's copy of ${repo} lacks ${String(missing.length)} object(s) the base commit ${commit.slice(0, 10)} needs${files.length > 0 ? `, among them ${files.slice(0, 3).join(", ")} of its own tree` : " in its history"}: the copy it was cloned from is incomplete.`;
}

/** The advice that goes with describeMissingObjects. */
export const MISSING_OBJECTS_HINT =
  "Clone it again from a complete repository (a snapshot made without large files lacks them), then `lab cache clear`.";
