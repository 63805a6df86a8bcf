import { appendFile } from "node:fs/promises";
import os from "node:os";
import {
  formatCommand,
  type LimitEnforcement,
  type SandboxExecOptions,
  type SandboxExecResult,
  type SandboxLimit,
  type SandboxLimits,
} from "../core/index.js";
import { findOnPath, runCommand } from "../process/index.js";
import { createTrialCgroup, detectCgroups } from "./cgroup.js";
import { watchDiskUsage } from "./disk-usage.js";

/** PATH for lab's own helpers (sh, prlimit, bwrap): the system's, whatever the tool's is. */
export const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Resource limits of one trial, applied to every command run in its sandbox:
 * cgroups (memory, processes) where lab can make them, else rlimits; a disk watch everywhere.
 */
export interface Confinement {
  /** Runs `argv` (already wrapped by the provider) under the limits; `shown` is what the log names. */
  run(
    argv: readonly string[],
    shown: readonly string[],
    options: SandboxExecOptions,
    diskRoots: readonly string[],
    hooks?: ExecHooks,
  ): Promise<SandboxExecResult>;
  /** Kills whatever is left in the trial's cgroups and removes them. */
  dispose(): Promise<void>;
}

/**
 * How a provider stops and inspects its own commands where signalling the process group lab
 * started would not do it.
 */
export interface ExecHooks {
  /**
   * Sends SIGTERM to the command's processes at its time limit, sparing the sandbox's own.
   * bwrap dies of SIGTERM and its namespace takes everything down with SIGKILL at once, so the
   * tool would never get to write its transcript; a docker client does not reach its container.
   * Without it, the process group gets SIGTERM at the limit.
   */
  readonly terminate?: () => Promise<void>;
  /** Kills every process of the command when lab stops it (time, abort, disk): a container. */
  readonly kill?: () => Promise<void>;
  /**
   * After the command, what the limits did to it (processes OOM-killed, forks refused), where
   * the provider enforces them itself instead of lab's cgroups.
   */
  readonly limitEvents?: () => Promise<{ oomKills: number; forkRefusals: number }>;
  /** Give the command a stdin that closes when lab dies (RunOptions.holdStdin). */
  readonly holdStdin?: boolean;
}

/** Grace between the SIGTERM to a command's processes and the kill, at its time limit. */
const STOP_GRACE_MS = 5000;

/** Whether RLIMIT_NPROC can bind the current user: the kernel exempts root from it. */
function canLimitProcessesByRlimit(): boolean {
  return os.userInfo().uid !== 0;
}

/** One line per limit saying how this machine enforces it, for the run's log. */
export async function describeLimitEnforcement(limits: SandboxLimits): Promise<LimitEnforcement> {
  const support = await detectCgroups();
  const prlimit = findOnPath("prlimit", SYSTEM_PATH) !== null;
  const parts: string[] = [];
  const unenforced: SandboxLimit[] = [];
  if (limits.memoryMb !== null) {
    if (support.memory !== null)
      parts.push(
        `memory ${String(limits.memoryMb)} MiB (cgroup v${String(support.memory.version)})`,
      );
    else {
      parts.push(`memory ${String(limits.memoryMb)} MiB (NOT enforced: no writable cgroup)`);
      unenforced.push("memory");
    }
  }
  if (limits.maxProcesses !== null) {
    if (support.pids !== null)
      parts.push(
        `processes ${String(limits.maxProcesses)} (cgroup v${String(support.pids.version)})`,
      );
    else if (prlimit && canLimitProcessesByRlimit())
      parts.push(`processes ${String(limits.maxProcesses)} (RLIMIT_NPROC, counted per user)`);
    else {
      parts.push(
        `processes ${String(limits.maxProcesses)} (NOT enforced: no writable pids cgroup, and RLIMIT_NPROC does not bind root)`,
      );
      unenforced.push("processes");
    }
  }
  if (limits.diskMb !== null)
    parts.push(
      `disk ${String(limits.diskMb)} MiB (${prlimit ? "RLIMIT_FSIZE and " : ""}a usage watch)`,
    );
  return { summary: parts.length === 0 ? "no resource limits" : parts.join(", "), unenforced };
}

/**
 * Makes the confinement of one trial: its cgroups now, its rlimits and watch per command.
 * With `enforcedBy: "provider"` (docker: the engine applies memory, process and file-size
 * limits to its containers) lab makes no cgroup and adds no rlimit; it still watches the disk.
 */
export async function createConfinement(
  limits: SandboxLimits,
  options: { enforcedBy?: "lab" | "provider" } = {},
): Promise<Confinement> {
  const local = options.enforcedBy !== "provider";
  const cgroup = local ? await createTrialCgroup(limits) : null;
  const sh = findOnPath("sh", SYSTEM_PATH);
  const prlimit = local ? findOnPath("prlimit", SYSTEM_PATH) : null;
  const mib = 1024 * 1024;

  const prefix: string[] = [];
  if (cgroup !== null && sh !== null) {
    // Join the cgroups first, then exec: everything the command forks is born inside them.
    // Exit 125 rather than run unconfined. `unset PWD`: dash would add it to the command's env.
    prefix.push(
      sh,
      "-c",
      'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; unset PWD; exec "$@"',
      "lab-confine",
      ...cgroup.procsFiles,
      "--",
    );
  }
  if (prlimit !== null) {
    const rlimits: string[] = [];
    if (limits.diskMb !== null) rlimits.push(`--fsize=${String(limits.diskMb * mib)}`);
    if (limits.maxProcesses !== null && !(cgroup?.enforces.pids ?? false)) {
      if (canLimitProcessesByRlimit()) rlimits.push(`--nproc=${String(limits.maxProcesses)}`);
    }
    if (rlimits.length > 0) prefix.push(prlimit, ...rlimits, "--");
  }

  return {
    async run(argv, shown, options, diskRoots, hooks = {}) {
      const before = (await cgroup?.counters()) ?? { oomKills: 0, forkRefusals: 0 };
      const internal = new AbortController();
      const state: { limit: SandboxLimit | null; usedBytes: number; timedOut: boolean } = {
        limit: null,
        usedBytes: 0,
        timedOut: false,
      };
      let graceTimer: NodeJS.Timeout | undefined;
      const { terminate } = hooks;
      const stopTimer =
        terminate === undefined
          ? undefined
          : setTimeout(
              () => {
                state.timedOut = true;
                void terminate();
                graceTimer = setTimeout(() => {
                  internal.abort();
                }, STOP_GRACE_MS);
              },
              Math.min(options.timeoutMs, MAX_TIMER_MS),
            );
      // The provider's own kill runs beside the process group's, and is awaited before returning.
      let killed: Promise<void> | undefined;
      const { kill } = hooks;
      if (kill !== undefined) {
        internal.signal.addEventListener(
          "abort",
          () => {
            killed = kill().catch(() => undefined);
          },
          { once: true },
        );
      }
      const onCallerAbort = (): void => {
        internal.abort();
      };
      options.signal?.addEventListener("abort", onCallerAbort, { once: true });
      if (options.signal?.aborted === true) internal.abort();
      const watch =
        limits.diskMb === null
          ? undefined
          : watchDiskUsage({
              roots: options.logFile === undefined ? diskRoots : [...diskRoots, options.logFile],
              limitBytes: limits.diskMb * mib,
              onExceeded: (used) => {
                state.limit = "disk";
                state.usedBytes = used;
                internal.abort();
                void cgroup?.killAll();
              },
            });
      let result;
      try {
        result = await runCommand([...prefix, ...argv], {
          cwd: options.cwd,
          env: options.env,
          // With a graceful stop, lab's own timer comes first; this one is the backstop.
          timeoutMs:
            terminate === undefined ? options.timeoutMs : options.timeoutMs + 2 * STOP_GRACE_MS,
          logFile: options.logFile,
          signal: internal.signal,
          input: options.input,
          holdStdin: hooks.holdStdin === true,
          killGraceMs: 2000,
        });
      } finally {
        clearTimeout(stopTimer);
        clearTimeout(graceTimer);
        options.signal?.removeEventListener("abort", onCallerAbort);
        await watch?.stop();
      }
      // runCommand's own backstop timeout kills only the client: the provider must kill too.
      if (result.timedOut && killed === undefined && kill !== undefined)
        killed = kill().catch(() => undefined);
      await killed;
      const after = (await hooks.limitEvents?.()) ?? (await cgroup?.counters()) ?? before;
      const notes: string[] = [];
      if (state.limit === "disk") {
        notes.push(
          `lab: the sandbox's disk limit (${String(limits.diskMb)} MiB) was passed (${String(Math.round(state.usedBytes / mib))} MiB written); its processes were killed.`,
        );
      }
      if (after.oomKills > before.oomKills) {
        state.limit ??= "memory";
        notes.push(
          `lab: the sandbox's memory limit (${String(limits.memoryMb)} MiB) was reached; the kernel killed ${String(after.oomKills - before.oomKills)} process(es).`,
        );
      }
      if (after.forkRefusals > before.forkRefusals) {
        state.limit ??= "processes";
        notes.push(
          `lab: the sandbox's process limit (${String(limits.maxProcesses)}) refused ${String(after.forkRefusals - before.forkRefusals)} fork(s).`,
        );
      }
      if (result.exitCode === 125 && cgroup !== null && result.stderrTail.includes("lab-confine"))
        notes.push("lab: the command could not join its cgroup and did not run.");
      if (options.logFile !== undefined && notes.length > 0)
        await appendFile(options.logFile, `${notes.join("\n")}\n`);
      return {
        command: formatCommand(shown),
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut || state.timedOut,
        aborted: options.signal?.aborted === true,
        stdoutTail: result.stdoutTail,
        stderrTail: result.stderrTail,
        durationMs: result.durationMs,
        limitExceeded: state.limit,
      };
    },
    async dispose() {
      await cgroup?.remove();
    },
  };
}

/** Longest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;
