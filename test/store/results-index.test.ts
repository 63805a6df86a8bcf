import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  readTrialResults,
  readTrialRows,
  runPaths,
  toTrialRow,
  trialPaths,
} from "../../src/store/index.js";
import { tempDir } from "../helpers/temp.js";
import { writeSyntheticRuns } from "../helpers/synthetic-runs.js";

const root = tempDir();

function freshRun(name: string) {
  const runsDir = path.join(root, name);
  writeSyntheticRuns(runsDir, [
    {
      tool: "alpha",
      suite: "s",
      outcomes: { a: [true, false], b: [false, "infra"], c: [true] },
      telemetry: () => ({ costUsd: 0.5 }),
    },
  ]);
  return runPaths(runsDir, "s-alpha");
}

/** The index's lines, as task, trial and resolved (its 2nd, 3rd and 7th fields). */
function indexLines(file: string): { row: { taskId: string; trial: number; resolved: unknown } }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const fields = JSON.parse(line) as unknown[];
      return { row: { taskId: String(fields[1]), trial: Number(fields[2]), resolved: fields[6] } };
    });
}

describe("the results index (results.jsonl)", () => {
  it("gives exactly what reading every result.json gives, and is written on first read", async () => {
    const run = freshRun("first");
    expect(existsSync(run.resultsIndex)).toBe(false);
    const truth = (await readTrialResults(run)).map(toTrialRow);
    expect(await readTrialRows(run)).toEqual(truth);
    expect(
      indexLines(run.resultsIndex).map((line) => `${line.row.taskId}#${String(line.row.trial)}`),
    ).toEqual(["a#1", "a#2", "b#1", "b#2", "c#1"]);
    expect(await readTrialRows(run)).toEqual(truth);
  });

  it("is read instead of result.json while the file's mtime and size match", async () => {
    const run = freshRun("used");
    await readTrialRows(run);
    // Change only the index (the cost is the tenth field): a report that reads it shows it.
    const lines = readFileSync(run.resultsIndex, "utf8").trimEnd().split("\n");
    const changed = lines.map((line) => {
      const fields = JSON.parse(line) as unknown[];
      fields[9] = 9;
      return JSON.stringify(fields);
    });
    writeFileSync(run.resultsIndex, `${changed.join("\n")}\n`);
    const rows = await readTrialRows(run);
    expect(rows.map((row) => row.costUsd)).toEqual([9, 9, 9, 9, 9]);
  });

  it("yields to result.json when they disagree, and is rewritten", async () => {
    const run = freshRun("stale");
    await readTrialRows(run);
    const file = trialPaths(run, "a", 2).result;
    const edited = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...edited, resolved: true }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const rows = await readTrialRows(run);
    expect(rows.find((row) => row.taskId === "a" && row.trial === 2)?.resolved).toBe(true);
    expect(
      indexLines(run.resultsIndex).find((line) => line.row.taskId === "a" && line.row.trial === 2)
        ?.row.resolved,
    ).toBe(true);
  });

  it("forgets a trial whose folder was deleted, and learns one it never saw", async () => {
    const run = freshRun("deleted");
    await readTrialRows(run);
    rmSync(trialPaths(run, "b", 2).dir, { recursive: true });
    expect((await readTrialRows(run)).map((row) => `${row.taskId}#${String(row.trial)}`)).toEqual([
      "a#1",
      "a#2",
      "b#1",
      "c#1",
    ]);
    expect(indexLines(run.resultsIndex)).toHaveLength(4);
    writeSyntheticRuns(path.dirname(run.dir), [
      {
        tool: "alpha",
        suite: "s",
        outcomes: { a: [true, false], b: [false, "infra"], c: [true], d: [true] },
      },
    ]);
    expect((await readTrialRows(run)).map((row) => row.taskId)).toContain("d");
  });

  it("skips a line cut short by a crash, and later lines win over earlier ones", async () => {
    const run = freshRun("cut");
    await readTrialRows(run);
    const text = readFileSync(run.resultsIndex, "utf8");
    const lines = text.trimEnd().split("\n");
    // An earlier, superseded line for c#1, then the real one, then a partial line.
    const fields = JSON.parse(lines[4] ?? "[]") as unknown[];
    fields[6] = false;
    const stale = JSON.stringify(fields);
    writeFileSync(
      run.resultsIndex,
      `${[...lines.slice(0, 4), stale, lines[4]].join("\n")}\n[1,"c",1,17`,
    );
    const rows = await readTrialRows(run);
    expect(rows).toHaveLength(5);
    expect(rows.find((row) => row.taskId === "c")?.resolved).toBe(true);
  });
});
