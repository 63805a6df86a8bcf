/**
 * The live display on a real pseudo-terminal (test/helpers/terminal.ts): the built lab runs
 * under `script`, its bytes go through a terminal emulator, and the test reads the screen at
 * moments it controls. The tool waits for files the test creates, so each frame is caught while
 * it holds: two trials in flight, then one finished with an ETA, then the end.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runInTerminal } from "../helpers/terminal.js";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const labBin = path.join(repoRoot, "bin", "lab.js");
const COLUMNS = 110;
const ROWS = 30;

/** lab's environment on a terminal: no CI (which would choose the plain display), no NO_COLOR. */
function terminalEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && name !== "CI" && name !== "NO_COLOR") env[name] = value;
  return { ...env, TERM: "xterm-256color", LAB_CACHE_DIR: sharedCacheDir };
}

const lab = (...args: string[]) =>
  runInTerminal(
    ["node", labBin, ...args, "--evals-dir", evalsDir, "--runs-dir", path.join(root, "runs")],
    {
      cwd: root,
      env: terminalEnv(),
      columns: COLUMNS,
      rows: ROWS,
    },
  );

const has = (rows: readonly string[], pattern: RegExp) => rows.some((row) => pattern.test(row));

beforeAll(() => {
  if (!existsSync(labBin)) throw new Error("bin/lab.js needs a build: run `npm run build` first.");
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta"), addTask("gamma")]);
});

describe("the live display on a terminal", () => {
  it("shows the bar, resolved so far, each trial in flight with its phase and time, and an ETA", async () => {
    // alpha and beta wait for go-1, gamma for go-2; then each fixes its bug.
    const go = (n: number) => path.join(root, `go-${String(n)}`);
    const tool = [
      `case "$(cat {prompt_file})" in *gamma*) f=${go(2)};; *) f=${go(1)};; esac`,
      `while [ ! -e "$f" ]; do sleep 0.1; done`,
      `sed -i 's/a - b/a + b/' src/*/__init__.py`,
    ].join("; ");
    const run = lab(
      "run",
      "command",
      "--suite",
      "fixture",
      "--concurrency",
      "2",
      "--sandbox",
      "none",
      "--command",
      tool,
    );
    try {
      // Two trials in the tool phase, their times counting up.
      const waiting = await run.waitForScreen(
        (rows) =>
          has(rows, /^ +alpha #1 +tool +0:0[2-9]$/) && has(rows, /^ +beta #1 +tool +0:0[2-9]$/),
        120_000,
      );
      expect(waiting).toContainEqual(
        expect.stringMatching(/^░{10,30} 0\/3 trials · 0 resolved · 0:0\d elapsed · ETA –$/),
      );
      expect(waiting.filter((row) => row.includes("trials ·"))).toHaveLength(1);

      writeFileSync(go(1), "");
      // Two done, gamma in flight: the bar has moved and the ETA comes from the finished ones.
      const halfway = await run.waitForScreen(
        (rows) => has(rows, /2\/3 trials · 2 resolved/) && has(rows, /^ +gamma #1 +tool +0:0\d$/),
        120_000,
      );
      expect(halfway).toContainEqual(
        expect.stringMatching(/^█+░+ 2\/3 trials · 2 resolved · \d:\d\d elapsed · ETA \d:\d\d$/),
      );
      expect(halfway).toContainEqual(
        expect.stringMatching(/^\[[12]\/3\] alpha #1: resolved \(\d+\.\ds\)$/),
      );
      expect(halfway).toContainEqual(
        expect.stringMatching(/^\[[12]\/3\] beta #1: resolved \(\d+\.\ds\)$/),
      );

      writeFileSync(go(2), "");
      expect(await run.exited).toBe(0);
    } finally {
      run.kill();
    }
    const final = await run.screen();
    // The status area is gone, and every line a log keeps is there once.
    expect(final.filter((row) => row.includes("trials ·"))).toEqual([]);
    expect(final.filter((row) => /^ +\w+ #1 +(tool|grade|setup)/.test(row))).toEqual([]);
    for (const task of ["alpha", "beta", "gamma"])
      expect(
        final.filter((row) => row.includes(`${task} #1: resolved`)),
        task,
      ).toHaveLength(1);
    expect(final.at(-1)).toMatch(
      /^lab: run fixture-command-\w+ completed: 3\/3 resolved; results in /,
    );
    // Each trial showed its phases as they came (the frames are in the raw bytes): its setup,
    // the tool (read from the screen above), then grading's install and tests.
    expect(run.raw()).toMatch(/ alpha #1 +setup +0:0\d/);
    expect(run.raw()).toMatch(/grade: install/);
    expect(run.raw()).toMatch(/grade: tests/);
  }, 300_000);

  it("Ctrl-C leaves the interrupt's message whole and the screen without a status area", async () => {
    const never = path.join(root, "never");
    const run = lab(
      "run",
      "command",
      "--suite",
      "fixture",
      "--run-id",
      "interrupted",
      "--sandbox",
      "none",
      "--command",
      `while [ ! -e ${never} ]; do sleep 0.1; done`,
    );
    try {
      await run.waitForScreen((rows) => has(rows, /^ +alpha #1 +tool +0:0[1-9]$/), 120_000);
      run.type("\u0003");
      expect(await run.exited).toBe(130);
    } finally {
      run.kill();
    }
    const final = await run.screen();
    expect(final.filter((row) => row.includes("trials ·"))).toEqual([]);
    expect(
      final.filter((row) =>
        row.startsWith(
          "lab: interrupted; stopping (finished trials are kept, rerun the same command to resume).",
        ),
      ),
    ).toHaveLength(1);
    expect(final.at(-1)).toMatch(
      /^lab: run interrupted cancelled: 0 of \d+ trials done, 0 resolved; results in /,
    );
  }, 180_000);

  it("--display plain on a terminal prints the lines alone, without escape codes", async () => {
    const run = lab("run", "gold", "--suite", "fixture", "--tasks", "alpha", "--display", "plain");
    expect(await run.exited).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(run.raw()).not.toMatch(/\u001b\[/);
    const screen = await run.screen();
    expect(screen).toContainEqual(expect.stringMatching(/^\[1\/1\] alpha #1: resolved/));
  }, 120_000);

  it("--display json on a terminal prints one JSON event per line, and nothing else", async () => {
    const run = lab("run", "gold", "--suite", "fixture", "--tasks", "beta", "--display", "json");
    expect(await run.exited).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(run.raw()).not.toMatch(/\u001b\[/);
    const lines = run
      .raw()
      .split(/\r?\n/)
      .filter((line) => line !== "");
    const events = lines.map((line) => JSON.parse(line) as { type: string });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("run:start");
    expect(types.at(-1)).toBe("run:end");
    expect(types).toContain("trial:start");
    expect(types).toContain("trial:phase");
    expect(events.find((event) => event.type === "trial:end")).toMatchObject({
      result: { taskId: "beta", resolved: true },
    });
  }, 120_000);

  it("lab gen proves tasks with the same display, then leaves the proof lines", async () => {
    const run = lab("gen", "--suite", "fixture");
    const proving = await run.waitForScreen((rows) => has(rows, /proofs · \d+ proven/), 120_000);
    expect(proving).toContainEqual(
      expect.stringMatching(/^[█░]+ \d\/3 proofs · \d proven · \d:\d\d elapsed · ETA /),
    );
    expect(await run.exited).toBe(0);
    const final = await run.screen();
    expect(final.filter((row) => row.includes("proofs ·"))).toEqual([]);
    for (const task of ["alpha", "beta", "gamma"])
      expect(final).toContainEqual(
        expect.stringMatching(new RegExp(`^lab: \\[\\d/3\\] ${task}: proven$`)),
      );
    // Each proof went through the gold patch's and the empty change's grading steps.
    expect(run.raw()).toMatch(/gold: (install|tests)/);
    expect(run.raw()).toMatch(/no change: (install|tests)/);
    expect(readFileSync(path.join(evalsDir, "fixture", "proof.json"), "utf8")).toContain(
      '"valid": true',
    );
  }, 300_000);
});
