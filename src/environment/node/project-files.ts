import { readFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../../core/index.js";

/**
 * Files of a JS project's root at a commit, by name ("package.json" → its text); a file the
 * project does not have is absent. What the Node version and the package manager are read from.
 */
export type NodeProjectFiles = Readonly<Record<string, string | undefined>>;

/** The lockfiles lab knows, each with its package manager, in the order they are preferred. */
export const NODE_LOCKFILES = [
  { file: "npm-shrinkwrap.json", manager: "npm" },
  { file: "package-lock.json", manager: "npm" },
  { file: "pnpm-lock.yaml", manager: "pnpm" },
  { file: "yarn.lock", manager: "yarn" },
] as const;

/** The root files lab reads to choose a project's Node and package manager. */
export const NODE_PROJECT_FILES = [
  "package.json",
  ".nvmrc",
  ".node-version",
  ".yarnrc.yml",
  ...NODE_LOCKFILES.map((entry) => entry.file),
] as const;

/** Reads NODE_PROJECT_FILES from a work tree's root (a checkout at the base commit). */
export async function readNodeProjectFiles(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of NODE_PROJECT_FILES) {
    try {
      files[name] = await readFile(path.join(dir, name), "utf8");
    } catch {
      // Absent: the project does not use it.
    }
  }
  return files;
}

/** The project's package.json, parsed; null without one; a LabError when it is not JSON. */
export function parsePackageJson(files: NodeProjectFiles): Record<string, unknown> | null {
  const text = files["package.json"];
  if (text === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `The project's package.json is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`,
      { hint: "Check package.json at the task's base commit: no Node project installs from it." },
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new LabError("ENVIRONMENT_FAILED", "The project's package.json is not a JSON object.", {
      hint: "Check package.json at the task's base commit: no Node project installs from it.",
    });
  }
  return parsed as Record<string, unknown>;
}

/** A string field of a parsed package.json at a path ("engines", "node"); null when not a string. */
export function stringField(
  manifest: Record<string, unknown> | null,
  ...keys: readonly string[]
): string | null {
  let value: unknown = manifest;
  for (const key of keys) {
    if (typeof value !== "object" || value === null) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === "string" ? value : null;
}
