import { createHash } from "node:crypto";

/** Bumped whenever what lab keeps of a JS install changes, so old entries are not reused. */
const NODE_INSTALL_LAYOUT = 1;

/**
 * The cache key of a JS project's install: the Node it ran on, the package manager and its
 * exact version, and the bytes of the lockfile (and of package.json, whose scripts and
 * workspaces the install also follows, when given). Two grades with the same key install the
 * same tree, so one install can serve both. Without a lockfile (`npm install`) the key still
 * names the inputs, but the registry may answer differently later: reuse such an install only
 * within one base commit's grades. `commands`: upstream's install and build, when a task runs
 * those instead of the frozen install (keys without them are unchanged).
 */
export function nodeInstallKey(
  runtimeVersion: string,
  manager: { readonly name: string; readonly version: string },
  lockfileBytes: Uint8Array | string | null,
  packageJsonBytes: Uint8Array | string | null = null,
  commands?: readonly string[],
): string {
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      layout: NODE_INSTALL_LAYOUT,
      node: runtimeVersion,
      manager,
      // Upstream's own install and build commands, when a task runs them instead of lab's.
      ...(commands === undefined ? {} : { commands }),
    }),
  );
  // Lengths first, so no split of the bytes between the two fields gives another's key.
  for (const bytes of [lockfileBytes, packageJsonBytes]) {
    const buffer = bytes === null ? null : Buffer.from(bytes);
    hash.update(buffer === null ? "none;" : `${String(buffer.length)};`);
    if (buffer !== null) hash.update(buffer);
  }
  return `node${runtimeVersion}-${manager.name}${manager.version}-${hash.digest("hex").slice(0, 16)}`;
}

/**
 * Files whose change means installing again: package.json at any depth (workspaces), the
 * lockfiles, the package managers' settings and hooks, the Node version files, and what
 * installs read from folders (yarn berry's `.yarn/`: its release, plugins, patches, offline
 * cache; patch-package's `patches/`).
 */
const INSTALL_INPUT_NAMES = new Set([
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "pnpm-workspace.yaml",
  ".pnpmfile.cjs",
  "yarn.lock",
  ".yarnrc",
  ".yarnrc.yml",
  ".npmrc",
  ".nvmrc",
  ".node-version",
]);

/** The paths of a change (relative to the project's root) that its install reads. */
export function nodeInstallInputs(changedPaths: readonly string[]): string[] {
  return changedPaths.filter((file) => {
    const normalized = file.replace(/\\/g, "/").replace(/^\.\//, "");
    const name = normalized.split("/").at(-1) ?? "";
    return (
      INSTALL_INPUT_NAMES.has(name) ||
      normalized.startsWith(".yarn/") ||
      normalized.startsWith("patches/")
    );
  });
}

/** Whether a change touches what the install reads, so the base commit's install cannot stand. */
export function changeTouchesNodeInstall(changedPaths: readonly string[]): boolean {
  return nodeInstallInputs(changedPaths).length > 0;
}
