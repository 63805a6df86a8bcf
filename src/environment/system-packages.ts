import { LabError, quoteShell } from "../core/index.js";
import { findOnPath, runCommand } from "../process/index.js";

/** How lab may bring a task's Debian packages onto the host. */
export interface SystemPackageOptions {
  /** PATH holding dpkg-query and apt-get. */
  readonly pathEnv: string;
  /** Whether lab runs as root, and so may install packages itself. */
  readonly isRoot: boolean;
  readonly signal?: AbortSignal | undefined;
  /** Told before apt-get runs, which takes minutes: for progress. */
  readonly onInstall?: ((message: string) => void) | undefined;
}

/** Packages known to be installed, so each is asked about once per process. */
const installed = new Set<string>();
let updated = false;

/**
 * The packages of `packages` that dpkg does not list as installed; null when this host has no
 * dpkg-query (not Debian or Ubuntu), where lab cannot tell.
 */
export async function missingDebianPackages(
  packages: readonly string[],
  pathEnv: string,
  signal?: AbortSignal,
): Promise<string[] | null> {
  const unknown = [...new Set(packages)].filter((name) => !installed.has(name));
  if (unknown.length === 0) return [];
  const dpkgQuery = findOnPath("dpkg-query", pathEnv);
  if (dpkgQuery === null) return null;
  const result = await runCommand([dpkgQuery, "-W", "-f=${Package} ${Status}\\n", ...unknown], {
    env: { PATH: pathEnv, LC_ALL: "C" },
    timeoutMs: 60_000,
    captureStdout: true,
    ...(signal === undefined ? {} : { signal }),
  });
  // dpkg-query exits 1 when some package is unknown to it; its output still lists the others.
  for (const line of (result.stdout ?? "").split("\n")) {
    const [name, ...status] = line.trim().split(" ");
    if (name !== undefined && status.join(" ") === "install ok installed") installed.add(name);
  }
  return unknown.filter((name) => !installed.has(name));
}

/**
 * Makes sure the host has a task's Debian packages (a compiler, headers, tools its build or
 * tests use): as root, lab installs the missing ones with apt-get; otherwise it stops and names
 * them. Where there is no dpkg (not Debian or Ubuntu) nothing is checked: the build then fails
 * on its own if something is missing. Returns the packages it installed.
 */
export async function ensureDebianPackages(
  packages: readonly string[],
  options: SystemPackageOptions,
): Promise<string[]> {
  const missing = await missingDebianPackages(packages, options.pathEnv, options.signal);
  if (missing === null || missing.length === 0) return [];
  const aptGet = findOnPath("apt-get", options.pathEnv);
  if (!options.isRoot || aptGet === null) {
    throw new LabError(
      "SYSTEM_PACKAGES_MISSING",
      `These tasks need Debian packages that are not installed: ${missing.join(", ")}.`,
      {
        hint: `Install them (\`sudo apt-get install -y ${missing.map(quoteShell).join(" ")}\`), or run lab as root to let it install them.`,
      },
    );
  }
  const env = { PATH: options.pathEnv, DEBIAN_FRONTEND: "noninteractive", LC_ALL: "C" };
  const run = async (args: readonly string[], what: string): Promise<void> => {
    const result = await runCommand([aptGet, ...args], {
      env,
      timeoutMs: 60 * 60_000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (result.aborted) throw new LabError("CANCELLED", `Cancelled while running ${what}.`);
    if (result.exitCode !== 0) {
      throw new LabError(
        "ENVIRONMENT_FAILED",
        `${what} failed (exit ${String(result.exitCode ?? result.signal)}): ${result.stderrTail.trim().split("\n").at(-1) ?? ""}`,
        { hint: `Install them by hand: apt-get install -y ${missing.join(" ")}` },
      );
    }
  };
  options.onInstall?.(`installing Debian packages with apt-get: ${missing.join(", ")}`);
  if (!updated) {
    await run(["update", "-qq"], "apt-get update");
    updated = true;
  }
  await run(
    ["install", "-y", "-qq", "--no-install-recommends", ...missing],
    `apt-get install ${missing.join(" ")}`,
  );
  const still = await missingDebianPackages(missing, options.pathEnv, options.signal);
  if (still !== null && still.length > 0) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `apt-get ran, but these packages are still not installed: ${still.join(", ")}.`,
      { hint: "Check the package names against this Debian release (apt-cache policy NAME)." },
    );
  }
  return missing;
}
