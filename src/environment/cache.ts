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

/** Removes every cached environment (and half-built leftovers); returns how many were whole. */
export async function clearEnvironmentCache(cacheDir: string): Promise<number> {
  const count = listCachedEnvironments(cacheDir).length;
  await rm(path.join(cacheDir, "envs"), { recursive: true, force: true });
  return count;
}
