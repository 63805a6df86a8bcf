import { existsSync, readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";

/** One cached environment. */
export interface CachedEnvironment {
  readonly key: string;
  readonly dir: string;
  readonly builtAt: Date;
}

/** The environments in lab's cache. */
export function listCachedEnvironments(cacheDir: string): CachedEnvironment[] {
  const envsDir = path.join(cacheDir, "envs");
  if (!existsSync(envsDir)) return [];
  return readdirSync(envsDir)
    .filter(
      (entry) => !entry.startsWith(".") && existsSync(path.join(envsDir, entry, "lab-env.json")),
    )
    .map((key) => ({
      key,
      dir: path.join(envsDir, key),
      builtAt: statSync(path.join(envsDir, key, "lab-env.json")).mtime,
    }));
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
): Promise<{ environments: number; layers: number }> {
  const counts = {
    environments: listCachedEnvironments(cacheDir).length,
    layers: countInstallLayers(cacheDir),
  };
  await rm(path.join(cacheDir, "envs"), { recursive: true, force: true });
  await rm(installLayersDir(cacheDir), { recursive: true, force: true });
  return counts;
}
