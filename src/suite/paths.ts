import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The folder lab is installed in (holds bin/, dist/ or src/, and the built-in evals/). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The built-in suites shipped with lab. */
export const builtinEvalsDir = path.join(packageRoot, "evals");

/**
 * Where suites are looked for, most specific first: an explicit folder, or the current
 * project's `evals/` and then the built-in one.
 */
export function evalsSearchPath(options: { evalsDir?: string | undefined; cwd: string }): string[] {
  if (options.evalsDir !== undefined) return [path.resolve(options.cwd, options.evalsDir)];
  const local = path.resolve(options.cwd, "evals");
  return local === builtinEvalsDir
    ? [local]
    : [local, builtinEvalsDir].filter((dir) => existsSync(dir) || dir === builtinEvalsDir);
}
