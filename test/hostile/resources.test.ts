/**
 * Hostile tools against the machine: filling the disk and forking without bound. Each trial
 * ends, is recorded, and lab goes on to the next one; the host keeps working.
 */
import { describe, expect, it } from "vitest";
import { detectCgroups } from "../../src/sandbox/index.js";
import { HOSTILE_SANDBOXES, makeLab, toolLog } from "./helpers.js";

const cgroups = await detectCgroups();

describe.each(HOSTILE_SANDBOXES)("hostile tools against the machine (%s)", (sandbox) => {
  const lab = makeLab({ sandbox });

  // docker's engine makes the cgroups itself.
  it.runIf(cgroups.memory !== null || sandbox === "docker")(
    "taking memory without bound is killed at the memory limit, and the trial recorded",
    async () => {
      const result = await lab.run("memory-hog.sh", { memory: "64m" });
      const trial = result.results[0]!;
      expect(trial).toMatchObject({ resolved: false, outcome: { kind: "tool_crashed" } });
      expect(toolLog(result.runDir, trial)).toMatch(
        /lab: the sandbox's memory limit \(64 MiB\) was reached; the kernel killed \d+ process\(es\)\./,
      );
    },
    120_000,
  );

  it("filling the disk ends the trial at the disk limit, and the next trial runs", async () => {
    const result = await lab.run("fill-disk.sh", { tasks: ["alpha", "beta"], disk: "48m" });
    expect(result.summary).toMatchObject({ trials: 2, resolved: 0, infraErrors: 0 });
    for (const trial of result.results) {
      expect(trial.outcome.kind).toBe("tool_crashed");
      expect(trial.toolExit?.timedOut).toBe(false);
      expect(toolLog(result.runDir, trial)).toContain(
        "lab: the sandbox's disk limit (48 MiB) was passed",
      );
    }
  }, 240_000);

  // Only where a pids cgroup caps it: RLIMIT_NPROC does not bind root, and nothing else would.
  it.runIf(cgroups.pids !== null || sandbox === "docker")(
    "a fork bomb is held to the process limit and dies with the trial",
    async () => {
      const started = Date.now();
      const result = await lab.run("fork-bomb.sh", { timeout: "5s", maxProcesses: 64 });
      const trial = result.results[0]!;
      expect(trial).toMatchObject({ resolved: false, outcome: { kind: "tool_timeout" } });
      expect(trial.phaseMs.tool).toBeLessThan(15_000);
      expect(toolLog(result.runDir, trial)).toMatch(
        /lab: the sandbox's process limit \(64\) refused \d+ fork\(s\)\./,
      );
      expect(Date.now() - started).toBeLessThan(120_000);
    },
    120_000,
  );
});
