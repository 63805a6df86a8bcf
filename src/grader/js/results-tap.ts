/**
 * The TAP an older Node's test runner prints when a test file is run directly (`node file`),
 * as outcomes' records. Node nests subtests four spaces deeper than their parent and prints a
 * parent's own `ok`/`not ok` line after its subtests' (its `# Subtest:` comment may come late, so
 * it is not relied on). Node follows every result line with a YAML block (`---` ... `...`), and
 * only a result line so followed counts: a test's own output shares stdout with the TAP, and a
 * test that prints `ok 1 - x` must not add a test `x`. Other lines are skipped.
 */
import type { ReporterRecord } from "./outcomes.js";

/** `ok 3 - name # SKIP`, indented by nesting; number and description are optional in TAP. */
const RESULT_LINE = /^( *)(ok|not ok)\b *(?:\d+)? *(?:- )?(.*)$/;

/** The top level's plan, `1..N`: a run that printed it reached its end. */
const TOP_PLAN = /^1\.\.\d+/;

/** The escapes of Node's TAP reporter (`tapEscape`). */
const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
};

/**
 * The records of one file's TAP, each subtest before the test holding it, titles from the top
 * level down; `complete` when the top-level plan was printed (a file that failed to load prints
 * no TAP at all).
 */
export function tapRecords(lines: readonly string[]): {
  records: ReporterRecord[];
  complete: boolean;
} {
  // pending[d]: results at nesting d not yet claimed by their parent's line at d - 1.
  const pending: ReporterRecord[][] = [[]];
  let complete = false;
  let inYaml = false;
  let candidate: { depth: number; name: string; state: ReporterRecord["state"] } | null = null;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, "");
    const trimmed = line.trim();
    if (inYaml) {
      if (trimmed === "...") inYaml = false;
      continue;
    }
    if (candidate !== null && trimmed === "---") {
      inYaml = true;
      place(pending, candidate.depth, candidate.name, candidate.state);
      candidate = null;
      continue;
    }
    candidate = null;
    if (TOP_PLAN.test(line)) complete = true;
    const match = RESULT_LINE.exec(line);
    if (match === null) continue;
    const { name, directive } = splitDescription(match[3] ?? "");
    const skipped = /^(skip|todo)\b/i.test(directive);
    candidate = {
      depth: Math.floor((match[1] ?? "").length / 4),
      name,
      state: skipped ? "skipped" : match[2] === "ok" ? "passed" : "failed",
    };
  }
  return { records: pending[0] ?? [], complete };
}

/** Puts a result at its level, taking the results one level down as its subtests. */
function place(
  pending: ReporterRecord[][],
  depth: number,
  name: string,
  state: ReporterRecord["state"],
): void {
  const children = pending[depth + 1] ?? [];
  pending[depth + 1] = [];
  while (pending.length <= depth) pending.push([]);
  const level = pending[depth] ?? [];
  for (const child of children) level.push({ ...child, titles: [name, ...child.titles] });
  level.push({ titles: [name], state });
  pending[depth] = level;
}

/** A TAP description's name (unescaped) and its `# SKIP`/`# TODO` directive, if any. */
function splitDescription(text: string): { name: string; directive: string } {
  let name = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? "";
    if (char === "\\" && index + 1 < text.length) {
      const next = text[index + 1] ?? "";
      name += ESCAPES[next] ?? next;
      index++;
    } else if (char === "#") {
      return { name: name.trimEnd(), directive: text.slice(index + 1).trim() };
    } else {
      name += char;
    }
  }
  return { name: name.trimEnd(), directive: "" };
}
