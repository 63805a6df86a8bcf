import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta"), addTask("gamma")]);
});

/** Starts the real CLI (from source, through tsx) in its own process. */
function startLab(args: readonly string[]) {
  const tsx = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;
  const child = spawn(
    process.execPath,
    ["--import", tsx, path.join(repoRoot, "src/cli/bin.ts"), ...args],
    {
      cwd: root,
      env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir, CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => {
      resolve(code ?? (signal === null ? null : 128));
    }),
  );
  return { child, exited, stderr: () => stderr };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a run killed midway", () => {
  it("loses nothing that finished, and the same command resumes without redoing it", async () => {
    // The tool fixes the bug, then dawdles, so the run is killed while a later trial is under way.
    const args = [
      "run",
      "command",
      "--suite",
      "fixture",
      "--evals-dir",
      evalsDir,
      "--command",
      "sed -i 's/a - b/a + b/' src/*/__init__.py; sleep 2",
    ];
    const first = startLab(args);
    await waitFor(() => findResult("alpha") !== null, 60_000);
    first.child.kill("SIGKILL");
    await first.exited;
    const finished = findResult("alpha");
    expect(finished).not.toBeNull();
    const mtime = statSync(finished ?? "").mtimeMs;
    expect(findResult("gamma")).toBeNull();

    const second = startLab(args);
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toMatch(
      /resuming run fixture-command-[0-9a-f]{12}: .* 2 trial\(s\) to do, 1 already done/,
    );
    expect(statSync(finished ?? "").mtimeMs).toBe(mtime);
    for (const task of ["alpha", "beta", "gamma"]) {
      const result = JSON.parse(readFileSync(findResult(task) ?? "", "utf8")) as {
        resolved: boolean;
      };
      expect(result.resolved).toBe(true);
    }
  }, 120_000);

  it("on Ctrl-C stops with exit 130, keeping finished trials", async () => {
    const args = [
      "run",
      "command",
      "--suite",
      "fixture",
      "--evals-dir",
      evalsDir,
      "--run-id",
      "sigint",
      "--command",
      "sed -i 's/a - b/a + b/' src/*/__init__.py; sleep 3",
    ];
    const run = startLab(args);
    await waitFor(() => run.stderr().includes("starting run sigint"), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toContain("interrupted; stopping");
    const record = JSON.parse(
      readFileSync(path.join(root, "runs", "sigint", "run.json"), "utf8"),
    ) as { status: string };
    expect(record.status).toBe("cancelled");
  }, 60_000);
});

/** The result.json of a task's first trial in the default command run, or null. */
function findResult(task: string): string | null {
  const runs = path.join(root, "runs");
  if (!existsSync(runs)) return null;
  for (const run of readdirSync(runs)) {
    if (!run.startsWith("fixture-command-")) continue;
    const file = path.join(runs, run, "trials", task, "1", "result.json");
    if (existsSync(file)) return file;
  }
  return null;
}
