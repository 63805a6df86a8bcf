import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";

/** One cached environment. */
export interface CachedEnvironment {
  readonly key: string;
  readonly dir: string;
  readonly builtAt: Date;
  /** Its interpreter's version, from lab-env.json; null when that file does not say. */
  readonly python: string | null;
  /** How many pinned requirements it holds; null when lab-env.json does not say. */
  readonly pins: number | null;
}

/** One install layer: a base commit's install kept over a cached environment. */
export interface CachedLayer {
  readonly key: string;
  readonly dir: string;
  readonly builtAt: Date;
  /** Files it restores; null when its layer.json is unreadable or marks it unusable. */
  readonly files: number | null;
}

/** Where lab keeps its own copy of uv, when it installed one (findUv): in the cache folder. */
export function ownUvDir(cacheDir: string): string {
  return path.join(cacheDir, "tools", "uv");
}

/** lab's own uv, when the cache holds it, named by the release pip installed ("uv-0.13.9"). */
export function findOwnUv(
  cacheDir: string,
): { readonly dir: string; readonly name: string; readonly builtAt: Date } | null {
  const dir = ownUvDir(cacheDir);
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (stats?.isDirectory() !== true) return null;
  const release = readdirSync(dir)
    .map((entry) => /^uv-(.+)\.dist-info$/.exec(entry)?.[1])
    .find((version) => version !== undefined);
  return { dir, name: release === undefined ? "uv" : `uv-${release}`, builtAt: stats.mtime };
}

/** Bytes under a folder (files and links as stored, not followed). */
export function folderSizeBytes(dir: string): number {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const file = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(file);
      else total += lstatSync(file, { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  return total;
}

/** Reads a small JSON file, or null. */
function readJsonOrNull(file: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The environments in lab's cache. */
export function listCachedEnvironments(cacheDir: string): CachedEnvironment[] {
  const envsDir = path.join(cacheDir, "envs");
  if (!existsSync(envsDir)) return [];
  return readdirSync(envsDir)
    .filter(
      (entry) => !entry.startsWith(".") && existsSync(path.join(envsDir, entry, "lab-env.json")),
    )
    .map((key) => {
      const file = path.join(envsDir, key, "lab-env.json");
      const record = readJsonOrNull(file);
      const python = (record?.python as { version?: unknown } | undefined)?.version;
      return {
        key,
        dir: path.join(envsDir, key),
        builtAt: statSync(file).mtime,
        python: typeof python === "string" ? python : null,
        pins: Array.isArray(record?.pins) ? record.pins.length : null,
      };
    });
}

/** The install layers in lab's cache. */
export function listInstallLayers(cacheDir: string): CachedLayer[] {
  const dir = installLayersDir(cacheDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((entry) => !entry.startsWith("."))
    .map((key) => {
      const layerDir = path.join(dir, key);
      const record = readJsonOrNull(path.join(layerDir, "layer.json"));
      return {
        key,
        dir: layerDir,
        builtAt: statSync(layerDir).mtime,
        files: Array.isArray(record?.files) ? record.files.length : null,
      };
    });
}

/** Where the install layers live (`src/grader/install-layer.ts`): one folder per layer. */
export function installLayersDir(cacheDir: string): string {
  return path.join(cacheDir, "layers");
}

/** The number of install layers in lab's cache. */
export function countInstallLayers(cacheDir: string): number {
  const dir = installLayersDir(cacheDir);
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).filter((entry) => !entry.startsWith(".")).length;
}

/**
 * Removes every cached environment and every install layer made in them (and half-built
 * leftovers); returns how many of each were whole.
 */
export async function clearEnvironmentCache(
  cacheDir: string,
): Promise<{ environments: number; layers: number; uv: string | null }> {
  const counts = {
    environments: listCachedEnvironments(cacheDir).length,
    layers: countInstallLayers(cacheDir),
    uv: findOwnUv(cacheDir)?.dir ?? null,
  };
  await rm(path.join(cacheDir, "envs"), { recursive: true, force: true });
  await rm(installLayersDir(cacheDir), { recursive: true, force: true });
  await rm(ownUvDir(cacheDir), { recursive: true, force: true });
  return counts;
}
