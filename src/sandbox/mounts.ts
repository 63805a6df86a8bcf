import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { LabError, type SandboxSpec } from "../core/index.js";

/** Top-level system folders a tool sees read-only (symlinks, as on merged-/usr systems, are kept). */
export const SYSTEM_DIRS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
] as const;

/**
 * Folders of the user's home that hold a tool manager's installations and no credentials, so
 * the parent of a PATH entry in them may be shown (pyenv's shims need pyenv's root).
 * `~/.cargo` or `~/.local` may hold credentials: only their PATH entries themselves are shown.
 */
const HOME_TOOL_ROOTS = new Set([".pyenv", ".nvm", ".volta", ".bun", ".deno", ".asdf"]);

/** One mount in the sandbox. */
export type Mount =
  | {
      readonly kind: "ro-bind" | "ro-bind-try" | "bind";
      readonly source: string;
      readonly dest: string;
    }
  | { readonly kind: "symlink"; readonly target: string; readonly dest: string };

/** Whether `inner` is `outer` or lies beneath it. */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
}

/** The system folders as mounts: real folders bound read-only, symlinks recreated. */
export function systemMounts(): Mount[] {
  const mounts: Mount[] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const stats = lstatSync(dir);
      if (stats.isSymbolicLink())
        mounts.push({ kind: "symlink", target: readlinkSync(dir), dest: dir });
      else if (stats.isDirectory()) mounts.push({ kind: "ro-bind", source: dir, dest: dir });
    } catch {
      // Not on this system.
    }
  }
  // A resolv.conf managed elsewhere (systemd-resolved: /run/...) must come along, or DNS fails.
  try {
    const resolv = realpathSync("/etc/resolv.conf");
    if (!isWithin(resolv, "/etc") && !isWithin(resolv, "/usr"))
      mounts.push({ kind: "ro-bind-try", source: resolv, dest: resolv });
  } catch {
    // No resolver configuration: the tool gets none either.
  }
  return mounts;
}

/**
 * Folders on PATH (and the installation prefixes of `bin` and `shims` folders) that a tool
 * may see, read-only. A folder is refused when it is, holds or lies inside a hidden folder,
 * or when it is or holds the user's home; a prefix inside the home is shown only for known
 * tool managers (see HOME_TOOL_ROOTS). Folders already shown (the system's) are skipped.
 */
export function toolPathMounts(options: {
  pathEnv: string;
  extra: readonly string[];
  hidden: readonly string[];
  hostHome: string;
}): { mounts: Mount[]; refusedExtra: string[] } {
  const hidden = options.hidden.map((dir) => path.resolve(dir));
  const home = path.resolve(options.hostHome);
  const refused = (dir: string): boolean => {
    const candidates = [dir];
    try {
      candidates.push(realpathSync(dir));
    } catch {
      return true;
    }
    return candidates.some(
      (candidate) =>
        candidate === "/" ||
        isWithin(home, candidate) ||
        hidden.some((secret) => isWithin(candidate, secret) || isWithin(secret, candidate)),
    );
  };
  const chosen: string[] = [];
  const refusedExtra: string[] = [];
  const add = (dir: string, isExplicit = false): void => {
    // A tool may name a single file (its binary); PATH entries count only as folders.
    if (!path.isAbsolute(dir) || !(isExplicit ? existsSync(dir) : isDirectory(dir))) return;
    if (refused(dir)) {
      if (isExplicit) refusedExtra.push(dir);
      return;
    }
    if (SYSTEM_DIRS.some((system) => isWithin(dir, system))) return;
    if (chosen.some((shown) => isWithin(dir, shown))) return;
    for (let i = chosen.length - 1; i >= 0; i--) {
      if (isWithin(chosen[i] ?? "", dir)) chosen.splice(i, 1);
    }
    chosen.push(dir);
  };
  for (const entry of options.pathEnv.split(path.delimiter)) {
    if (entry === "" || !path.isAbsolute(entry)) continue;
    const dir = path.resolve(entry);
    add(dir);
    const base = path.basename(dir);
    if (base !== "bin" && base !== "shims") continue;
    const prefix = path.dirname(dir);
    const insideHome = isWithin(prefix, home);
    const isHomeChild = path.dirname(prefix) === home;
    if (insideHome && isHomeChild && !HOME_TOOL_ROOTS.has(path.basename(prefix))) continue;
    add(prefix);
  }
  for (const dir of options.extra) add(path.resolve(dir), true);
  return {
    mounts: chosen.map((dir) => ({ kind: "ro-bind-try", source: dir, dest: dir })),
    refusedExtra,
  };
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** bwrap options for a list of mounts, in order (a later mount may sit inside an earlier one). */
export function mountArgs(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((mount) =>
    mount.kind === "symlink"
      ? ["--symlink", mount.target, mount.dest]
      : [`--${mount.kind}`, mount.source, mount.dest],
  );
}

/**
 * The tool mounts a sandbox spec asks for (toolPathMounts of its PATH and tool folders);
 * SANDBOX_UNAVAILABLE when a folder it lists itself must stay hidden from tools.
 */
export function specToolMounts(
  spec: Pick<SandboxSpec, "pathEnv" | "toolPaths" | "hiddenPaths" | "hostHome">,
): Mount[] {
  const tools = toolPathMounts({
    pathEnv: spec.pathEnv,
    extra: spec.toolPaths,
    hidden: spec.hiddenPaths,
    hostHome: spec.hostHome,
  });
  if (tools.refusedExtra.length > 0) {
    throw new LabError(
      "SANDBOX_UNAVAILABLE",
      `The sandbox will not show ${tools.refusedExtra.join(", ")}: it holds, or lies inside, a folder a tool must not see (a suite, the runs, lab's cache, the scratch root or your home).`,
      { hint: "Install the tool somewhere else, and list only its own folder." },
    );
  }
  return tools.mounts;
}
