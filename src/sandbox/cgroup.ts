import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";

/** The controllers lab uses: memory (the memory limit) and pids (the process limit). */
export type Controller = "memory" | "pids";

/** Where lab may make per-trial cgroups for one controller. */
export interface ControllerHome {
  readonly version: 1 | 2;
  /** The folder of lab's own cgroup in that hierarchy; trial cgroups go beneath it. */
  readonly parent: string;
}

/** What this machine offers, per controller; null where lab cannot use it. */
export type CgroupSupport = Readonly<Record<Controller, ControllerHome | null>>;

/** One trial's cgroups: every process of the trial joins them through `procsFiles`. */
export interface TrialCgroup {
  /** cgroup.procs files a process writes its pid to, to join (one per hierarchy). */
  readonly procsFiles: readonly string[];
  /** Which limits these cgroups enforce. */
  readonly enforces: Readonly<Record<Controller, boolean>>;
  /** Counters that grow when a limit bites: processes the kernel OOM-killed, forks refused. */
  counters(): Promise<{ oomKills: number; forkRefusals: number }>;
  /** SIGKILLs every process in the cgroups, until none is left. */
  killAll(): Promise<void>;
  /** Kills what is left and removes the cgroups; idempotent. */
  remove(): Promise<void>;
}

let detected: Promise<CgroupSupport> | undefined;

/** Finds writable memory and pids controllers (v2 first, then v1), once per process. */
export function detectCgroups(): Promise<CgroupSupport> {
  detected ??= probe();
  return detected;
}

async function probe(): Promise<CgroupSupport> {
  const none: CgroupSupport = { memory: null, pids: null };
  if (process.platform !== "linux") return none;
  let membership: string;
  let mountinfo: string;
  try {
    membership = await readFile("/proc/self/cgroup", "utf8");
    mountinfo = await readFile("/proc/self/mountinfo", "utf8");
  } catch {
    return none;
  }
  const mounts = parseMountinfo(mountinfo);
  const result: Record<Controller, ControllerHome | null> = { memory: null, pids: null };
  for (const line of membership.split("\n")) {
    const [id, controllers, cgroupPath] = splitOnce3(line);
    if (cgroupPath === undefined) continue;
    if (id === "0" && controllers === "") {
      const mount = mounts.find((entry) => entry.fsType === "cgroup2");
      if (mount === undefined) continue;
      const parent = joinCgroup(mount, cgroupPath);
      for (const controller of ["memory", "pids"] as const) {
        if (result[controller] === null && (await canUseV2(parent, controller)))
          result[controller] = { version: 2, parent };
      }
      continue;
    }
    for (const controller of controllers.split(",")) {
      if (controller !== "memory" && controller !== "pids") continue;
      const mount = mounts.find(
        (entry) => entry.fsType === "cgroup" && entry.options.split(",").includes(controller),
      );
      if (mount === undefined || result[controller] !== null) continue;
      const parent = joinCgroup(mount, cgroupPath);
      if (await canMakeChild(parent)) result[controller] = { version: 1, parent };
    }
  }
  return result;
}

/**
 * Makes the cgroups of one trial with these limits, for the controllers this machine offers;
 * null when it offers none (the caller falls back to rlimits).
 */
export async function createTrialCgroup(limits: {
  memoryMb: number | null;
  maxProcesses: number | null;
}): Promise<TrialCgroup | null> {
  const support = await detectCgroups();
  const name = `lab-${randomUUID()}`;
  const wanted: Controller[] = [];
  if (limits.memoryMb !== null && support.memory !== null) wanted.push("memory");
  if (limits.maxProcesses !== null && support.pids !== null) wanted.push("pids");
  if (wanted.length === 0) return null;

  // v2 keeps both controllers in one folder; v1 has one hierarchy per controller.
  const dirs = new Map<Controller, { dir: string; version: 1 | 2 }>();
  for (const controller of wanted) {
    const home = support[controller];
    if (home === null) continue;
    dirs.set(controller, { dir: path.join(home.parent, name), version: home.version });
  }
  const unique = [...new Set([...dirs.values()].map((entry) => entry.dir))];
  try {
    for (const dir of unique) await mkdir(dir);
    const memory = dirs.get("memory");
    if (memory !== undefined && limits.memoryMb !== null) {
      const bytes = String(limits.memoryMb * 1024 * 1024);
      if (memory.version === 2) {
        await writeFile(path.join(memory.dir, "memory.max"), bytes);
        // No swap: the limit is on memory, not on memory the kernel can page out.
        await writeIfPresent(path.join(memory.dir, "memory.swap.max"), "0");
      } else {
        await writeFile(path.join(memory.dir, "memory.limit_in_bytes"), bytes);
        await writeIfPresent(path.join(memory.dir, "memory.memsw.limit_in_bytes"), bytes);
      }
    }
    const pids = dirs.get("pids");
    if (pids !== undefined && limits.maxProcesses !== null)
      await writeFile(path.join(pids.dir, "pids.max"), String(limits.maxProcesses));
  } catch {
    await removeDirs(unique);
    return null;
  }

  let removed = false;
  const killAll = async (): Promise<void> => {
    for (const dir of unique) await killCgroup(dir);
  };
  return {
    procsFiles: unique.map((dir) => path.join(dir, "cgroup.procs")),
    enforces: { memory: dirs.has("memory"), pids: dirs.has("pids") },
    async counters() {
      const memory = dirs.get("memory");
      const pids = dirs.get("pids");
      const oomKills =
        memory === undefined
          ? 0
          : await readCounter(
              path.join(memory.dir, memory.version === 2 ? "memory.events" : "memory.oom_control"),
              "oom_kill",
            );
      const forkRefusals =
        pids === undefined ? 0 : await readCounter(path.join(pids.dir, "pids.events"), "max");
      return { oomKills, forkRefusals };
    },
    killAll,
    async remove() {
      if (removed) return;
      removed = true;
      await killAll();
      await removeDirs(unique);
    },
  };
}

interface Mount {
  readonly root: string;
  readonly mountPoint: string;
  readonly fsType: string;
  readonly options: string;
}

/** Mounts from /proc/self/mountinfo: `id parent dev root mountpoint opts [tags] - type source superopts`. */
function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    const [before, after] = line.split(" - ");
    if (before === undefined || after === undefined) continue;
    const fields = before.split(" ");
    const [fsType, , options] = after.split(" ");
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined || fsType === undefined) continue;
    mounts.push({
      root: unescapeMount(root),
      mountPoint: unescapeMount(mountPoint),
      fsType,
      options: options ?? "",
    });
  }
  return mounts;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

/** `id:controllers:path`, where the path may itself hold colons. */
function splitOnce3(line: string): [string, string, string | undefined] {
  const first = line.indexOf(":");
  const second = first === -1 ? -1 : line.indexOf(":", first + 1);
  if (second === -1) return ["", "", undefined];
  return [line.slice(0, first), line.slice(first + 1, second), line.slice(second + 1)];
}

/** The folder of a cgroup path under a mount whose root may itself be a cgroup (namespaces). */
function joinCgroup(mount: Mount, cgroupPath: string): string {
  const relative =
    mount.root !== "/" && cgroupPath.startsWith(mount.root)
      ? cgroupPath.slice(mount.root.length)
      : cgroupPath;
  return path.join(mount.mountPoint, relative);
}

/**
 * v2 gives a child a controller only when the parent's subtree_control lists it. Enabling it
 * fails on a cgroup holding processes (the "no internal processes" rule) unless it is the root;
 * lab tries once and otherwise does without.
 */
async function canUseV2(parent: string, controller: Controller): Promise<boolean> {
  try {
    const available = (await readFile(path.join(parent, "cgroup.controllers"), "utf8")).split(
      /\s+/,
    );
    if (!available.includes(controller)) return false;
    const control = path.join(parent, "cgroup.subtree_control");
    if (!(await readFile(control, "utf8")).split(/\s+/).includes(controller))
      await writeFile(control, `+${controller}`);
    return await canMakeChild(parent);
  } catch {
    return false;
  }
}

async function canMakeChild(parent: string): Promise<boolean> {
  const probeDir = path.join(parent, `lab-probe-${randomUUID()}`);
  try {
    await mkdir(probeDir);
    await rmdir(probeDir);
    return true;
  } catch {
    return false;
  }
}

async function writeIfPresent(file: string, value: string): Promise<void> {
  if (!existsSync(file)) return;
  try {
    await writeFile(file, value);
  } catch {
    // Swap accounting switched off: the memory limit still holds.
  }
}

/** The number after `key ` in a flat-keyed cgroup file; 0 when absent. */
async function readCounter(file: string, key: string): Promise<number> {
  try {
    const text = await readFile(file, "utf8");
    const match = new RegExp(`^${key} (\\d+)$`, "m").exec(text);
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** Kill rounds before giving up on a cgroup whose members keep forking. */
const MAX_KILL_ROUNDS = 100;

async function killCgroup(dir: string): Promise<void> {
  // v2's cgroup.kill takes the whole tree at once, forks in flight included.
  const killFile = path.join(dir, "cgroup.kill");
  if (existsSync(killFile)) {
    try {
      await writeFile(killFile, "1");
    } catch {
      // Fall through to killing member by member.
    }
  }
  for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
    const pids = await readMembers(dir);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone since the read.
      }
    }
    await delay(10);
  }
}

/** Pids in a cgroup folder; [] when it is gone. */
async function readMembers(dir: string): Promise<number[]> {
  try {
    return (await readFile(path.join(dir, "cgroup.procs"), "utf8"))
      .split("\n")
      .filter((line) => line !== "")
      .map(Number);
  } catch {
    return [];
  }
}

async function removeDirs(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    // A cgroup whose last member is still exiting refuses rmdir (EBUSY) for a moment.
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") break;
        await delay(20);
      }
    }
  }
}
