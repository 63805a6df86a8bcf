/**
 * The sandbox a tool's processes run in: one per trial, made by a provider (src/sandbox/), seen
 * by tools only through this interface. See docs/design/sandbox.md.
 */

/** A resource limit that ended (or refused) some of a sandbox's processes. */
export type SandboxLimit = "memory" | "disk" | "processes";

/** Resource limits of one trial's sandbox; null means not limited. */
export interface SandboxLimits {
  /** Memory of all its processes together, in MiB. */
  readonly memoryMb: number | null;
  /** Bytes it may write to the host (work tree, HOME, /tmp, artifacts, its log), in MiB. */
  readonly diskMb: number | null;
  /** Processes and threads alive at once. */
  readonly maxProcesses: number | null;
}

/** What a provider needs to make one trial's sandbox. Every path is a host path. */
export interface SandboxSpec {
  /** The work tree: read-write, at its real path. */
  readonly workTree: string;
  /** A folder private to this trial for the sandbox's own state (its HOME and /tmp). */
  readonly stateDir: string;
  /** Host files or folders the runner shows the tool read-only (the prompt's folder). */
  readonly readOnlyPaths: readonly string[];
  /**
   * The tool's installation (files or folders), shown read-only, except that a path which
   * holds or lies inside a hidden folder is refused with an error.
   */
  readonly toolPaths: readonly string[];
  /** Host folders the tool writes besides the work tree (its artifacts folder). */
  readonly writablePaths: readonly string[];
  /**
   * Folders the tool must never see: suites (their oracles), runs, lab's caches, the scratch
   * root. PATH entries and `toolPaths` are refused when they hold or lie inside one of these;
   * the spec's other paths (the trial's own) are trusted.
   */
  readonly hiddenPaths: readonly string[];
  /** The user's home: never shown whole, though tool installations inside it may be. */
  readonly hostHome: string;
  /** The PATH the tool's processes get; providers may make its folders visible. */
  readonly pathEnv: string;
  /** Whether the tool may use the network (its model API). */
  readonly network: boolean;
  readonly limits: SandboxLimits;
  /**
   * Debian packages the commands need (a task's compilers, headers, tools). bwrap and none
   * show the host's system, where lab installs them; docker adds them to its image.
   */
  readonly debianPackages?: readonly string[] | undefined;
  /**
   * The tool's installation when lab made it (`lab tools install`): bwrap and none show its
   * paths like any of `toolPaths`; docker copies them into an image layer of their own, once
   * per installation, and runs the tool from that image instead of binding them.
   */
  readonly toolInstallation?: ToolInstallation | undefined;
}

/** An agent CLI lab installed, as a sandbox gets it. */
export interface ToolInstallation {
  /** The tool's name (claude-code). */
  readonly name: string;
  readonly version: string;
  /** Its files and folders at their host paths (the installation, a venv's interpreter). */
  readonly paths: readonly string[];
  /** Changes whenever the installation does (its install time): a new key is a new layer. */
  readonly key: string;
}

/** How to run one command in a sandbox. */
export interface SandboxExecOptions {
  /** Working directory, as a host path (providers bind paths at their real locations). */
  readonly cwd: string;
  /** The complete environment of the process; nothing is added or inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Wall-clock limit; at the end every process of this command is killed. */
  readonly timeoutMs: number;
  /** Append stdout and stderr here (the file is written by lab, outside the sandbox). */
  readonly logFile?: string | undefined;
  /** Aborting kills every process of this command. */
  readonly signal?: AbortSignal | undefined;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  readonly input?: string | undefined;
}

/** How a command in a sandbox ended: src/process's ExecResult, plus the limit that ended it. */
export interface SandboxExecResult {
  /** The argv as given (not the provider's wrapper), escaped for a POSIX shell. */
  readonly command: string;
  /** Exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, or null. */
  readonly signal: string | null;
  /** Whether timeoutMs ran out. */
  readonly timedOut: boolean;
  /** Whether the caller's AbortSignal ended it. */
  readonly aborted: boolean;
  /** The last bytes of stdout. */
  readonly stdoutTail: string;
  /** The last bytes of stderr. */
  readonly stderrTail: string;
  /** From spawn to exit, in milliseconds. */
  readonly durationMs: number;
  /** A resource limit that was hit while it ran (also noted in the log file), or null. */
  readonly limitExceeded: SandboxLimit | null;
}

/** One trial's sandbox. */
export interface Sandbox {
  /** The provider's name: "bwrap", "docker", "none". */
  readonly name: string;
  /** Whether the tool is confined to its own files (false: it sees the host as lab's user). */
  readonly isolatesFilesystem: boolean;
  /** Whether `network: false` is enforced. */
  readonly canIsolateNetwork: boolean;
  /** The HOME its processes should get (private to the trial), or undefined to keep the caller's. */
  readonly homeDir: string | undefined;
  /** Runs argv inside; never throws for a non-zero exit, a timeout or an abort. */
  exec(argv: readonly string[], options: SandboxExecOptions): Promise<SandboxExecResult>;
  /** Kills whatever is left inside and releases the sandbox; idempotent. */
  dispose(): Promise<void>;
}

/** How a machine enforces a sandbox's limits. */
export interface LimitEnforcement {
  /** One line for the run's log, e.g. "memory 4096 MiB (cgroup v1), disk 10240 MiB (...)". */
  readonly summary: string;
  /** Limits that were asked for but cannot be enforced here. */
  readonly unenforced: readonly SandboxLimit[];
}

/** Makes sandboxes of one kind. */
export interface SandboxProvider {
  /** The name users give to `--sandbox`. */
  readonly name: string;
  readonly isolatesFilesystem: boolean;
  readonly canIsolateNetwork: boolean;
  /**
   * Fails with SANDBOX_UNAVAILABLE (and how to fix it) when this provider cannot run here.
   * Long preparation (docker building its image) is reported through `progress`, and stops
   * (with CANCELLED) when `signal` aborts.
   */
  checkReady(options?: {
    readonly progress?: (message: string) => void;
    readonly signal?: AbortSignal | undefined;
  }): Promise<void>;
  /** How each limit is enforced on this machine, for the run's log. */
  describeLimits(limits: SandboxLimits): Promise<LimitEnforcement>;
  /** Makes one trial's sandbox. */
  create(spec: SandboxSpec): Promise<Sandbox>;
}
