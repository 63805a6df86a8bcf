import { existsSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import type { Writable } from "node:stream";
import { execa } from "execa";
import { formatCommand, LabError } from "../core/index.js";
import { createOutputTail } from "./output-tail.js";
import {
  registerProcessGroup,
  signalProcessGroup,
  unregisterProcessGroup,
} from "./process-groups.js";
import { acquireProcessSlot } from "./semaphore.js";

/** How to run one command. */
export interface RunOptions {
  /** Working directory of the child; default: lab's own. */
  cwd?: string | undefined;
  /** The complete environment of the child (no implicit inheritance). */
  env: Readonly<Record<string, string>>;
  /** Required: every call states its limit. Counted from spawn, not from waiting for a slot. */
  timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL; default 5000. */
  killGraceMs?: number | undefined;
  /** Aborting sends SIGTERM to the whole group, then SIGKILL after the grace. */
  signal?: AbortSignal | undefined;
  /** Append stdout+stderr (interleaved, as produced) to this file; its folder is created. */
  logFile?: string | undefined;
  /** Bytes of output kept in memory for stdoutTail/stderrTail; default 64 KiB each. */
  tailBytes?: number | undefined;
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | undefined;
  /**
   * Give the child a stdin pipe that lab never writes and closes only when the child has
   * exited, or when lab itself dies (SIGKILL included): the child sees EOF exactly when lab is
   * gone. The docker sandbox's containers use it to die with lab. Ignored with `input`.
   */
  holdStdin?: boolean | undefined;
  /** Also keep stdout whole in memory (for commands whose stdout is data, e.g. git diff). Default false. */
  captureStdout?: boolean | undefined;
  /** SIGKILL the child's process group once the child exits, killing what it left behind; default true. */
  killGroupOnExit?: boolean | undefined;
  /**
   * Wait for a slot under setMaxConcurrentProcesses(); default false. Opt-in because the cap
   * counts processes, not work: a tool holding a slot while it waits on a nested subprocess that
   * also needs one deadlocks once every slot is so held. Use it for leaf work (installs, tests).
   */
  limited?: boolean | undefined;
}

/** How a command ended; a non-zero exit, timeout or abort is data here, never an exception. */
export interface ExecResult {
  /** The argv, escaped for a POSIX shell, for people to read. */
  command: string;
  /** Exit code, or null when a signal ended the child (or it never started, being aborted first). */
  exitCode: number | null;
  /** The signal that ended the child, e.g. "SIGKILL", or null. */
  signal: string | null;
  /** Whether timeoutMs ran out and lab killed the child. */
  timedOut: boolean;
  /** Whether the AbortSignal or killAllChildren() ended it (or it was aborted before starting). */
  aborted: boolean;
  /** The last tailBytes of stdout, decoded as UTF-8. */
  stdoutTail: string;
  /** The last tailBytes of stderr, decoded as UTF-8. */
  stderrTail: string;
  /** All of stdout decoded as UTF-8; only with captureStdout. */
  stdout?: string;
  /** All of stdout, byte for byte; only with captureStdout. */
  stdoutBuffer?: Buffer;
  /** From spawn to exit and the end of output, in milliseconds. */
  durationMs: number;
}

const DEFAULT_KILL_GRACE_MS = 5000;
const DEFAULT_TAIL_BYTES = 64 * 1024;
/** Longest delay setTimeout honours; beyond it Node fires at once, with a warning. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * After the child exits, how long to wait for its pipes to close. A process outside the group
 * (a setsid daemon) or one spared by killGroupOnExit: false can hold them open forever.
 */
const STREAM_DRAIN_MS = 1000;

/**
 * Runs argv (no shell) in its own process group and resolves when it has ended.
 * Throws a LabError only when the command cannot be spawned at all (missing, not executable,
 * bad cwd) or its log file cannot be opened.
 */
export async function runCommand(
  argv: readonly string[],
  options: RunOptions,
): Promise<ExecResult> {
  validateOptions(argv, options);
  const command = formatCommand(argv);
  if (isAborted(options.signal)) return notStartedResult(command);
  const release = options.limited === true ? await acquireProcessSlot(options.signal) : () => {};
  if (release === undefined) return notStartedResult(command);
  try {
    if (isAborted(options.signal)) return notStartedResult(command);
    const log = options.logFile === undefined ? undefined : await openLog(options.logFile, command);
    let result: ExecResult;
    try {
      result = await spawnAndWait(argv, command, options, log?.stream);
    } catch (error) {
      log?.stream.destroy();
      throw error;
    }
    if (log !== undefined) await closeLog(log, command);
    return result;
  } finally {
    release();
  }
}

async function spawnAndWait(
  argv: readonly string[],
  command: string,
  options: RunOptions,
  log: Writable | undefined,
): Promise<ExecResult> {
  const [file = "", ...args] = argv;
  const subprocess = execa(file, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.input !== undefined
      ? { input: options.input }
      : { stdin: options.holdStdin === true ? ("pipe" as const) : ("ignore" as const) }),
    env: options.env,
    extendEnv: false,
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    encoding: "buffer",
    stripFinalNewline: false,
    shell: false,
    detached: true,
    // Ours is group-wide (process-groups.ts); execa's own would skip detached children anyway.
    cleanup: false,
    forceKillAfterDelay: false,
    reject: false,
  });
  const startedAt = performance.now();
  const pid = subprocess.pid;
  if (pid === undefined) {
    const failure = await subprocess;
    throw spawnError(file, command, options, failure.cause ?? failure);
  }

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    subprocess.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
  });
  const stdoutTail = createOutputTail(options.tailBytes ?? DEFAULT_TAIL_BYTES);
  const stderrTail = createOutputTail(options.tailBytes ?? DEFAULT_TAIL_BYTES);
  const stdoutChunks: Buffer[] | undefined = options.captureStdout === true ? [] : undefined;
  subprocess.stdout.on("data", (chunk: Buffer) => {
    stdoutTail.push(chunk);
    stdoutChunks?.push(chunk);
    log?.write(chunk);
  });
  subprocess.stderr.on("data", (chunk: Buffer) => {
    stderrTail.push(chunk);
    log?.write(chunk);
  });

  // An object, not `let`s: the callbacks below set these while we await.
  const state = { timedOut: false, aborted: false, isTerminating: false };
  let forceKillTimer: NodeJS.Timeout | undefined;
  // Signal the whole group: agent CLIs leave shells and language servers behind.
  const terminate = (): void => {
    if (state.isTerminating) return;
    state.isTerminating = true;
    signalProcessGroup(pid, "SIGTERM");
    forceKillTimer = setTimeout(
      () => {
        signalProcessGroup(pid, "SIGKILL");
      },
      clampTimer(options.killGraceMs ?? DEFAULT_KILL_GRACE_MS),
    );
  };
  const timeoutTimer = setTimeout(() => {
    state.timedOut = true;
    terminate();
  }, clampTimer(options.timeoutMs));
  const onAbort = (): void => {
    state.aborted = true;
    terminate();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // It may have aborted while the log file was opening; the listener would never fire.
  if (isAborted(options.signal)) onAbort();
  registerProcessGroup(pid, () => {
    state.aborted = true;
    state.isTerminating = true;
  });

  const exit = await exited;
  // A held stdin is closed only now: the child has exited.
  if (options.input === undefined && options.holdStdin === true) subprocess.stdin.destroy();
  clearTimeout(timeoutTimer);
  clearTimeout(forceKillTimer);
  options.signal?.removeEventListener("abort", onAbort);
  // After a kill the whole group must go, even members that ignored SIGTERM. The leader is
  // reaped by now, but Linux keeps its pid unused while any group member lives.
  if (state.isTerminating || options.killGroupOnExit !== false) signalProcessGroup(pid, "SIGKILL");
  unregisterProcessGroup(pid);

  const drainTimer = setTimeout(() => {
    subprocess.stdout.destroy();
    subprocess.stderr.destroy();
  }, STREAM_DRAIN_MS);
  await subprocess;
  clearTimeout(drainTimer);
  const durationMs = Math.round(performance.now() - startedAt);

  const stdoutBuffer = stdoutChunks === undefined ? undefined : Buffer.concat(stdoutChunks);
  return {
    command,
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: state.timedOut,
    aborted: state.aborted,
    stdoutTail: stdoutTail.text(),
    stderrTail: stderrTail.text(),
    ...(stdoutBuffer === undefined ? {} : { stdout: stdoutBuffer.toString("utf8"), stdoutBuffer }),
    durationMs,
  };
}

function notStartedResult(command: string): ExecResult {
  return {
    command,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: true,
    stdoutTail: "",
    stderrTail: "",
    durationMs: 0,
  };
}

function spawnError(file: string, command: string, options: RunOptions, cause: unknown): LabError {
  const code = (cause as { code?: unknown } | null)?.code;
  if (options.cwd !== undefined && !existsSync(options.cwd)) {
    // Node reports a missing cwd as ENOENT too, which would blame the command.
    return new LabError(
      "SPAWN_FAILED",
      `Cannot run \`${command}\`: working directory ${options.cwd} does not exist.`,
      {
        hint: "Create the directory first, or pass an existing cwd.",
        cause,
      },
    );
  }
  if (code === "ENOENT") {
    const where = file.includes("/")
      ? `${file} does not exist`
      : `no "${file}" on the PATH it was given`;
    return new LabError("SPAWN_FAILED", `Cannot run \`${command}\`: ${where}.`, {
      hint: `Install ${file}, or check PATH in the env passed to runCommand (the parent's environment is not inherited).`,
      cause,
    });
  }
  if (code === "EACCES") {
    return new LabError("SPAWN_FAILED", `Cannot run \`${command}\`: ${file} is not executable.`, {
      hint: `Check its permissions (chmod +x ${file}) and that its interpreter exists.`,
      cause,
    });
  }
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new LabError("SPAWN_FAILED", `Cannot run \`${command}\`: ${reason}`, {
    hint: "Check the command, its cwd and its env.",
    cause,
  });
}

interface OpenLog {
  readonly path: string;
  readonly stream: Writable;
  readonly failure: { error?: Error };
}

async function openLog(path: string, command: string): Promise<OpenLog> {
  try {
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, "a");
    const stream = handle.createWriteStream();
    const failure: { error?: Error } = {};
    stream.on("error", (error) => {
      failure.error = error;
    });
    return { path, stream, failure };
  } catch (error) {
    throw logError(path, command, error);
  }
}

async function closeLog(log: OpenLog, command: string): Promise<void> {
  if (log.failure.error === undefined) {
    await new Promise<void>((resolve) => {
      log.stream.end(resolve);
    });
  }
  if (log.failure.error !== undefined) throw logError(log.path, command, log.failure.error);
}

function logError(path: string, command: string, cause: unknown): LabError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new LabError(
    "SPAWN_FAILED",
    `Cannot write the log of \`${command}\` to ${path}: ${reason}`,
    {
      hint: "Check that the folder is writable and the disk is not full.",
      cause,
    },
  );
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function clampTimer(ms: number): number {
  return Math.min(Math.max(ms, 0), MAX_TIMER_MS);
}

function validateOptions(argv: readonly string[], options: RunOptions): void {
  if (argv.length === 0 || argv[0] === "") {
    throw new TypeError("runCommand: argv must start with a non-empty command.");
  }
  if (!(options.timeoutMs > 0)) {
    throw new TypeError(
      `runCommand: timeoutMs must be a positive number, got ${String(options.timeoutMs)}.`,
    );
  }
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!(killGraceMs >= 0)) {
    throw new TypeError(`runCommand: killGraceMs must be 0 or more, got ${String(killGraceMs)}.`);
  }
  const tailBytes = options.tailBytes ?? DEFAULT_TAIL_BYTES;
  if (!Number.isInteger(tailBytes) || tailBytes < 0) {
    throw new TypeError(
      `runCommand: tailBytes must be an integer of 0 or more, got ${String(tailBytes)}.`,
    );
  }
}
