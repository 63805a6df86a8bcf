/**
 * The gold patch as the audit reads it: the source files it changes, the lines it adds (where
 * mutants go) and its hunks (each left out in turn). Pure.
 */
import { listPatchFiles } from "../core/index.js";

/** One hunk of one file of a unified diff. */
export interface Hunk {
  /** The file, as named on the diff's `b/` side. */
  readonly path: string;
  /** 1-based line of the hunk on the new side, and how many new-side lines it spans. */
  readonly newStart: number;
  readonly newCount: number;
  /** The hunk's body lines, each with its ' ', '+' or '-' sign. */
  readonly lines: readonly string[];
}

/** Test files, as SWE-bench tells them: under a tests folder, or named test_*.py / *_test.py. */
const TEST_FILE = /(^|\/)(tests?|testing)\/|(^|\/)(test_[^/]*|[^/]*_test)\.py$/;

/** JavaScript and TypeScript test files: under __tests__, __mocks__ or a test folder, or named *.test.* / *.spec.*. */
const JS_TEST_FILE = /(^|\/)(__tests__|__mocks__|tests?|spec)\/|\.(test|spec)\.(c|m)?(j|t)sx?$/;

/** JavaScript and TypeScript source (a `.d.ts` declares types only: nothing runs to mutate). */
const JS_SOURCE = /\.(c|m)?(j|t)sx?$/;

/**
 * Whether the audit mutates a file the gold patch changes: source that is not a test, Python
 * for a Python task and JavaScript or TypeScript for a Node one.
 */
export function isAuditedFile(file: string, language: "python" | "js" = "python"): boolean {
  return language === "python"
    ? file.endsWith(".py") && !TEST_FILE.test(file)
    : JS_SOURCE.test(file) && !/\.d\.(c|m)?ts$/.test(file) && !JS_TEST_FILE.test(file);
}

/** Every hunk of a patch, in order; binary sections have none. */
export function listHunks(patch: string): Hunk[] {
  const files = listPatchFiles(patch);
  const starts = [...patch.matchAll(/^diff --git /gm)].map((match) => match.index);
  const hunks: Hunk[] = [];
  files.forEach((file, index) => {
    const body = patch.slice(starts[index] ?? 0, starts[index + 1] ?? patch.length).split("\n");
    let current: { path: string; newStart: number; newCount: number; lines: string[] } | null =
      null;
    for (const line of body) {
      const header = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (header !== null) {
        current = {
          path: file.path,
          newStart: Number(header[1]),
          newCount: header[2] === undefined ? 1 : Number(header[2]),
          lines: [],
        };
        hunks.push(current);
      } else if (current !== null && /^[ +\-\\]/.test(line)) {
        current.lines.push(line);
      } else if (current !== null && line === "") {
        // The split's last piece, or an empty context line a tool stripped of its space.
        continue;
      } else current = null;
    }
  });
  return hunks;
}

/** The new-side line numbers a hunk adds. */
export function addedLines(hunk: Hunk): number[] {
  const added: number[] = [];
  let line = hunk.newStart;
  for (const text of hunk.lines) {
    if (text.startsWith("+")) added.push(line);
    if (text.startsWith("+") || text.startsWith(" ")) line++;
  }
  return added;
}

/**
 * A file's gold content with one of its hunks undone: the hunk's new-side lines replaced by
 * its old-side lines. Later hunks of the file keep their place.
 */
export function undoHunk(goldContent: string, hunk: Hunk): string {
  const lines = goldContent.split("\n");
  const old: string[] = [];
  for (const text of hunk.lines) {
    if (text.startsWith(" ") || text.startsWith("-")) old.push(text.slice(1));
  }
  // A new file's only hunk starts at line 0 on the old side and 1 on the new.
  const from = Math.max(0, hunk.newStart - 1);
  lines.splice(from, hunk.newCount, ...old);
  return lines.join("\n");
}
