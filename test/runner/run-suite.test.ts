import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  commandToolSpec,
  resolveRunConfig,
  resolveSettings,
  configFileSchema,
} from "../../src/config/index.js";
import type { RunEvent, Tool } from "../../src/core/index.js";
import { runSuite } from "../../src/runner/index.js";
import { readRunRecord, runPaths, trialPaths } from "../../src/store/index.js";
import { createCommandTool, createGoldTool, createNoopTool } from "../../src/tools/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
  // A task whose setup.sh fails, and one whose setup.sh leaves the fix in history.
  writeFixtureSuite(evalsDir, "broken", [addTask("nosetup"), addTask("leaky")]);
  writeFileSync(
    path.join(evalsDir, "broken/tasks/nosetup/setup.sh"),
    "#!/usr/bin/env bash\necho 'cannot reach the repository' >&2\nexit 7\n",
  );
  const leaky = path.join(evalsDir, "broken/tasks/leaky/setup.sh");
  writeFileSync(
    leaky,
    `${readFileSync(leaky, "utf8")}git tag base\ncp "$here/../../repos/leaky/src/leaky/__init__.py" /dev/null\nsed -i 's/a - b/a + b/' src/leaky/__init__.py\ngit -c commit.gpgsign=false commit -qam fix\ngit checkout -q base\n`,
  );
});

function config(
  tool: Tool,
  options: {
    suite?: string;
    runId: string;
    trials?: string;
    timeout?: string;
    tasks?: string[];
    concurrency?: string;
    sandbox?: string;
  },
) {
  const settings = resolveSettings(
    { evalsDir, runsDir: path.join(root, "runs") },
    { ...process.env, LAB_CACHE_DIR: sharedCacheDir },
    root,
  );
  return resolveRunConfig({
    flags: {
      suite: options.suite ?? "fixture",
      runId: options.runId,
      trials: options.trials,
      timeout: options.timeout,
      tasks: options.tasks,
      concurrency: options.concurrency,
      sandbox: options.sandbox,
    },
    env: process.env,
    file: configFileSchema.parse({}),
    settings,
    source: { kind: "tool", tool },
    labVersion: "test",
    signal: new AbortController().signal,
  });
}

function command(line: string, name = "command"): Tool {
  return createCommandTool(commandToolSpec(name, { command: line }, process.env));
}

function collect(): { events: RunEvent[]; reporter: { emit(event: RunEvent): void } } {
  const events: RunEvent[] = [];
  return { events, reporter: { emit: (event) => events.push(event) } };
}

const never = new AbortController().signal;

describe("runSuite", () => {
  it("runs gold over a suite, resolving every task and keeping each trial's record, patch and logs", async () => {
    const result = await runSuite(
      config(createGoldTool(), { runId: "gold", concurrency: "2" }),
      collect().reporter,
      never,
    );
    expect(result.status).toBe("completed");
    expect(result.summary).toEqual({ trials: 2, resolved: 2, unresolved: 0, infraErrors: 0 });
    const trialDir = path.join(result.runDir, "trials", "alpha", "1");
    for (const file of ["result.json", "patch.diff", "grader.log", "tool.log"])
      expect(existsSync(path.join(trialDir, file)), file).toBe(true);
    const record = JSON.parse(readFileSync(path.join(trialDir, "result.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({
      tool: "gold",
      taskId: "alpha",
      trial: 1,
      resolved: true,
      patchApplied: true,
      outcome: { kind: "graded" },
    });
    expect(Object.keys(record.phaseMs as object)).toEqual(["setup", "tool", "grade"]);
    expect(readFileSync(path.join(trialDir, "patch.diff"), "utf8")).toContain("+    return a + b");
    expect((await readRunRecord(runPaths(path.join(root, "runs"), "gold"))).status).toBe(
      "completed",
    );
  });

  it("runs noop, resolving nothing", async () => {
    const result = await runSuite(
      config(createNoopTool(), { runId: "noop" }),
      collect().reporter,
      never,
    );
    expect(result.summary).toEqual({ trials: 2, resolved: 0, unresolved: 2, infraErrors: 0 });
    expect(
      result.results.every((trial) => trial.patchEmpty === true && trial.patchApplied === false),
    ).toBe(true);
  });

  it("resumes a run: a second invocation skips finished trials and adds only new ones", async () => {
    const tool = command("sed -i 's/a - b/a + b/' src/*/__init__.py");
    const first = await runSuite(
      config(tool, { runId: "resume", tasks: ["alpha"] }),
      collect().reporter,
      never,
    );
    const started = first.results[0]?.startedAt;
    const { events, reporter } = collect();
    const second = await runSuite(config(tool, { runId: "resume", trials: "2" }), reporter, never);
    expect(events[0]).toMatchObject({ type: "run:start", resumed: true, skipped: 1, pending: 3 });
    expect(second.results.map((trial) => `${trial.taskId}#${String(trial.trial)}`)).toEqual([
      "alpha#1",
      "alpha#2",
      "beta#1",
      "beta#2",
    ]);
    expect(second.results[0]?.startedAt).toBe(started);
    expect(second.summary.resolved).toBe(4);
  });

  it("resumes a run killed between a trial's result.json and its index line, and mends the index", async () => {
    const tool = command("sed -i 's/a - b/a + b/' src/*/__init__.py");
    const first = await runSuite(config(tool, { runId: "index-cut" }), collect().reporter, never);
    const index = runPaths(path.join(root, "runs"), "index-cut").resultsIndex;
    const lines = () => readFileSync(index, "utf8").split("\n").filter(Boolean);
    expect(lines()).toHaveLength(2);
    // What a SIGKILL after the last result.json, before its index line, leaves.
    writeFileSync(index, `${lines()[0] ?? ""}\n`);
    const { events, reporter } = collect();
    const second = await runSuite(
      config(tool, { runId: "index-cut", trials: "2" }),
      reporter,
      never,
    );
    expect(events[0]).toMatchObject({ type: "run:start", resumed: true, skipped: 2, pending: 2 });
    expect(second.results[0]?.startedAt).toBe(first.results[0]?.startedAt);
    const indexed = lines().map((line) => {
      const [, taskId, trial] = JSON.parse(line) as [number, string, number];
      return `${taskId}#${String(trial)}`;
    });
    expect(indexed.sort()).toEqual(["alpha#1", "alpha#2", "beta#1", "beta#2"]);
  });

  it("runs again, on resume, a trial whose result.json cannot be read", async () => {
    const tool = command("sed -i 's/a - b/a + b/' src/*/__init__.py");
    await runSuite(config(tool, { runId: "unreadable" }), collect().reporter, never);
    const run = runPaths(path.join(root, "runs"), "unreadable");
    writeFileSync(trialPaths(run, "beta", 1).result, "{");
    const { events, reporter } = collect();
    const second = await runSuite(config(tool, { runId: "unreadable" }), reporter, never);
    expect(events[0]).toMatchObject({ type: "run:start", resumed: true, skipped: 1, pending: 1 });
    expect(second).toMatchObject({ status: "completed", summary: { trials: 2, resolved: 2 } });
  });

  it("refuses to resume a run made with another command line", async () => {
    await expect(
      runSuite(config(command("true"), { runId: "resume" }), collect().reporter, never),
    ).rejects.toMatchObject({
      code: "RUN_CONFLICT",
      message: expect.stringContaining("was made with a different command line") as string,
    });
  });

  it("grades the partial change of a tool that crashes, recording its exit", async () => {
    const result = await runSuite(
      config(command("sed -i 's/a - b/a + b/' src/*/__init__.py; exit 3"), {
        runId: "crash",
        tasks: ["alpha"],
      }),
      collect().reporter,
      never,
    );
    expect(result.results[0]).toMatchObject({
      outcome: { kind: "tool_crashed", exitCode: 3 },
      resolved: true,
      toolExit: { exitCode: 3, timedOut: false },
    });
  });

  it("kills a tool that hangs past its limit, with its whole process tree, and still grades it", async () => {
    const pidFile = path.join(root, "hang.pid");
    const result = await runSuite(
      // The pid is read on the host: without isolation (bwrap's own case is in test/contracts).
      config(command(`sleep 300 & echo $! > ${pidFile}; wait`), {
        runId: "hang",
        tasks: ["alpha"],
        timeout: "1s",
        sandbox: "none",
      }),
      collect().reporter,
      never,
    );
    expect(result.results[0]).toMatchObject({
      outcome: { kind: "tool_timeout" },
      resolved: false,
      toolExit: { timedOut: true },
    });
    expect(result.results[0]?.phaseMs.tool).toBeLessThan(8_000);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("kills a daemon the tool left behind in a new session, and counts it", async () => {
    const pidFile = path.join(root, "daemon.pid");
    const result = await runSuite(
      config(
        command(
          `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' < /dev/null > /dev/null 2>&1 & while [ ! -s ${pidFile} ]; do sleep 0.05; done`,
        ),
        // The stray sweep for tools run without isolation (bwrap's own case is in test/hostile).
        { runId: "daemon", tasks: ["alpha"], sandbox: "none" },
      ),
      collect().reporter,
      never,
    );
    expect(result.results[0]?.toolExit?.strayProcesses).toBeGreaterThanOrEqual(1);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("records the telemetry a command tool writes to $LAB_TELEMETRY_FILE", async () => {
    const line = `echo '{"costUsd": 0.25, "inputTokens": 1200, "outputTokens": 300, "turns": 4, "model": "m-1"}' > "$LAB_TELEMETRY_FILE"`;
    const result = await runSuite(
      config(command(line), { runId: "telemetry", tasks: ["alpha"] }),
      collect().reporter,
      never,
    );
    expect(result.results[0]?.telemetry).toEqual({
      costUsd: 0.25,
      inputTokens: 1200,
      outputTokens: 300,
      turns: 4,
      model: "m-1",
    });
  });

  it("hands the tool a work tree holding no commit but the base, and no oracle", async () => {
    // Written to the trial's artifacts folder: the only place outside its work tree a sandboxed tool may write.
    const line = `out="$(dirname "$LAB_TELEMETRY_FILE")/objects.txt"; git rev-list --all > "$out"; git cat-file --batch-all-objects --batch-check='%(objecttype)' | sort | uniq -c >> "$out"; ls -a .. >> "$out"; env >> "$out"`;
    const result = await runSuite(
      config(command(line), { runId: "history", tasks: ["alpha"] }),
      collect().reporter,
      never,
    );
    const out = path.join(result.runDir, "trials", "alpha", "1", "artifacts", "objects.txt");
    const seen = readFileSync(out, "utf8");
    const base = JSON.parse(
      readFileSync(path.join(evalsDir, "fixture/tasks/alpha/task.json"), "utf8"),
    ) as { baseCommit: string };
    expect(seen.split("\n")[0]).toBe(base.baseCommit);
    expect(seen).toMatch(/^\s+1 commit$/m);
    expect(seen).not.toContain("gold.patch");
    expect(seen).not.toContain("oracle");
    expect(result.results[0]?.outcome.kind).toBe("graded");
  });

  it("records setup failures as infra errors, apart from the tool's failures, and retries them on resume", async () => {
    const result = await runSuite(
      config(createGoldTool(), { suite: "broken", runId: "broken" }),
      collect().reporter,
      never,
    );
    expect(result.summary).toEqual({ trials: 2, resolved: 0, unresolved: 0, infraErrors: 2 });
    const byTask = Object.fromEntries(result.results.map((trial) => [trial.taskId, trial]));
    expect(byTask.nosetup).toMatchObject({
      resolved: null,
      outcome: { kind: "infra_error", phase: "setup" },
    });
    expect(byTask.nosetup?.outcome).toMatchObject({
      message: expect.stringContaining("exited with 7: cannot reach the repository") as string,
    });
    expect(byTask.leaky?.outcome).toMatchObject({
      kind: "infra_error",
      message: expect.stringContaining("not ancestors of the base commit") as string,
    });
    const { events, reporter } = collect();
    await runSuite(config(createGoldTool(), { suite: "broken", runId: "broken" }), reporter, never);
    expect(events[0]).toMatchObject({ type: "run:start", pending: 2, skipped: 0 });
  });

  it("stops on interrupt without recording unfinished trials, and the same run then completes", async () => {
    const slow = path.join(root, "slow.flag");
    writeFileSync(slow, "");
    const tool = command(
      `sed -i 's/a - b/a + b/' src/*/__init__.py; if [ -e ${slow} ]; then sleep 30; fi`,
    );
    const controller = new AbortController();
    const reporter = {
      emit(event: RunEvent) {
        if (event.type === "trial:phase" && event.phase === "tool")
          setTimeout(() => {
            controller.abort();
          }, 300);
      },
    };
    // The flag file is on the host, so the tool runs without isolation to see it.
    const interrupted = await runSuite(
      config(tool, { runId: "interrupt", sandbox: "none" }),
      reporter,
      controller.signal,
    );
    expect(interrupted.status).toBe("cancelled");
    expect(interrupted.results).toEqual([]);
    expect((await readRunRecord(runPaths(path.join(root, "runs"), "interrupt"))).status).toBe(
      "cancelled",
    );

    execFileSync("rm", [slow]);
    const resumed = await runSuite(
      config(tool, { runId: "interrupt", sandbox: "none" }),
      collect().reporter,
      never,
    );
    expect(resumed).toMatchObject({ status: "completed", summary: { trials: 2, resolved: 2 } });
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie counts as dead: it runs nothing.
  try {
    return !execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).startsWith(
      "Z",
    );
  } catch {
    return false;
  }
}
