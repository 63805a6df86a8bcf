/**
 * Taking a tool's work tree as a diff, whatever the tool left in it. What git cannot or should
 * not take (a git repository of its own inside the tree, a file too big to be a code change or
 * that lab cannot read, a name git refuses) is left out of the change and named; a tree that
 * still cannot be taken is the tool's outcome (`refused`), never an infrastructure error. Only
 * the machine failing (no space, an I/O error) is thrown. See docs/design/diff-capture.md.
 */
import { constants, accessSync, lstatSync, readdirSync, type Dirent } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../core/index.js";
import { git, tryGit } from "../git/index.js";

/** The diff of a work tree, and what was left out of it. */
export type CapturedChange =
  | { readonly patch: string; readonly leftOut: readonly string[] }
  | { readonly refused: string; readonly leftOut: readonly string[] };

/** A file bigger than this is not a code change; it is left out. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** A diff bigger than this is not graded. */
export const MAX_DIFF_BYTES = 200 * 1024 * 1024;
/** A tree with more entries than this is not walked. */
const MAX_ENTRIES = 1_000_000;
/** How long git may take to take the tree. */
const CAPTURE_TIMEOUT_MS = 300_000;
/** What a folder with its own .git is, left out of the change. */
const NESTED_REPOSITORY = "a git repository of its own";
/** git's messages naming a path it could not take, and what each means. */
const GIT_REFUSALS: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /invalid path '(.+)'/, what: "a name git refuses" },
  { pattern: /'(.+?)\/?' does not have a commit checked out/, what: NESTED_REPOSITORY },
  { pattern: /open\("(.+)"\): Permission denied/, what: "a file lab cannot read" },
  { pattern: /unable to index file '(.+)'/, what: "a file git cannot index" },
];
/** Failures of the machine, not of the tree. */
const MACHINE_FAILURE =
  /No space left on device|Input\/output error|Cannot allocate memory|Too many open files|Disk quota exceeded/;

/**
 * The work tree's change against `baseCommit`, read with the clean checkout's git directory and
 * a private index, so nothing the tool left in its own .git (config, hooks, filters) runs.
 */
export async function captureWorkTree(options: {
  readonly workTree: string;
  readonly gitDir: string;
  readonly baseCommit: string;
  readonly scratchDir: string;
  readonly pathEnv?: string | undefined;
  /** Bigger files are left out, a bigger diff is refused; default MAX_FILE_BYTES, MAX_DIFF_BYTES. */
  readonly limits?: { readonly fileBytes: number; readonly diffBytes: number } | undefined;
}): Promise<CapturedChange> {
  const { workTree, scratchDir } = options;
  const limits = options.limits ?? { fileBytes: MAX_FILE_BYTES, diffBytes: MAX_DIFF_BYTES };
  const env = {
    ...(options.pathEnv === undefined ? {} : { PATH: options.pathEnv }),
    GIT_DIR: options.gitDir,
    GIT_WORK_TREE: workTree,
    GIT_INDEX_FILE: path.join(scratchDir, "capture.index"),
  };
  const walked = walkWorkTree(workTree, limits.fileBytes);
  // What git would ignore anyway (a .gitignored venv's big file) is left out without a word.
  const ignored = await listIgnored(
    walked.leftOut.map(({ file }) => file),
    workTree,
    env,
  );
  // A submodule of the base commit (astropy_helpers) is left out as git's own diff leaves it:
  // without a word.
  const submodules = await baseSubmodules(
    walked.leftOut.filter(({ what }) => what === NESTED_REPOSITORY).map(({ file }) => file),
    options.baseCommit,
    workTree,
    env,
  );
  const leftOut = walked.leftOut
    .filter(({ file }) => !ignored.has(file) && !submodules.has(file))
    .map(({ file, what }) => `${file}: ${what}`);
  if (walked.refused !== null) return { refused: walked.refused, leftOut };
  // Naming an ignored path, even to exclude it, is an error to `git add`.
  const excluded = walked.leftOut.map(({ file }) => file).filter((file) => !ignored.has(file));
  const pathspecs = path.join(scratchDir, "capture.pathspecs");
  for (let attempt = 0; ; attempt++) {
    await git(["read-tree", options.baseCommit], { cwd: workTree, env });
    await writeFile(
      pathspecs,
      [".", ...excluded.map((file) => `:(exclude,literal)${file}`)]
        .map((spec) => `${spec}\0`)
        .join(""),
    );
    const added = await tryGit(
      ["add", "--all", `--pathspec-from-file=${pathspecs}`, "--pathspec-file-nul"],
      { cwd: workTree, env, timeoutMs: CAPTURE_TIMEOUT_MS },
    );
    if (added.exitCode === 0) break;
    const message = added.stderrTail.trim();
    if (MACHINE_FAILURE.test(message))
      throw new LabError(
        "GIT_FAILED",
        `Taking the work tree as a diff failed: ${lastLine(message)}`,
      );
    if (added.timedOut)
      return {
        refused: `git took more than ${String(CAPTURE_TIMEOUT_MS / 1000)} s to read the work tree`,
        leftOut,
      };
    const refusal = GIT_REFUSALS.map(({ pattern, what }) => ({
      match: pattern.exec(message),
      what,
    })).find(({ match }) => match !== null);
    const file = refusal?.match?.[1];
    if (refusal === undefined || file === undefined || excluded.includes(file) || attempt >= 20)
      return { refused: `git could not read the work tree: ${lastLine(message)}`, leftOut };
    excluded.push(file);
    leftOut.push(`${file}: ${refusal.what}`);
  }
  const output = path.join(scratchDir, "capture.diff");
  await git(
    [
      "diff",
      "--cached",
      "--binary",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      "--no-renames",
      `--output=${output}`,
      options.baseCommit,
    ],
    { cwd: workTree, env, timeoutMs: CAPTURE_TIMEOUT_MS },
  );
  const size = (await stat(output)).size;
  if (size > limits.diffBytes)
    return {
      refused: `the change is ${megabytes(size)} as a diff, over lab's limit of ${megabytes(limits.diffBytes)}`,
      leftOut,
    };
  return { patch: await readFile(output, "utf8"), leftOut };
}

/** What the walk found to leave out, or why the tree is not taken at all. */
interface Walked {
  readonly leftOut: { readonly file: string; readonly what: string }[];
  readonly refused: string | null;
}

/**
 * Walks the work tree (never following a symlink) for what git should not take. Synchronous:
 * thousands of lstat calls cost several times more through the event loop.
 */
function walkWorkTree(root: string, maxFileBytes: number): Walked {
  const leftOut: { file: string; what: string }[] = [];
  const isRoot = process.getuid?.() === 0;
  let entries = 0;
  const pending = [""];
  while (pending.length > 0) {
    const relative = pending.pop() as string;
    let listing: Dirent[];
    try {
      listing = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      leftOut.push({ file: relative, what: "a folder lab cannot read" });
      continue;
    }
    if (relative !== "" && listing.some((entry) => entry.name === ".git")) {
      leftOut.push({ file: relative, what: NESTED_REPOSITORY });
      continue;
    }
    for (const entry of listing) {
      if (++entries > MAX_ENTRIES)
        return { leftOut, refused: `the work tree holds more than ${String(MAX_ENTRIES)} files` };
      if (relative === "" && entry.name === ".git") continue;
      const file = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (isRefusedName(entry.name)) {
        leftOut.push({ file, what: "a name git refuses" });
      } else if (entry.isDirectory()) {
        pending.push(file);
      } else if (entry.isFile()) {
        const full = path.join(root, file);
        const size = lstatSync(full, { throwIfNoEntry: false })?.size ?? 0;
        if (size > maxFileBytes)
          leftOut.push({
            file,
            what: `${megabytes(size)}, over lab's limit of ${megabytes(maxFileBytes)} for one file`,
          });
        else if (!isRoot && !isReadable(full))
          leftOut.push({ file, what: "a file lab cannot read" });
      }
    }
  }
  return { leftOut: leftOut.sort((a, b) => a.file.localeCompare(b.file)), refused: null };
}

/** Which of `folders` are submodules (gitlinks) of the base commit. */
async function baseSubmodules(
  folders: readonly string[],
  baseCommit: string,
  workTree: string,
  env: Readonly<Record<string, string>>,
): Promise<Set<string>> {
  if (folders.length === 0) return new Set();
  const result = await tryGit(
    ["ls-tree", "-z", baseCommit, "--", ...folders.map((folder) => `:(literal)${folder}`)],
    { cwd: workTree, env },
  );
  return new Set(
    (result.stdout ?? "")
      .split("\0")
      .flatMap((entry) => /^160000 commit [0-9a-f]+\t(.+)$/s.exec(entry)?.[1] ?? []),
  );
}

/** Which of `files` the work tree's ignore rules ignore. */
async function listIgnored(
  files: readonly string[],
  workTree: string,
  env: Readonly<Record<string, string>>,
): Promise<Set<string>> {
  if (files.length === 0) return new Set();
  const result = await tryGit(["check-ignore", "-z", "--no-index", "--stdin"], {
    cwd: workTree,
    env,
    input: files.map((file) => `${file}\0`).join(""),
  });
  return new Set((result.stdout ?? "").split("\0").filter((file) => file !== ""));
}

/** Names git's path checks refuse in any component: `.git` in any case or dress, `git~1`. */
function isRefusedName(name: string): boolean {
  return /^\.git[\s.]*$/i.test(name) || /^git~\d+$/i.test(name);
}

function isReadable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function megabytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${String(Math.ceil(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

function lastLine(text: string): string {
  return text.split("\n").at(-1) ?? text;
}
