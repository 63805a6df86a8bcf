/**
 * One process per run, with real `lab run` processes of the built binary: two started together
 * on one run id, and a resume after a `kill -9`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runPaths } from "../../src/store/index.js";
import { runScratchDir } from "../../src/runner/run-suite.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { outsideTmpRoot, repoRoot, sharedCacheDir } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";

const labBin = path.join(repoRoot, "bin", "lab.js");
// Outside /tmp: the sandbox replaces /tmp, so the scratch folder may not live there.
const root = mkdtempSync(path.join(outsideTmpRoot, "run-lock-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const scratchRoot = path.join(root, "scratch");
writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Starts `lab run command` with the built binary; `ended` resolves when it exits. */
function startRun(runId: string, command: string): { child: ChildProcess; ended: Promise<Ended> } {
  const child = spawn(
    process.execPath,
    [
      labBin,
      "run",
      "command",
      "--command",
      command,
      "--suite",
      "fixture",
      "--run-id",
      runId,
      "--evals-dir",
      evalsDir,
      "--runs-dir",
      runsDir,
      "--display",
      "plain",
    ],
    {
      cwd: root,
      env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir, LAB_SCRATCH_DIR: scratchRoot, CI: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<Ended>((resolve) => {
    child.on("exit", (code, signal) => {
      resolve({ code, signal, stderr });
    });
  });
  return { child, ended };
}

function indexLines(runId: string): string[] {
  const file = runPaths(runsDir, runId).resultsIndex;
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(hasBwrap())("one lab process per run", () => {
  it("of two processes started together on one run id, one runs it and the other names it", async () => {
    const first = startRun("together", "sleep 1");
    const second = startRun("together", "sleep 1");
    const ended = await Promise.all([first.ended, second.ended]);
    const winner = ended.find((end) => end.code === 0);
    const loser = ended.find((end) => end.code !== 0);
    expect(winner, ended.map((end) => end.stderr).join("\n---\n")).toBeDefined();
    expect(loser?.code).toBe(1);
    const winnerPid = (ended[0] === winner ? first : second).child.pid;
    expect(loser?.stderr).toContain(
      `Run "together" is being run by lab process ${String(winnerPid)} on ${os.hostname()}`,
    );
    expect(indexLines("together")).toHaveLength(2);
    expect(existsSync(path.join(runsDir, "together", "run.lock"))).toBe(false);
  }, 120_000);

  it("a resume after a kill takes over the stale lock and cleans the dead trial's scratch", async () => {
    const killed = startRun("killed", "sleep 4");
    const run = runPaths(runsDir, "killed");
    const scratch = runScratchDir(scratchRoot, run);
    await until(() => existsSync(scratch) && readdirSync(scratch).length > 0, 60_000);
    const left = readdirSync(scratch).map((name) => path.join(scratch, name));
    const report = () =>
      runLab(["report", "--suite", "fixture", "--runs-dir", runsDir, "--run-id", "killed"], {
        cwd: root,
      });
    expect((await report()).stderr).toMatch(
      new RegExp(
        `^lab: run killed is in progress \\(lab process ${String(killed.child.pid)} on ${os.hostname()} since [^)]+\\); its figures are partial\\.$`,
        "m",
      ),
    );
    killed.child.kill("SIGKILL");
    expect((await killed.ended).signal).toBe("SIGKILL");
    expect(existsSync(path.join(run.dir, "run.lock"))).toBe(true);
    expect(left.every((dir) => existsSync(dir))).toBe(true);
    expect((await report()).stderr).toContain(
      `lab: run killed was left unfinished by lab process ${String(killed.child.pid)} on ${os.hostname()}, which is gone; rerun the same command to resume it.`,
    );

    const resumed = await startRun("killed", "sleep 4").ended;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `run killed: took over the lock of lab process ${String(killed.child.pid)}, which is gone`,
    );
    expect(left.some((dir) => existsSync(dir))).toBe(false);
    expect(indexLines("killed")).toHaveLength(2);
    expect(existsSync(path.join(run.dir, "run.lock"))).toBe(false);
  }, 120_000);
});
