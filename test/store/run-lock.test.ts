import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { LabError } from "../../src/core/index.js";
import { acquireRunLock, readRunLock, runLockFile, runPaths } from "../../src/store/index.js";
import { tempDir } from "../helpers/temp.js";

/** The pid of a process that has ended (a real one, so no live process has it for now). */
function deadPid(): number {
  const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

function lockedRun(holder: object | string): ReturnType<typeof runPaths> {
  const run = runPaths(tempDir(), "r1");
  mkdirSync(run.dir, { recursive: true });
  writeFileSync(runLockFile(run), typeof holder === "string" ? holder : JSON.stringify(holder));
  return run;
}

describe("the run lock", () => {
  it("is held by one process: a second taker is told who holds it", async () => {
    const run = runPaths(tempDir(), "r1");
    const lock = await acquireRunLock(run);
    expect(lock.tookOverFrom).toBeNull();
    const holder = JSON.parse(readFileSync(runLockFile(run), "utf8")) as {
      pid: number;
      host: string;
    };
    expect(holder).toMatchObject({ pid: process.pid, host: os.hostname() });
    const second = await acquireRunLock(run).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(LabError);
    expect((second as LabError).code).toBe("RUN_LOCKED");
    expect((second as LabError).message).toMatch(
      new RegExp(
        `^Run "r1" is being run by lab process ${String(process.pid)} on ${os.hostname()} \\(since `,
      ),
    );
    expect((await readRunLock(run))?.state).toBe("running");
    await lock.release();
    expect(existsSync(runLockFile(run))).toBe(false);
    // The run folder it made, still empty, goes with it.
    expect(existsSync(run.dir)).toBe(false);
  });

  it("takes over a lock whose process is gone", async () => {
    const pid = deadPid();
    const run = lockedRun({ pid, host: os.hostname(), since: "2024-01-01T00:00:00.000Z" });
    expect((await readRunLock(run))?.state).toBe("stale");
    const lock = await acquireRunLock(run);
    expect(lock.tookOverFrom).toMatchObject({ pid });
    expect((await readRunLock(run))?.holder.pid).toBe(process.pid);
    await lock.release();
  });

  it("takes over a lock whose pid now belongs to another process", async () => {
    const run = lockedRun({
      pid: process.pid,
      host: os.hostname(),
      since: "2024-01-01T00:00:00.000Z",
      processStart: "another-boot:1",
    });
    const lock = await acquireRunLock(run);
    expect(lock.tookOverFrom?.processStart).toBe("another-boot:1");
    await lock.release();
  });

  it("never takes over a lock held on another host", async () => {
    const run = lockedRun({ pid: 1, host: "elsewhere.example", since: "2024-01-01T00:00:00.000Z" });
    const error = (await acquireRunLock(run).catch((caught: unknown) => caught)) as LabError;
    expect(error.code).toBe("RUN_LOCKED");
    expect(error.hint).toBe(
      `Wait for it to end, or pass another --run-id. If no lab process on elsewhere.example runs it any more, delete ${runLockFile(run)}.`,
    );
  });

  it("waits for a lock file its holder has not written yet, and takes it over once it is old", async () => {
    const run = lockedRun("");
    expect((await readRunLock(run))?.state).toBe("running");
    await expect(acquireRunLock(run)).rejects.toThrow(/is being run by another lab process/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(runLockFile(run), old, old);
    const lock = await acquireRunLock(run);
    await lock.release();
  });

  it("lets exactly one of many concurrent takers in", async () => {
    const run = runPaths(tempDir(), "r1");
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => acquireRunLock(run)));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
  });
});
