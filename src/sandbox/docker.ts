import { randomUUID } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import {
  LabError,
  type LimitEnforcement,
  type Sandbox,
  type SandboxLimits,
  type SandboxProvider,
  type SandboxSpec,
  type ToolInstallation,
} from "../core/index.js";
import {
  checkEngine,
  mountField,
  requireDockerCli,
  type DockerCli,
  type DockerSettings,
} from "./docker-cli.js";
import { reclaimContainers } from "./docker-containers.js";
import { ownerLabel } from "./docker-owner.js";
import {
  ensurePackagesImage,
  ensureSandboxImage,
  ensureToolImage,
  LAB_LABEL,
  type Progress,
} from "./docker-image.js";
import { CONTAINER_INIT, parseInitStatus, type InitStatus } from "./docker-init.js";
import { createConfinement, SYSTEM_PATH } from "./limits.js";
import { isWithin, specToolMounts } from "./mounts.js";

/** /dev/shm is memory: capped as bwrap caps it. */
const SHM_SIZE = "256m";

/** The init's own processes (itself and its stdin watcher), added to the process limit. */
const INIT_PROCESSES = 2;

/** How often, and how far apart, the time limit's SIGTERM is tried on a container still starting. */
const TERM_RETRIES = 40;
const TERM_RETRY_MS = 100;

/** How long lab's kill waits for the init to end the rest and write its status, before SIGKILL. */
const KILL_WAIT_MS = 10_000;

/** A command's status when SIGKILL ended it (128 + 9). */
const SIGKILLED = 137;

/** What a docker provider is made from. */
export interface DockerProviderOptions {
  readonly settings: DockerSettings;
  /** The run its containers belong to (a label): checking it ready removes what a killed lab left. */
  readonly runId?: string | undefined;
}

interface Prepared {
  readonly cli: DockerCli;
  readonly image: string;
}

/**
 * The docker provider: each command runs in a fresh container of lab's image (Debian, git,
 * bash, Node), as the invoking user, without capabilities, on a read-only root, seeing the
 * same host paths bwrap shows at the same places, and nothing else of the host. Its first
 * process (docker-init.ts) ends everything with the command, and everything when lab dies.
 * See docs/design/sandbox.md.
 */
export function createDockerProvider(options: DockerProviderOptions): SandboxProvider {
  const { settings, runId } = options;
  let prepared: Promise<Prepared> | undefined;
  const prepare = (progress: Progress, signal?: AbortSignal): Promise<Prepared> => {
    prepared ??= (async () => {
      const cli = requireDockerCli(settings);
      await checkEngine(cli);
      return { cli, image: await ensureSandboxImage(cli, progress, signal) };
    })().catch((error: unknown) => {
      prepared = undefined;
      throw error;
    });
    return prepared;
  };
  // One image per set of Debian packages, asked for by concurrent trials at once.
  const withPackages = oncePerKey<string>();
  const imageWith = async (ready: Prepared, packages: readonly string[]): Promise<Prepared> => {
    const key = [...new Set(packages)].sort().join(" ");
    if (key === "") return ready;
    const image = await withPackages(key, () =>
      ensurePackagesImage(ready.cli, ready.image, packages, () => undefined),
    );
    return { ...ready, image };
  };
  // One image per installation and image under it, asked for by concurrent trials at once.
  const withTool = oncePerKey<string>();
  const toolImage = (ready: Prepared, installation: ToolInstallation): Promise<string> =>
    withTool(JSON.stringify([ready.image, installation]), () =>
      ensureToolImage(ready.cli, ready.image, installation, () => undefined),
    );
  const provider: SandboxProvider = {
    name: "docker",
    isolatesFilesystem: true,
    canIsolateNetwork: true,
    async checkReady(check = {}) {
      const { cli } = await prepare(check.progress ?? (() => undefined), check.signal);
      // A lab killed mid-run (SIGKILL) could not remove its containers: resuming does.
      if (runId !== undefined) await reclaimContainers(cli, { runId });
      const scratch = await mkdtemp(path.join(os.tmpdir(), "lab-docker-check-"));
      try {
        const workTree = path.join(scratch, "work");
        await mkdir(workTree);
        // Not labelled with the run: the run's own containers are only its trials'.
        const sandbox = await createDockerSandbox(
          {
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
          },
          await prepare(() => undefined),
          undefined,
          [],
        );
        try {
          const result = await sandbox.exec(["true"], {
            cwd: workTree,
            env: { PATH: SYSTEM_PATH },
            timeoutMs: 120_000,
            signal: check.signal,
          });
          if (result.aborted) return;
          if (result.exitCode !== 0) {
            const reason =
              result.stderrTail.trim() || `exit ${String(result.exitCode ?? result.signal)}`;
            throw new LabError(
              "SANDBOX_UNAVAILABLE",
              `docker cannot run a sandbox container here: ${reason}`,
              { hint: "Check `docker info`, or use `--sandbox bwrap`." },
            );
          }
        } finally {
          await sandbox.dispose();
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    describeLimits: (limits) => Promise.resolve(describeDockerLimits(limits)),
    async create(spec) {
      const ready = await imageWith(await prepare(() => undefined), spec.debianPackages ?? []);
      const baked = bakeable(spec);
      if (baked === undefined) return createDockerSandbox(spec, ready, runId, []);
      return createDockerSandbox(
        spec,
        { ...ready, image: await toolImage(ready, baked) },
        runId,
        baked.paths,
      );
    },
  };
  return provider;
}

/** How docker enforces each limit: the engine's own cgroup flags, and lab's disk watch. */
export function describeDockerLimits(limits: SandboxLimits): LimitEnforcement {
  const parts: string[] = [];
  if (limits.memoryMb !== null)
    parts.push(`memory ${String(limits.memoryMb)} MiB (docker --memory)`);
  if (limits.maxProcesses !== null)
    parts.push(`processes ${String(limits.maxProcesses)} (docker --pids-limit)`);
  if (limits.diskMb !== null)
    parts.push(`disk ${String(limits.diskMb)} MiB (RLIMIT_FSIZE and a usage watch)`);
  return { summary: parts.length === 0 ? "no resource limits" : parts.join(", "), unenforced: [] };
}

/**
 * The spec's tool installation, when the container can run it from an image layer: each of its
 * paths must lie outside every folder the container binds over the image (its /tmp, the trial's
 * own folders), or the bind would hide it. Otherwise undefined, and its paths are bound.
 */
export function bakeable(spec: SandboxSpec): ToolInstallation | undefined {
  const installation = spec.toolInstallation;
  if (installation === undefined || installation.paths.length === 0) return undefined;
  const bound = [
    "/tmp",
    spec.stateDir,
    spec.workTree,
    ...spec.readOnlyPaths,
    ...spec.writablePaths,
  ].map((target) => path.resolve(target));
  const hidden = installation.paths.some((source) =>
    bound.some((target) => isWithin(path.resolve(source), target)),
  );
  return hidden ? undefined : installation;
}

/**
 * Makes each key's promise once and shares it while it holds; one that fails is forgotten, so the
 * next caller tries again.
 */
function oncePerKey<T>(): (key: string, make: () => Promise<T>) => Promise<T> {
  const made = new Map<string, Promise<T>>();
  return (key, make) => {
    let promise = made.get(key);
    if (promise === undefined) {
      promise = make();
      made.set(key, promise);
      promise.catch(() => made.delete(key));
    }
    return promise;
  };
}

/** One bind mount of a container. */
interface Bind {
  readonly source: string;
  readonly target: string;
  readonly readonly: boolean;
}

async function createDockerSandbox(
  spec: SandboxSpec,
  { cli, image }: Prepared,
  runId: string | undefined,
  baked: readonly string[],
): Promise<Sandbox> {
  const home = path.join(spec.stateDir, "home");
  const tmp = path.join(spec.stateDir, "tmp");
  // The init's status files and stdin files: written by lab and the init, read by lab.
  const control = path.join(spec.stateDir, "lab-init");
  for (const dir of [home, tmp, control]) await mkdir(dir, { recursive: true });
  const toolMounts = specToolMounts(spec);
  const binds = dedupe([
    { source: tmp, target: "/tmp", readonly: false },
    // PATH entries that do not exist are skipped, as bwrap's --ro-bind-try skips them.
    // What the image has (a tool lab installed, copied into its layer) is not bound again.
    ...toolMounts
      .flatMap((mount) => ("source" in mount && existsSync(mount.source) ? [mount.source] : []))
      .filter(
        (source) => !baked.some((inImage) => isWithin(path.resolve(source), path.resolve(inImage))),
      )
      .map((source): Bind => ({ source, target: source, readonly: true })),
    ...spec.readOnlyPaths.map((source): Bind => ({ source, target: source, readonly: true })),
    ...spec.writablePaths.map((source): Bind => ({ source, target: source, readonly: false })),
    { source: home, target: home, readonly: false },
    { source: spec.workTree, target: spec.workTree, readonly: false },
    { source: control, target: control, readonly: false },
  ]);
  const id = randomUUID().replaceAll("-", "").slice(0, 16);
  const user = os.userInfo();
  const { limits } = spec;
  const fixed = [
    "--label",
    `${LAB_LABEL}=sandbox`,
    "--label",
    `${LAB_LABEL}.run=${runId ?? ""}`,
    "--label",
    `${LAB_LABEL}.owner=${ownerLabel()}`,
    "--label",
    `${LAB_LABEL}.sandbox=${id}`,
    "--user",
    `${String(user.uid)}:${String(user.gid)}`,
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--read-only",
    "--network",
    spec.network ? "host" : "none",
    "--hostname",
    "lab-sandbox",
    "--ipc",
    "private",
    "--shm-size",
    SHM_SIZE,
    // Output reaches lab through the attached client; the engine must not keep a copy on its disk.
    "--log-driver",
    "none",
    ...(limits.memoryMb === null
      ? []
      : [
          "--memory",
          `${String(limits.memoryMb)}m`,
          "--memory-swap",
          `${String(limits.memoryMb)}m`,
        ]),
    ...(limits.maxProcesses === null
      ? []
      : ["--pids-limit", String(limits.maxProcesses + INIT_PROCESSES)]),
    ...(limits.diskMb === null ? [] : ["--ulimit", `fsize=${String(limits.diskMb * 1024 * 1024)}`]),
    ...binds.flatMap((bind) => [
      "--mount",
      [
        "type=bind",
        mountField("source", bind.source),
        mountField("target", bind.target),
        ...(bind.readonly ? ["readonly"] : []),
      ].join(","),
    ]),
    "--entrypoint",
    "/bin/bash",
  ];
  const confinement = await createConfinement(limits, { enforcedBy: "provider" });
  const diskRoots = [spec.workTree, home, tmp, ...spec.writablePaths];
  const leftovers = new Set<string>();
  let count = 0;
  let disposed = false;
  return {
    name: "docker",
    isolatesFilesystem: true,
    canIsolateNetwork: true,
    homeDir: home,
    async exec(argv, options) {
      if (disposed) throw new Error("exec on a disposed sandbox");
      count++;
      const name = `lab-${id}-${String(count)}`;
      const statusFile = path.join(control, `${String(count)}.status`);
      await rm(statusFile, { force: true });
      let inputFile = "";
      if (options.input !== undefined) {
        inputFile = path.join(control, `${String(count)}.stdin`);
        await writeFile(inputFile, options.input, { mode: 0o600 });
      }
      // Values travel in the client's environment, never on a command line (docker-init.ts).
      const clientEnv: Record<string, string> = { ...cli.settings.env };
      const envArgs: string[] = [];
      Object.entries(options.env).forEach(([key, value], index) => {
        clientEnv[`LAB_SANDBOX_ENV_${String(index)}`] = `${key}=${value}`;
        envArgs.push("--env", `LAB_SANDBOX_ENV_${String(index)}`);
      });
      // An object: TypeScript does not see the hooks below set these while we await.
      const ended: { status: InitStatus | null; killedByLab: boolean } = {
        status: null,
        killedByLab: false,
      };
      // The init kills the rest and still writes the status (docker-init.ts); SIGKILL to the
      // init itself only if that is refused (the container is still starting) or too slow.
      const killContainer = async (): Promise<void> => {
        ended.killedByLab = true;
        leftovers.add(name);
        const asked = await cli.run(["kill", "--signal", "USR2", name], { timeoutMs: 30_000 });
        if (asked.exitCode === 0) {
          const waited = await cli.run(["wait", name], { timeoutMs: KILL_WAIT_MS });
          if (!waited.timedOut) return;
        }
        await cli.run(["kill", name], { timeoutMs: 30_000 });
      };
      // A time limit that strikes while the container is still starting (a short limit on a
      // loaded engine) would find nothing to signal: the SIGTERM is sent again until the
      // container takes it, or the command has ended (the kill after the grace is the backstop).
      let clientRunning = true;
      const terminateContainer = async (): Promise<void> => {
        for (let tries = 0; clientRunning && tries < TERM_RETRIES; tries++) {
          const sent = await cli.run(["kill", "--signal", "TERM", name], { timeoutMs: 30_000 });
          if (sent.exitCode === 0) return;
          await delay(TERM_RETRY_MS);
        }
      };
      const result = await confinement.run(
        [
          cli.binary,
          "run",
          "--rm",
          "--interactive",
          "--sig-proxy=false",
          "--name",
          name,
          ...fixed,
          "--workdir",
          options.cwd,
          ...envArgs,
          image,
          "-c",
          CONTAINER_INIT,
          "lab-init",
          statusFile,
          inputFile,
          "--",
          ...argv,
        ],
        argv,
        { ...options, env: clientEnv, input: undefined },
        diskRoots,
        {
          holdStdin: true,
          terminate: terminateContainer,
          kill: killContainer,
          async limitEvents() {
            ended.status = await readStatus(statusFile);
            return ended.status ?? { oomKills: 0, forkRefusals: 0 };
          },
        },
      );
      clientRunning = false;
      if (inputFile !== "") await rm(inputFile, { force: true });
      if (result.exitCode === null) leftovers.add(name);
      // Killed by lab (the init's SIGKILL at lab's word, or the init itself): a kill, whichever
      // process exited first, as the other sandboxes report it.
      if (ended.killedByLab && (ended.status === null || ended.status.exitCode === SIGKILLED))
        return { ...result, exitCode: null, signal: "SIGKILL" };
      return result;
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      // --rm removes a container once it stops; one whose client lab killed may still be there.
      if (leftovers.size > 0) await cli.run(["rm", "--force", ...leftovers], { timeoutMs: 60_000 });
      await confinement.dispose();
    },
  };
}

/** Keeps the last bind of each target, as a later bwrap mount covers an earlier one. */
function dedupe(binds: readonly Bind[]): Bind[] {
  const byTarget = new Map<string, Bind>();
  for (const bind of binds) {
    byTarget.delete(bind.target);
    byTarget.set(bind.target, bind);
  }
  return [...byTarget.values()];
}

/** The init's status file, read without following a link; null when it is not there. */
async function readStatus(file: string): Promise<InitStatus | null> {
  try {
    const handle = await open(
      file,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > 256) return null;
      return parseInitStatus(await handle.readFile("utf8"));
    } finally {
      await handle.close();
      await rm(file, { force: true });
    }
  } catch {
    return null;
  }
}
