/**
 * The results file of mocha's and node:test's commands (command.ts) as outcomes: JSON lines, a
 * `{"lab":"file"}` line before each file's run, then the lines lab's reporter wrote during that
 * run (lab-reporters.ts) and its `{"lab":"end"}`, or for node:test on a Node older than 20 the
 * TAP that `node file` printed, each line prefixed (results-tap.ts).
 */
import { z } from "zod";
import type { TestStatus } from "../../core/index.js";
import { TAP_LINE_PREFIX } from "./command.js";
import {
  FILE_TITLE,
  invalidResults,
  relativePath,
  type JsOutcome,
  type ReporterRecord,
} from "./outcomes.js";
import { tapRecords } from "./results-tap.js";

/** The line the command writes before a file's run. */
const FileLine = z.object({
  lab: z.literal("file"),
  file: z.string(),
  format: z.literal("tap").optional(),
});

/** A reporter's line for one outcome (ReporterRecord's fields): a test's, a mocha hook's, a suite's. */
const TestLine = z.object({
  lab: z.literal("test"),
  titles: z.array(z.string()),
  file: z.string().optional(),
  state: z.enum(["passed", "failed", "skipped"]),
  uid: z.number().optional(),
  hook: z.boolean().optional(),
  suite: z.boolean().optional(),
});

const ReporterLine = z.discriminatedUnion("lab", [
  FileLine,
  TestLine,
  z.object({ lab: z.literal("end") }),
]);

/** One file's run. */
interface Section {
  readonly file: string;
  readonly tap: boolean;
  readonly records: ReporterRecord[];
  readonly tapLines: string[];
  ended: boolean;
}

const STATUS: Readonly<Record<ReporterRecord["state"], TestStatus>> = {
  passed: "PASSED",
  failed: "FAILED",
  skipped: "SKIPPED",
};

/**
 * Outcomes from mocha's or node:test's results. A file's run that did not reach its end line (it
 * failed to load, or its process died) adds `path > (file)` as ERROR after whatever it reported.
 */
export function reporterOutcomes(
  runner: "mocha" | "node:test",
  text: string,
  root: string,
): JsOutcome[] {
  return readSections(runner, text).flatMap((section, group) => {
    const read = section.tap
      ? tapRecords(section.tapLines)
      : { records: section.records, complete: section.ended };
    const outcomes = sectionOutcomes(runner, section, read.records, root, group);
    if (
      !read.complete &&
      !outcomes.some((o) => o.titles[0] === FILE_TITLE && o.file === section.file)
    ) {
      outcomes.push({ file: section.file, titles: [FILE_TITLE], status: "ERROR", group });
    }
    return outcomes;
  });
}

/** The file's sections, each line checked; a line that is not lab's throws, naming it. */
function readSections(runner: "mocha" | "node:test", text: string): Section[] {
  const sections: Section[] = [];
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    if (line === "") return;
    const where = `line ${index + 1}`;
    const current = sections.at(-1);
    if (line.startsWith(TAP_LINE_PREFIX)) {
      if (current?.tap !== true)
        throw invalidResults(runner, `${where} is TAP outside a TAP file's run`);
      current.tapLines.push(line.slice(TAP_LINE_PREFIX.length));
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      const cut = index === lines.length - 1 ? " (the file ends inside it: it was cut short)" : "";
      throw invalidResults(
        runner,
        `${where} is not JSON${cut}: ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    const parsed = ReporterLine.safeParse(json);
    if (!parsed.success) {
      throw invalidResults(
        runner,
        `${where} is not one of lab's result lines: ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    const entry = parsed.data;
    if (entry.lab === "file") {
      sections.push({
        file: entry.file,
        tap: entry.format === "tap",
        records: [],
        tapLines: [],
        ended: false,
      });
    } else if (current === undefined) {
      throw invalidResults(runner, `${where} comes before any file's line`);
    } else if (entry.lab === "end") {
      current.ended = true;
    } else {
      current.records.push({
        titles: entry.titles,
        file: entry.file,
        state: entry.state,
        uid: entry.uid,
        hook: entry.hook,
        suite: entry.suite,
      });
    }
  });
  return sections;
}

/**
 * One run's records as outcomes. A record for a test already seen (same mocha number) replaces
 * it in place. node:test's file-level test (named by the file's path: absolute on Node 20, as
 * given on Node 24) is the file itself: its failure is `(file)`, and older Nodes' wrapping of a
 * file's tests in it is dropped. (mocha's are left alone: `describe(__filename)` is a suite.)
 * A test with subtests, or a suite, is no test id of its own: only when it failed and none of
 * the tests under it did (a hook, or its own body, failed) is it an ERROR.
 */
function sectionOutcomes(
  runner: "mocha" | "node:test",
  section: Section,
  records: readonly ReporterRecord[],
  root: string,
  group: number,
): JsOutcome[] {
  const unique: ReporterRecord[] = [];
  const byNumber = new Map<number, number>();
  for (const record of records) {
    const at = record.uid === undefined ? undefined : byNumber.get(record.uid);
    if (at === undefined) {
      if (record.uid !== undefined) byNumber.set(record.uid, unique.length);
      unique.push(record);
    } else {
      unique[at] = record;
    }
  }
  const placed = unique.map((record) => {
    const file = fileOf(record.file, section.file, root);
    const first = record.titles[0];
    const wraps =
      runner === "node:test" && first !== undefined && fileOf(first, section.file, root) === file;
    return { record, file, titles: wraps ? record.titles.slice(1) : record.titles };
  });
  // Subtests are reported before the test holding them: the prefixes seen so far, and those of a
  // failed subtest, tell a test with subtests from a leaf as its line comes.
  const prefixes = new Set<string>();
  const failedPrefixes = new Set<string>();
  const outcomes: JsOutcome[] = [];
  for (const { record, file, titles } of placed) {
    const failed = record.state === "failed";
    const key = [file, ...titles].join("\u0000");
    for (let length = 1; length < titles.length; length++) {
      const prefix = [file, ...titles.slice(0, length)].join("\u0000");
      prefixes.add(prefix);
      if (failed) failedPrefixes.add(prefix);
    }
    if (titles.length === 0) {
      if (failed) outcomes.push({ file, titles: [FILE_TITLE], status: "ERROR", group });
    } else if (prefixes.has(key) || record.suite === true) {
      if (failed && !failedPrefixes.has(key)) {
        outcomes.push({ file, titles, status: "ERROR", group });
      }
    } else {
      const status = record.hook === true ? "ERROR" : STATUS[record.state];
      outcomes.push({ file, titles, status, group });
    }
  }
  return outcomes;
}

/** A reported file's id path: the section's own file when it is that one, else relative to root. */
function fileOf(reported: string | undefined, sectionFile: string, root: string): string {
  if (reported === undefined) return sectionFile;
  const relative = relativePath(reported, root);
  if (relative === sectionFile || reported.replaceAll("\\", "/").endsWith(`/${sectionFile}`)) {
    return sectionFile;
  }
  return relative;
}
