import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  LabError,
  type Sandbox,
  type SandboxLimits,
  type SandboxProvider,
  type SandboxSpec,
} from "../core/index.js";
import { runCommand } from "../process/index.js";
import { findOnPath } from "../process/index.js";
import { createConfinement, describeLimitEnforcement, SYSTEM_PATH } from "./limits.js";
import { mountArgs, systemMounts, specToolMounts, type Mount } from "./mounts.js";
import { signalPidNamespace } from "./pid-namespace.js";

/** What the installed bwrap supports, from its --help. */
interface BwrapFeatures {
  readonly path: string;
  /** --disable-userns (bubblewrap 0.8): no nested user namespaces, so no capabilities regained. */
  readonly disableUserns: boolean;
  /** --size (bubblewrap 0.5): a cap on a tmpfs. */
  readonly tmpfsSize: boolean;
}

/** /dev/shm is memory: capped, so a tool cannot fill RAM through it when memory is unlimited. */
const SHM_BYTES = 256 * 1024 * 1024;

const INSTALL_HINT =
  "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`), or pass `--sandbox none` to run tools on the host without isolation.";

/**
 * The bubblewrap provider (bwrap looked for on `pathEnv`, by default the system's PATH): each
 * command runs in fresh user, PID, IPC, UTS (and, with the network off, network) namespaces,
 * seeing the system and the tool's installation read-only, its work tree, HOME, /tmp and
 * artifacts read-write, and nothing else of the host.
 * See docs/design/sandbox.md for what is bound where and why.
 */
export function createBwrapProvider(options: { pathEnv?: string } = {}): SandboxProvider {
  const searchPath = options.pathEnv ?? SYSTEM_PATH;
  let features: Promise<BwrapFeatures> | undefined;
  const detect = (): Promise<BwrapFeatures> => {
    features ??= detectFeatures(searchPath);
    return features;
  };
  const provider: SandboxProvider = {
    name: "bwrap",
    isolatesFilesystem: true,
    canIsolateNetwork: true,
    async checkReady() {
      await detect();
      // Run a real sandbox once: user namespaces may be switched off (sysctl, AppArmor).
      const scratch = await mkdtemp(path.join(os.tmpdir(), "lab-bwrap-check-"));
      try {
        const workTree = path.join(scratch, "work");
        await mkdir(workTree);
        const sandbox = await provider.create({
          workTree,
          stateDir: path.join(scratch, "state"),
          readOnlyPaths: [],
          toolPaths: [],
          writablePaths: [],
          hiddenPaths: [],
          pathEnv: SYSTEM_PATH,
          hostHome: os.homedir(),
          network: true,
          limits: { memoryMb: null, diskMb: null, maxProcesses: null },
        });
        try {
          const result = await sandbox.exec(["true"], {
            cwd: workTree,
            env: { PATH: SYSTEM_PATH },
            timeoutMs: 30_000,
          });
          if (result.exitCode !== 0) {
            const reason =
              result.stderrTail.trim() || `exit ${String(result.exitCode ?? result.signal)}`;
            throw new LabError(
              "SANDBOX_UNAVAILABLE",
              `bubblewrap cannot make a sandbox here: ${reason}`,
              {
                hint: "User namespaces may be switched off: check `sysctl kernel.unprivileged_userns_clone` and, on Ubuntu 24.04+, `kernel.apparmor_restrict_unprivileged_userns` (or run lab as root). Or pass `--sandbox none` to run tools without isolation.",
              },
            );
          }
        } finally {
          await sandbox.dispose();
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    describeLimits: (limits: SandboxLimits) => describeLimitEnforcement(limits),
    async create(spec) {
      const found = await detect();
      return createBwrapSandbox(spec, found);
    },
  };
  return provider;
}

async function detectFeatures(searchPath: string): Promise<BwrapFeatures> {
  if (process.platform !== "linux") {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      `The bwrap sandbox needs Linux; this is ${process.platform}.`,
      {
        hint: "Pass `--sandbox none` to run tools on the host without isolation.",
      },
    );
  }
  const bwrap = findOnPath("bwrap", searchPath);
  if (bwrap === null) {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      "bubblewrap (`bwrap`) is not installed, and lab runs tools inside it by default.",
      {
        hint: INSTALL_HINT,
      },
    );
  }
  const help = await runCommand([bwrap, "--help"], {
    env: { PATH: SYSTEM_PATH },
    timeoutMs: 10_000,
  });
  return {
    path: bwrap,
    disableUserns: help.stdoutTail.includes("--disable-userns"),
    tmpfsSize: help.stdoutTail.includes("--size"),
  };
}

async function createBwrapSandbox(spec: SandboxSpec, features: BwrapFeatures): Promise<Sandbox> {
  const home = path.join(spec.stateDir, "home");
  const tmp = path.join(spec.stateDir, "tmp");
  await mkdir(home, { recursive: true });
  await mkdir(tmp, { recursive: true });
  const toolMounts = specToolMounts(spec);
  // Order matters: a mount may sit inside an earlier one (the work tree, or a tool installed
  // under /tmp, inside the private /tmp), so the private /tmp comes before everything in it.
  const mounts: Mount[] = [
    ...systemMounts(),
    { kind: "bind", source: tmp, dest: "/tmp" },
    ...toolMounts,
    ...spec.readOnlyPaths.map((source): Mount => ({ kind: "ro-bind", source, dest: source })),
    ...spec.writablePaths.map((source): Mount => ({ kind: "bind", source, dest: source })),
    { kind: "bind", source: home, dest: home },
    { kind: "bind", source: spec.workTree, dest: spec.workTree },
  ];
  const namespaces = [
    "--die-with-parent",
    // TIOCSTI: without a session of its own a process could push keystrokes into lab's terminal.
    "--new-session",
    "--unshare-user",
    ...(features.disableUserns ? ["--disable-userns"] : []),
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(spec.network ? [] : ["--unshare-net"]),
    "--hostname",
    "lab-sandbox",
  ];
  // /proc, /dev and /dev/shm of the sandbox's own come first: a work tree in the host's memory
  // folder (LAB_SCRATCH_DIR=/dev/shm/...) is then bound on top of them, at its own path.
  const fixed = [
    features.path,
    ...namespaces,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...(features.tmpfsSize ? ["--size", String(SHM_BYTES)] : []),
    "--tmpfs",
    "/dev/shm",
    ...mountArgs(mounts),
    "--remount-ro",
    "/",
  ];
  const confinement = await createConfinement(spec.limits);
  const diskRoots = [spec.workTree, home, tmp, ...spec.writablePaths];
  let disposed = false;
  return {
    name: "bwrap",
    isolatesFilesystem: true,
    canIsolateNetwork: true,
    homeDir: home,
    async exec(argv, options) {
      if (disposed) throw new Error("exec on a disposed sandbox");
      // bwrap sets PWD to the working directory; `env` puts the caller's environment back exactly.
      // (A program name holding "=" would read as an assignment to env: none does.)
      const pwd = options.env.PWD;
      const inner = [
        "/usr/bin/env",
        "-u",
        "PWD",
        ...(pwd === undefined ? [] : [`PWD=${pwd}`]),
        ...argv,
      ];
      // A no-op option naming this command, so its processes can be found at its time limit.
      const token = `LAB_SANDBOX_EXEC_${randomUUID().replaceAll("-", "")}`;
      return await confinement.run(
        [...fixed, "--unsetenv", token, "--chdir", options.cwd, "--", ...inner],
        argv,
        options,
        diskRoots,
        { terminate: () => signalPidNamespace(token, "SIGTERM").then(() => undefined) },
      );
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await confinement.dispose();
    },
  };
}
