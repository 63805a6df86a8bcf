/**
 * A real `lab run --sandbox docker` killed mid-trial (SIGINT, SIGTERM, SIGKILL) leaves no
 * container behind once the run is resumed or `lab cache clear` runs; containers carry the
 * run's id in their labels.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createDockerProvider } from "../../src/sandbox/index.js";
import { withDockerReclaimLock } from "../helpers/docker-reclaim-lock.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { startLab, waitFor } from "../helpers/lab-process.js";
import { tempDir } from "../helpers/temp.js";
import { dockerEndToEndUnavailable, dockerLines, testDockerSettings } from "./helpers.js";

const unavailable = dockerEndToEndUnavailable();
const root = tempDir("lab-docker-kill-");
const evalsDir = path.join(root, "evals");

/** The tool sleeps as long as LAB_TEST_SLEEP says: long the first time, not at all on resume. */
const COMMAND = ["--command", 'sleep "$LAB_TEST_SLEEP"', "--command-env", "LAB_TEST_SLEEP"];

function runArgs(runId: string, command: readonly string[] = COMMAND): string[] {
  return [
    "run",
    "command",
    "--suite",
    "fixture",
    "--evals-dir",
    evalsDir,
    "--sandbox",
    "docker",
    "--run-id",
    runId,
    ...command,
  ];
}

/** Names of the run's containers: all of them, or only the running ones. */
function containers(runId: string, all = true): string[] {
  return dockerLines([
    "ps",
    ...(all ? ["--all"] : []),
    "--filter",
    `label=lab.run=${runId}`,
    "--format",
    "{{.Names}}",
  ]);
}

/** Starts a run whose tool sleeps, and waits until its container runs. */
async function startSleepingRun(runId: string) {
  const lab = startLab(runArgs(runId), { cwd: root, env: { LAB_TEST_SLEEP: "600" } });
  await waitFor(() => containers(runId, false).length === 1, 120_000, `${runId}'s container`);
  return lab;
}

/** Resumes the run with a tool that does not sleep; it must finish, graded. */
async function resume(runId: string): Promise<string> {
  const again = startLab(runArgs(runId), { cwd: root, env: { LAB_TEST_SLEEP: "0" } });
  expect(await again.exited, again.stderr()).toBe(0);
  expect(again.stderr()).toContain(`resuming run ${runId}`);
  expect(again.stderr()).toContain(`run ${runId} completed: 0/1 resolved`);
  return again.stderr();
}

/** The pid of the docker client running a container of this run (lab's child). */
function dockerClientOf(runId: string): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[1] === "run" && argv.includes(`lab.run=${runId}`)) return Number(entry);
    } catch {
      // Gone.
    }
  }
  throw new Error(`no docker client of ${runId}`);
}

describe.runIf(unavailable === null)("a docker run killed mid-trial", () => {
  beforeAll(async () => {
    writeFixtureSuite(evalsDir, "fixture", [addTask("alpha")]);
    await createDockerProvider({ settings: testDockerSettings() }).checkReady();
  }, 1_800_000);

  it.each(["SIGINT", "SIGTERM"] as const)(
    "on %s removes its container before it exits, and resumes",
    async (signal) => {
      const runId = `docker-${signal.toLowerCase()}`;
      const lab = await startSleepingRun(runId);
      lab.child.kill(signal);
      expect(await lab.exited).toBe(130);
      expect(containers(runId)).toEqual([]);
      await resume(runId);
      expect(containers(runId)).toEqual([]);
    },
    180_000,
  );

  it("on SIGKILL its container dies with it (its held stdin closes), and the run resumes", async () => {
    const runId = "docker-sigkill";
    const lab = await startSleepingRun(runId);
    lab.child.kill("SIGKILL");
    await lab.exited;
    await waitFor(() => containers(runId).length === 0, 30_000, "the container to go");
    await resume(runId);
    expect(containers(runId)).toEqual([]);
  }, 180_000);

  it("SIGKILLed in the grace after the time limit, with a tool deaf to SIGTERM, its container dies with it", async () => {
    const runId = "docker-sigkill-grace";
    const timeoutMs = 3000;
    const deaf = [...COMMAND.slice(2), "--command", `trap '' TERM; ${COMMAND[1] ?? ""}`];
    const lab = startLab([...runArgs(runId, deaf), "--timeout", `${String(timeoutMs / 1000)}s`], {
      cwd: root,
      env: { LAB_TEST_SLEEP: "600" },
    });
    try {
      await waitFor(() => containers(runId, false).length === 1, 120_000, `${runId}'s container`);
      // Past the time limit's SIGTERM, inside the 5 s grace before lab's own kill.
      await new Promise((resolve) => setTimeout(resolve, timeoutMs + 1000));
      expect(containers(runId, false)).toHaveLength(1);
      lab.child.kill("SIGKILL");
      await lab.exited;
      await waitFor(() => containers(runId).length === 0, 30_000, "the container to go");
    } finally {
      lab.child.kill("SIGKILL");
      const left = containers(runId);
      if (left.length > 0) execFileSync("docker", ["rm", "--force", ...left], { stdio: "ignore" });
    }
  }, 180_000);

  it.each(["resume", "lab cache clear"] as const)(
    "a container left running by a SIGKILLed lab (its client frozen) is removed by %s",
    async (cleaner) => {
      const runId = `docker-left-${cleaner === "resume" ? "resume" : "clear"}`;
      const lab = await startSleepingRun(runId);
      // Frozen, the client holds the container's stdin open: nothing tells it lab is gone.
      const client = dockerClientOf(runId);
      process.kill(client, "SIGSTOP");
      try {
        // No other test file's `lab cache clear` may remove the container meanwhile.
        await withDockerReclaimLock(async () => {
          lab.child.kill("SIGKILL");
          await lab.exited;
          await new Promise((resolve) => setTimeout(resolve, 2000));
          expect(containers(runId, false)).toHaveLength(1);
          if (cleaner === "resume") {
            await resume(runId);
          } else {
            // Another cache folder: its clear removes no image the other tests use.
            const clear = startLab(["cache", "clear"], {
              cwd: root,
              env: { LAB_CACHE_DIR: tempDir() },
            });
            expect(await clear.exited).toBe(0);
            expect(clear.stderr()).toMatch(
              /docker: removed 0 image\(s\) and [1-9]\d* container\(s\)/,
            );
          }
        });
        expect(containers(runId)).toEqual([]);
      } finally {
        process.kill(client, "SIGKILL");
      }
    },
    180_000,
  );
});

if (unavailable !== null) {
  describe(`a docker run killed mid-trial (skipped: ${unavailable})`, () => {
    it.todo(
      "runs where a Docker engine answers (scripts/test.sh installs docker.io and starts dockerd as root), once: not in its LAB_TEST_DOCKER=contract leg",
    );
  });
}
