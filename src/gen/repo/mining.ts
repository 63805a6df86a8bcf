import { LabError } from "../../core/index.js";
import { git, tryGit } from "../../git/index.js";

/** How a change reached the branch: a merge commit, a squash merge (one parent, a PR number), or a direct commit. */
export type ChangeKind = "merge" | "squash" | "commit";

/** One merged change on the branch's first-parent history. */
export interface MinedChange {
  /** Task id: `<repo slug>-<PR number>`, or `<repo slug>-<commit prefix>` without one. */
  readonly id: string;
  /** The commit on the branch that brought the change. */
  readonly commit: string;
  /** Its first parent: the base commit of the task. */
  readonly base: string;
  readonly kind: ChangeKind;
  /** Committer date of the change, ISO 8601 (strict). */
  readonly date: string;
  /** Committer date of the base commit, ISO 8601: what dependencies are resolved as of. */
  readonly baseDate: string;
  /** The pull request number named in the message, when there is one. */
  readonly pr: number | null;
  /** First line of the commit message. */
  readonly subject: string;
  /** The whole commit message. */
  readonly message: string;
  /** For a merge commit: the messages of the commits it merged (newest first, merges left out). */
  readonly mergedMessages: readonly string[];
  /** Test files it changes (added, modified or deleted). */
  readonly testFiles: readonly string[];
  /** Source (code) files it changes outside the tests. */
  readonly sourceFiles: readonly string[];
  /** Other files it changes: docs, changelog, configuration. */
  readonly otherFiles: readonly string[];
}

/** A change that can become a task: the change split into hidden tests and the reference fix. */
export interface Candidate extends MinedChange {
  /** The change to test files, minus deleted test files (which no runner could be given). */
  readonly testPatch: string;
  /** Everything else, deleted test files included. */
  readonly goldPatch: string;
}

/** Why a walked change is not a candidate. */
export type SkipCategory = "no_tests" | "no_source";

/** A walked change that is not a candidate, and why. */
export interface SkippedChange {
  readonly id: string;
  readonly commit: string;
  readonly kind: ChangeKind;
  readonly subject: string;
  readonly category: SkipCategory;
  readonly reason: string;
}

/** What to walk. */
export interface MiningOptions {
  /** A git directory or work tree holding the branch. */
  readonly gitDir: string;
  readonly branch: string;
  /** Only changes committed at or after this date (anything git's --since accepts). */
  readonly since?: string | undefined;
  /** Walk at most this many changes, newest first. */
  readonly limit?: number | undefined;
  /** Prefix of task ids ("pallets__flask"). */
  readonly idPrefix: string;
  readonly signal?: AbortSignal | undefined;
}

/** What mining found, newest change first. */
export interface MiningResult {
  readonly walked: number;
  readonly candidates: Candidate[];
  readonly skipped: SkippedChange[];
}

/**
 * A file of the tests: under a tests/testing folder (or JavaScript's __tests__), a Python test
 * module or conftest.py anywhere, or a JavaScript/TypeScript `*.test.*` or `*.spec.*` file
 * anywhere (jest's, vitest's and mocha's default patterns).
 */
export function isTestPath(file: string): boolean {
  return (
    /(^|\/)(tests?|testing|__tests__)\//.test(file) ||
    /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py)$/.test(file) ||
    /\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs|mts|cts)$/.test(file)
  );
}

/** Extensions of code a fix changes; other files (docs, changelog, CI) ride along in the gold patch but do not make a change a fix. */
const SOURCE_EXTENSIONS =
  /\.(py|pyi|pyx|pxd|pxi|c|h|cc|cpp|cxx|hpp|rs|f|f90|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|jinja|jinja2|j2|html|sql)$/;

/** A source file: code outside the tests, docs and examples. */
export function isSourcePath(file: string): boolean {
  if (isTestPath(file)) return false;
  if (/(^|\/)(docs?|examples?|\.github)\//.test(file)) return false;
  return SOURCE_EXTENSIONS.test(file);
}

/** The pull request a message names: GitHub's merge subject, or a squash merge's "(#123)". */
export function pullRequestOf(subject: string): number | null {
  const match =
    /^Merge pull request #(\d+)\b/.exec(subject) ?? /\(#(\d+)\)\s*$/.exec(subject.trimEnd());
  return match?.[1] === undefined ? null : Number(match[1]);
}

const FIELD = "\u001f";
const RECORD = "\u001e";

/**
 * Walks the merged changes of a branch (its first-parent history, newest first) and splits each
 * into a test patch and a gold patch; changes that touch no tests or no source are listed as
 * skipped with their reason. Root commits are not changes and are not walked.
 */
export async function mineChanges(options: MiningOptions): Promise<MiningResult> {
  const cwd = options.gitDir;
  const branch = await resolveBranch(cwd, options.branch);
  const args = [
    "log",
    "--first-parent",
    `--format=${["%H", "%P", "%cI", "%B"].join("%x1f")}%x1e`,
    ...(options.since === undefined ? [] : [`--since=${options.since}`]),
    // One more than the limit: a root commit, which is no change, may be among them.
    ...(options.limit === undefined ? [] : [`--max-count=${String(options.limit + 1)}`]),
    branch,
  ];
  const log = await git(args, { cwd, timeoutMs: 600_000, signal: options.signal });
  const entries = log
    .split(RECORD)
    .map((entry) => entry.replace(/^\n/, ""))
    .filter((entry) => entry.trim() !== "")
    .map((entry) => {
      const [commit = "", parents = "", date = "", message = ""] = entry.split(FIELD);
      return { commit, parents: parents.split(" ").filter((p) => p !== ""), date, message };
    })
    .filter((entry) => entry.parents.length > 0);
  const walkedEntries = entries.slice(0, options.limit ?? entries.length);
  const candidates: Candidate[] = [];
  const skipped: SkippedChange[] = [];
  const used = new Set<string>();
  for (const entry of walkedEntries) {
    if (options.signal?.aborted === true) break;
    const base = entry.parents[0] ?? "";
    const message = entry.message.trimEnd();
    const subject = message.split("\n")[0] ?? "";
    const pr = pullRequestOf(subject);
    const kind: ChangeKind = entry.parents.length > 1 ? "merge" : pr !== null ? "squash" : "commit";
    let id = `${options.idPrefix}-${pr === null ? entry.commit.slice(0, 10) : String(pr)}`;
    if (used.has(id)) id = `${id}-${entry.commit.slice(0, 7)}`;
    used.add(id);
    const changes = await changedFiles(cwd, base, entry.commit);
    const testFiles = changes.filter((change) => isTestPath(change.path));
    const sourceFiles = changes.filter((change) => isSourcePath(change.path)).map((c) => c.path);
    const otherFiles = changes
      .filter((change) => !isTestPath(change.path) && !isSourcePath(change.path))
      .map((change) => change.path);
    const skip = (category: SkipCategory, reason: string): void => {
      skipped.push({ id, commit: entry.commit, kind, subject, category, reason });
    };
    // Deleted test files cannot be handed to pytest or a JS runner, so they travel with the gold
    // patch (the fix deletes them).
    const runnableTests = testFiles.filter((change) => change.status !== "D").map((c) => c.path);
    if (runnableTests.length === 0) {
      skip(
        "no_tests",
        testFiles.length === 0
          ? "changes no test files"
          : `only deletes test files (${testFiles.map((c) => c.path).join(", ")})`,
      );
      continue;
    }
    if (sourceFiles.length === 0) {
      skip(
        "no_source",
        otherFiles.length === 0
          ? "changes only test files"
          : `changes test files and no source (also ${describeFiles(otherFiles)})`,
      );
      continue;
    }
    const deletedTests = testFiles.filter((change) => change.status === "D").map((c) => c.path);
    const goldFiles = [...sourceFiles, ...otherFiles, ...deletedTests];
    candidates.push({
      id,
      commit: entry.commit,
      base,
      kind,
      date: entry.date,
      baseDate: (
        await git(["show", "-s", "--format=%cI", base], { cwd, signal: options.signal })
      ).trim(),
      pr,
      subject,
      message,
      mergedMessages: kind === "merge" ? await mergedMessages(cwd, base, entry.commit) : [],
      testFiles: testFiles.map((change) => change.path),
      sourceFiles,
      otherFiles,
      testPatch: await diff(cwd, base, entry.commit, runnableTests),
      goldPatch: await diff(cwd, base, entry.commit, goldFiles),
    });
  }
  return { walked: walkedEntries.length, candidates, skipped };
}

function describeFiles(files: readonly string[]): string {
  return `${files.slice(0, 3).join(", ")}${files.length > 3 ? ` and ${String(files.length - 3)} more` : ""}`;
}

/** The branch as a ref git can walk; a missing branch names the ones that exist. */
async function resolveBranch(cwd: string, branch: string): Promise<string> {
  for (const ref of [`refs/heads/${branch}`, `refs/remotes/origin/${branch}`, branch]) {
    const found = await tryGit(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], { cwd });
    if (found.exitCode === 0) return ref;
  }
  const heads = (await tryGit(["for-each-ref", "--format=%(refname:short)", "refs/heads"], { cwd }))
    .stdout;
  const known = (heads ?? "").split("\n").filter((name) => name !== "");
  throw new LabError("GIT_FAILED", `The repository at ${cwd} has no branch "${branch}".`, {
    hint:
      known.length > 0
        ? `Pass --branch with one of: ${known.slice(0, 10).join(", ")}.`
        : "Pass --branch with the repository's main branch.",
  });
}

async function changedFiles(
  cwd: string,
  base: string,
  commit: string,
): Promise<{ status: string; path: string }[]> {
  const out = await git(["diff", "--name-status", "--no-renames", "-z", base, commit], { cwd });
  const parts = out.split("\0").filter((part) => part !== "");
  const files: { status: string; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2)
    files.push({ status: (parts[i] ?? "").slice(0, 1), path: parts[i + 1] ?? "" });
  return files;
}

/** The messages of the commits a merge brought in that were not on the branch yet. */
async function mergedMessages(cwd: string, base: string, commit: string): Promise<string[]> {
  const out = await git(
    ["log", "--no-merges", "--max-count=30", "--format=%B%x1e", `${base}..${commit}`],
    { cwd },
  );
  return out
    .split(RECORD)
    .map((message) => message.trim())
    .filter((message) => message !== "");
}

async function diff(
  cwd: string,
  base: string,
  commit: string,
  files: readonly string[],
): Promise<string> {
  if (files.length === 0) return "";
  return git(
    [
      "diff",
      "--binary",
      "--no-renames",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      base,
      commit,
      "--",
      ...files.map((file) => `:(literal)${file}`),
    ],
    { cwd, timeoutMs: 300_000 },
  );
}
