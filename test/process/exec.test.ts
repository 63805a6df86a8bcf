import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { LabError } from "../../src/core/index.js";
import {
  killAllChildren,
  runCommand,
  setMaxConcurrentProcesses,
  type ExecResult,
} from "../../src/process/index.js";
import {
  expectDead,
  fixtureEnv,
  isAlive,
  killQuietly,
  makeTempDir,
  readPidFile,
} from "./helpers.js";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

const env = fixtureEnv();

describe("exit codes and output", () => {
  test("a zero exit is reported with the tail of each stream", async () => {
    const result = await runCommand(["exit-code.mjs", "0"], { env, timeoutMs: 10_000 });
    expect(result).toMatchObject({
      command: "exit-code.mjs 0",
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      stdoutTail: "to stdout\n",
      stderrTail: "to stderr\n",
    });
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.stdout).toBeUndefined();
  });

  test("a non-zero exit is data, not an exception", async () => {
    const result = await runCommand(["exit-code.mjs", "3"], { env, timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false });
  });

  test("the command is the argv escaped for a shell", async () => {
    const result = await runCommand(["exit-code.mjs", "0", "it's here"], {
      env,
      timeoutMs: 10_000,
    });
    expect(result.command).toBe(`exit-code.mjs 0 'it'\\''s here'`);
  });

  test("stdout and stderr tails keep only the last tailBytes", async () => {
    const result = await runCommand(["print-lines.mjs", "5000"], {
      env,
      timeoutMs: 10_000,
      tailBytes: 1000,
    });
    expect(Buffer.byteLength(result.stdoutTail)).toBe(1000);
    expect(Buffer.byteLength(result.stderrTail)).toBe(1000);
    expect(result.stdoutTail.endsWith("out 4999\nout 5000\n")).toBe(true);
    expect(result.stderrTail.endsWith("err 4999\nerr 5000\n")).toBe(true);
  });

  test("the log file gets all output, appended to what was there, in a folder it creates", async () => {
    const logFile = join(temp.path, "trial", "agent.log");
    await mkdir(join(temp.path, "trial"));
    await writeFile(logFile, "earlier\n");
    await runCommand(["print-lines.mjs", "3000"], {
      env,
      timeoutMs: 10_000,
      tailBytes: 100,
      logFile,
    });
    const lines = (await readFile(logFile, "utf8")).split("\n");
    expect(lines[0]).toBe("earlier");
    expect(lines.filter((line) => line.startsWith("out ")).length).toBe(3000);
    expect(lines.filter((line) => line.startsWith("err ")).length).toBe(3000);
    expect(lines).toContain("out 1");
    expect(lines).toContain("err 3000");
  });

  test("the log folder is created when missing", async () => {
    const logFile = join(temp.path, "a", "b", "c.log");
    await runCommand(["exit-code.mjs", "0"], { env, timeoutMs: 10_000, logFile });
    expect((await readFile(logFile, "utf8")).split("\n").sort()).toEqual([
      "",
      "to stderr",
      "to stdout",
    ]);
  });

  test("captureStdout returns stdout's exact bytes", async () => {
    const result = await runCommand(["print-bytes.mjs"], {
      env,
      timeoutMs: 10_000,
      captureStdout: true,
    });
    const bytes = Buffer.alloc(256);
    for (let value = 0; value < 256; value++) bytes[value] = value;
    expect(result.stdoutBuffer).toEqual(Buffer.concat([bytes, Buffer.from("é✓\n")]));
    expect(result.stdout?.endsWith("é✓\n")).toBe(true);
  });

  test("a tail cut inside a multi-byte character starts at the next whole one", async () => {
    const result = await runCommand(["echo-stdin.mjs"], {
      env,
      timeoutMs: 10_000,
      input: "✓✓✓",
      tailBytes: 4,
    });
    expect(result.stdoutTail).toBe("✓");
  });
});

describe("environment and input", () => {
  test("the child's environment is exactly the env passed, with nothing inherited", async () => {
    const passed = fixtureEnv({ LAB_EXAMPLE: "value with spaces" });
    const result = await runCommand(["echo-env.mjs"], {
      env: passed,
      timeoutMs: 10_000,
      captureStdout: true,
    });
    expect(JSON.parse(result.stdout ?? "")).toEqual(passed);
  });

  test("input is written to the child's stdin", async () => {
    const result = await runCommand(["echo-stdin.mjs"], {
      env,
      timeoutMs: 10_000,
      input: "one\ntwo\n",
    });
    expect(result.stdoutTail).toBe("one\ntwo\n");
  });

  test("without input the child's stdin is empty, not left open", async () => {
    const result = await runCommand(["echo-stdin.mjs"], { env, timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdoutTail: "" });
  });

  test("with holdStdin the child's stdin stays open while it runs, and reaches EOF when lab dies", async () => {
    // bash is the system's: on PATH beside the fixtures and node (Node 24's is lab's own copy).
    const shellEnv = { PATH: `${env.PATH ?? ""}:/usr/bin:/bin` };
    // Open: a read waits (and times out) instead of meeting EOF.
    const held = await runCommand(["bash", "-c", "read -t 1 line; echo $?"], {
      env: shellEnv,
      timeoutMs: 10_000,
      holdStdin: true,
    });
    expect(Number(held.stdoutTail)).toBeGreaterThan(128);
    // A lab stand-in holds a child's stdin, and is SIGKILLed: the child sees EOF.
    const started = join(temp.path, "started");
    const marker = join(temp.path, "eof");
    const labModule = new URL("../../src/process/index.ts", import.meta.url).href;
    const child = `echo > ${started}; cat >/dev/null; echo eof > ${marker}`;
    const standIn = `const { runCommand } = await import(${JSON.stringify(labModule)});
      await runCommand(["bash", "-c", ${JSON.stringify(child)}], {
        env: { PATH: process.env.PATH }, timeoutMs: 60_000, holdStdin: true });`;
    const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
    const lab = spawn(process.execPath, ["--import", tsx, "--input-type=module", "-e", standIn], {
      env: shellEnv,
      stdio: "ignore",
    });
    const waitFor = async (file: string) => {
      for (let i = 0; i < 300 && !existsSync(file); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
    };
    await waitFor(started);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(marker)).toBe(false);
    lab.kill("SIGKILL");
    await waitFor(marker);
    expect(await readFile(marker, "utf8")).toBe("eof\n");
  });

  test("cwd sets the child's working directory", async () => {
    const result = await runCommand(
      [process.execPath, "-e", "process.stdout.write(process.cwd())"],
      {
        env,
        timeoutMs: 10_000,
        cwd: temp.path,
      },
    );
    expect(result.stdoutTail).toBe(temp.path);
  });
});

describe("timeouts, aborts and process groups", () => {
  test("timeout kills the child's whole process group", async () => {
    const pidFile = join(temp.path, "grandchild.pid");
    const result = await runCommand(["spawn-child-and-hang.mjs", pidFile], {
      env,
      timeoutMs: 1000,
      killGraceMs: 500,
    });
    expect(result).toMatchObject({
      exitCode: null,
      signal: "SIGTERM",
      timedOut: true,
      aborted: false,
    });
    await expectDead(await readPidFile(pidFile));
  });

  test("a child that ignores SIGTERM is SIGKILLed after the grace", async () => {
    const pidFile = join(temp.path, "child.pid");
    const controller = new AbortController();
    const running = runCommand(["ignore-sigterm.mjs", pidFile], {
      env,
      timeoutMs: 10_000,
      killGraceMs: 300,
      signal: controller.signal,
    });
    const pid = await readPidFile(pidFile);
    const abortedAt = performance.now();
    controller.abort();
    const result = await running;
    expect(performance.now() - abortedAt).toBeGreaterThanOrEqual(290);
    expect(result).toMatchObject({ signal: "SIGKILL", aborted: true, timedOut: false });
    expect(result.stdoutTail).toBe("ignoring SIGTERM\n");
    await expectDead(pid);
  });

  test("aborting the signal ends the run, reported as aborted", async () => {
    const pidFile = join(temp.path, "child.pid");
    const controller = new AbortController();
    const running = runCommand(["forever.mjs", pidFile], {
      env,
      timeoutMs: 10_000,
      signal: controller.signal,
    });
    const pid = await readPidFile(pidFile);
    controller.abort();
    expect(await running).toMatchObject({ signal: "SIGTERM", aborted: true, timedOut: false });
    await expectDead(pid);
  });

  test("an already aborted signal returns at once without spawning", async () => {
    const pidFile = join(temp.path, "child.pid");
    const result = await runCommand(["forever.mjs", pidFile], {
      env,
      timeoutMs: 10_000,
      signal: AbortSignal.abort(),
    });
    expect(result).toMatchObject({ exitCode: null, signal: null, aborted: true, durationMs: 0 });
  });

  test("children left in the group are killed once the direct child exits", async () => {
    const pidFile = join(temp.path, "grandchild.pid");
    const result = await runCommand(["spawn-child-and-hang.mjs", pidFile, "--exit"], {
      env,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    await expectDead(await readPidFile(pidFile));
  });

  test("with killGroupOnExit false, a child left holding stdout survives but does not keep the run waiting", async () => {
    const pidFile = join(temp.path, "grandchild.pid");
    let grandchild: number | undefined;
    try {
      const result = await runCommand(["spawn-child-and-hang.mjs", pidFile, "--exit"], {
        env,
        timeoutMs: 10_000,
        killGroupOnExit: false,
      });
      grandchild = await readPidFile(pidFile);
      expect(result).toMatchObject({ exitCode: 0, timedOut: false });
      expect(result.durationMs).toBeLessThan(5000);
      expect(isAlive(grandchild)).toBe(true);
    } finally {
      killQuietly(grandchild);
    }
  });

  test("killAllChildren() kills every live process group", async () => {
    const childPidFile = join(temp.path, "child.pid");
    const grandchildPidFile = join(temp.path, "grandchild.pid");
    const first = runCommand(["forever.mjs", childPidFile], { env, timeoutMs: 10_000 });
    const second = runCommand(["spawn-child-and-hang.mjs", grandchildPidFile], {
      env,
      timeoutMs: 10_000,
    });
    const child = await readPidFile(childPidFile);
    const grandchild = await readPidFile(grandchildPidFile);
    expect(killAllChildren()).toBe(2);
    for (const result of await Promise.all([first, second])) {
      expect(result).toMatchObject({ signal: "SIGKILL", aborted: true, timedOut: false });
    }
    await expectDead(child);
    await expectDead(grandchild);
    expect(killAllChildren()).toBe(0);
  });
});

describe("spawn failures", () => {
  test("a command that does not exist throws a LabError naming it", async () => {
    const running = runCommand(["no-such-command", "--flag"], { env, timeoutMs: 10_000 });
    await expect(running).rejects.toBeInstanceOf(LabError);
    await expect(running).rejects.toMatchObject({
      code: "SPAWN_FAILED",
      message:
        'Cannot run `no-such-command --flag`: no "no-such-command" on the PATH it was given.',
      hint: "Install no-such-command, or check PATH in the env passed to runCommand (the parent's environment is not inherited).",
    });
  });

  test("a file without execute permission throws a LabError saying so", async () => {
    const script = join(temp.path, "script.mjs");
    await writeFile(script, "#!/usr/bin/env node\n");
    await chmod(script, 0o644);
    await expect(runCommand([script], { env, timeoutMs: 10_000 })).rejects.toMatchObject({
      code: "SPAWN_FAILED",
      message: `Cannot run \`${script}\`: ${script} is not executable.`,
    });
  });

  test("a missing cwd is reported as such, not as a missing command", async () => {
    const cwd = join(temp.path, "missing");
    await expect(
      runCommand(["exit-code.mjs", "0"], { env, timeoutMs: 10_000, cwd }),
    ).rejects.toMatchObject({
      code: "SPAWN_FAILED",
      message: `Cannot run \`exit-code.mjs 0\`: working directory ${cwd} does not exist.`,
    });
  });
});

describe("the concurrency cap", () => {
  afterEach(() => {
    setMaxConcurrentProcesses(availableParallelism());
  });

  test("limited commands wait for a slot while unlimited ones do not", async () => {
    setMaxConcurrentProcesses(1);
    const pidFile = join(temp.path, "holder.pid");
    const controller = new AbortController();
    let holder: ExecResult | undefined;
    const holding = runCommand(["forever.mjs", pidFile], {
      env,
      timeoutMs: 10_000,
      limited: true,
      signal: controller.signal,
    }).then((result) => (holder = result));
    await readPidFile(pidFile);

    const unlimited = await runCommand(["exit-code.mjs", "0"], { env, timeoutMs: 10_000 });
    expect(unlimited.exitCode).toBe(0);
    expect(holder).toBeUndefined();

    const waiting = runCommand(["exit-code.mjs", "0"], { env, timeoutMs: 10_000, limited: true });
    setTimeout(() => {
      controller.abort();
    }, 200);
    const queued = await waiting;
    expect(queued.exitCode).toBe(0);
    expect(holder?.aborted).toBe(true);
    await holding;
  });

  test("a limited command aborted while waiting for a slot never starts", async () => {
    setMaxConcurrentProcesses(1);
    const holderPidFile = join(temp.path, "holder.pid");
    const waiterPidFile = join(temp.path, "waiter.pid");
    const holderController = new AbortController();
    const waiterController = new AbortController();
    const holding = runCommand(["forever.mjs", holderPidFile], {
      env,
      timeoutMs: 10_000,
      limited: true,
      signal: holderController.signal,
    });
    await readPidFile(holderPidFile);
    const waiting = runCommand(["forever.mjs", waiterPidFile], {
      env,
      timeoutMs: 10_000,
      limited: true,
      signal: waiterController.signal,
    });
    waiterController.abort();
    expect(await waiting).toMatchObject({ aborted: true, exitCode: null, durationMs: 0 });
    holderController.abort();
    await holding;
    expect(existsSync(waiterPidFile)).toBe(false);
  });

  test("the cap must be a positive integer", () => {
    expect(() => {
      setMaxConcurrentProcesses(0);
    }).toThrow("setMaxConcurrentProcesses: expected a positive integer, got 0.");
  });
});
