import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { startLab, waitFor } from "../helpers/lab-process.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir("lab-huge-trials-");
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const hint =
  "Ask for fewer: `lab plan --baseline RATE --difference RATE` says how many trials per task a comparison needs.\n";

/** Resolves with the exit code, or null if `lab` is still running after `ms`. */
async function exitWithin(exited: Promise<number>, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      resolve(null);
    }, ms);
  });
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
  // 101 tasks: at 1000 trials each, one task past a run's 100000.
  writeFixtureSuite(
    evalsDir,
    "wide",
    Array.from({ length: 101 }, (_, index) => addTask(`t${String(index).padStart(3, "0")}`)),
  );
});

describe("a huge --trials", () => {
  it("is refused at once, naming the option, the bound and the value, and leaves nothing", async () => {
    for (const trials of ["100000000", "1000000"]) {
      const lab = startLab(
        [
          "run",
          "gold",
          "--suite",
          "fixture",
          "--evals-dir",
          evalsDir,
          "--runs-dir",
          runsDir,
          "--trials",
          trials,
        ],
        { cwd: root },
      );
      const code = await exitWithin(lab.exited, 60_000);
      if (code === null) lab.child.kill("SIGKILL");
      expect(code).toBe(2);
      expect(lab.stderr()).toBe(
        `lab run: --trials is at most 1000 trials per task; got ${trials}.\n${hint}Run \`lab run --help\` for the usage.\n`,
      );
      expect(existsSync(runsDir)).toBe(false);
    }
  }, 180_000);

  it("is refused from LAB_TRIALS and from lab.config.json too", async () => {
    const fromEnv = await runLab(["run", "gold", "--suite", "fixture", "--evals-dir", evalsDir], {
      cwd: root,
      env: { LAB_TRIALS: "5000", LAB_RUNS_DIR: runsDir },
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain(
      "lab run: LAB_TRIALS is at most 1000 trials per task; got 5000.\n",
    );
    const cwd = path.join(root, "configured");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      path.join(cwd, "lab.config.json"),
      JSON.stringify({ defaults: { trials: 5000 } }),
    );
    const fromFile = await runLab(
      ["run", "gold", "--suite", "fixture", "--evals-dir", evalsDir, "--runs-dir", runsDir],
      { cwd },
    );
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain(
      "is invalid: defaults.trials: is at most 1000 trials per task.",
    );
    expect(existsSync(runsDir)).toBe(false);
  });

  it("is refused when tasks times trials pass a run's bound, leaving no run.lock", async () => {
    const result = await runLab(
      [
        "run",
        "gold",
        "--suite",
        "wide",
        "--evals-dir",
        evalsDir,
        "--runs-dir",
        runsDir,
        "--run-id",
        "too-wide",
        "--trials",
        "1000",
      ],
      { cwd: root },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'lab run: Run "too-wide" would hold 101000 trials (101 task(s) × --trials 1000); a run holds at most 100000.\nhint: Ask for fewer --trials, or fewer tasks (--tasks), or split the tasks over several runs (--run-id).\n',
    );
    expect(existsSync(path.join(runsDir, "too-wide", "run.lock"))).toBe(false);
  });

  it("at the bounds, a run plans in seconds and stops on SIGTERM, leaving no run.lock", async () => {
    const tasks = Array.from({ length: 100 }, (_, index) => `t${String(index).padStart(3, "0")}`);
    const lab = startLab(
      [
        "run",
        "noop",
        "--suite",
        "wide",
        "--evals-dir",
        evalsDir,
        "--runs-dir",
        runsDir,
        "--run-id",
        "widest",
        "--tasks",
        tasks.join(","),
        "--trials",
        "1000",
        "--sandbox",
        "none",
      ],
      { cwd: root },
    );
    try {
      await waitFor(
        () => lab.stderr().includes("100000 trial(s) to do"),
        60_000,
        "the run to plan its trials",
      );
      lab.child.kill("SIGTERM");
      expect(await exitWithin(lab.exited, 15_000)).toBe(130);
      expect(existsSync(path.join(runsDir, "widest", "run.lock"))).toBe(false);
    } finally {
      if (lab.child.exitCode === null) lab.child.kill("SIGKILL");
    }
  }, 120_000);
});
