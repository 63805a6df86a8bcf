/**
 * The live display fitted to the terminal it is on (issue 28, items 7 and 8): a pty that says it
 * has no size still gets a status area, and on a narrow one every line fits its width, the
 * status line keeping its counts and ETA whole.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { renderStatus } from "../../src/ui/live.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runInTerminal } from "../helpers/terminal.js";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const labBin = path.join(repoRoot, "bin", "lab.js");

/** lab's environment on a terminal: no CI (which would choose the plain display), no NO_COLOR. */
function terminalEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && name !== "CI" && name !== "NO_COLOR") env[name] = value;
  return { ...env, TERM: "xterm-256color", LAB_CACHE_DIR: sharedCacheDir };
}

/** `lab run command` of a tool that leaves alpha unfixed and waits on beta for `go`. */
function runWaiting(go: string, runId: string, terminal: { columns: number; sized: boolean }) {
  const tool = `case "$(cat {prompt_file})" in *beta*) while [ ! -e ${go} ]; do sleep 0.1; done;; esac`;
  return runInTerminal(
    [
      "node",
      labBin,
      ...["run", "command", "--suite", "fixture", "--sandbox", "none", "--command", tool],
      ...["--run-id", runId, "--evals-dir", evalsDir, "--runs-dir", path.join(root, "runs")],
    ],
    { cwd: root, env: terminalEnv(), rows: 30, ...terminal },
  );
}

/**
 * The lines fitted to the width: the status area's and each trial's verdict. lab's own notes
 * stay whole, so a path in them can be copied; the terminal wraps them.
 */
const isFitted = (row: string) => /^(\[\d+\/\d+\] | {2}\S+ #\d|.*trials ·)/.test(row);

beforeAll(() => {
  if (!existsSync(labBin)) throw new Error("bin/lab.js needs a build: run `npm run build` first.");
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
});

describe("the live display on terminals of every size", () => {
  it("a terminal with no size gets the status area at the default width", async () => {
    const go = path.join(root, "go-unsized");
    const run = runWaiting(go, "unsized", { columns: 80, sized: false });
    try {
      const rows = await run.waitForScreen(
        (screen) =>
          screen.some((row) => /^ +beta #1 +tool +0:0\d$/.test(row)) &&
          screen.some((row) => row.includes("1/2 trials · 0 resolved")),
        120_000,
      );
      for (const row of rows.filter(isFitted)) expect(row.length, row).toBeLessThan(80);
      writeFileSync(go, "");
      expect(await run.exited).toBe(0);
    } finally {
      run.kill();
    }
  }, 180_000);

  it("at 60 columns every line fits, an unresolved trial's cut at its reason", async () => {
    const go = path.join(root, "go-narrow");
    const run = runWaiting(go, "narrow", { columns: 60, sized: true });
    try {
      const rows = await run.waitForScreen(
        (screen) => screen.some((row) => /^ +beta #1 +tool +0:0\d$/.test(row)),
        120_000,
      );
      // A wrapped line comes back joined, so a line over the width shows here.
      for (const row of rows.filter(isFitted)) expect(row.length, row).toBeLessThan(60);
      expect(rows).toContainEqual(
        expect.stringMatching(/^\[1\/2\] alpha #1: unresolved: .+… \(\d+\.\ds\)$/),
      );
      expect(rows).toContainEqual(expect.stringMatching(/ETA \d:\d\d$/));
      writeFileSync(go, "");
      expect(await run.exited).toBe(0);
    } finally {
      run.kill();
    }
  }, 180_000);

  it("the status line keeps its counts and ETA whole however narrow", () => {
    const progress = {
      noun: "trials",
      goodWord: "resolved",
      total: 300,
      done: 120,
      good: 110,
      startedAt: 0,
      inFlight: new Map(),
    };
    const now = 3_725_000;
    const wide = renderStatus(progress, now, { columns: 120, rows: 24 }, (_, text) => text);
    expect(wide).toMatch(/^█+░+ 120\/300 trials · 110 resolved · 1:02:05 elapsed · ETA 1:33:07$/);
    for (const columns of [60, 50, 40, 30]) {
      const line = renderStatus(progress, now, { columns, rows: 24 }, (_, text) => text);
      expect(line.length, line).toBeLessThan(columns);
      expect(line, line).toMatch(/120\/300 .*ETA 1:33:07$/);
    }
  });
});
