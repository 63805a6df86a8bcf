import semver from "semver";
import { LabError } from "../../core/index.js";
import {
  NODE_LOCKFILES,
  parsePackageJson,
  stringField,
  type NodeProjectFiles,
} from "./project-files.js";

/** The package managers lab installs JS projects with. */
export type NodePackageManagerName = "npm" | "pnpm" | "yarn";

/** How a project's dependencies are installed. */
export interface PackageManagerChoice {
  readonly name: NodePackageManagerName;
  /** yarn's generation: "classic" (1.x) or "berry" (2 and later); null for npm and pnpm. */
  readonly yarnFlavor: "classic" | "berry" | null;
  /**
   * Its version as the registry takes it: exact ("8.6.0") or a major ("9"); null when the
   * runtime decides (npm: the one its Node shipped with).
   */
  readonly version: string | null;
  /** Where `version` was read ("packageManager", "pnpm-lock.yaml lockfileVersion 6.0"). */
  readonly versionFrom: string | null;
  /** The lockfile the install follows; null without one. */
  readonly lockfile: string | null;
  /** The install command, argv with the manager's name first ("npm", "ci"). */
  readonly install: readonly string[];
  /** Whether the install is held to the lockfile (false: no lockfile). */
  readonly frozen: boolean;
  /** What grader.log should say besides: no lockfile, several lockfiles. */
  readonly notes: readonly string[];
}

/**
 * The package manager of a project from its root files: package.json's `packageManager`
 * (`pnpm@8.6.0`, corepack's field), else its lockfile (npm's, pnpm's, yarn's: classic, or berry
 * when yarn.lock has `__metadata:` or there is a `.yarnrc.yml`), else npm without a lockfile.
 */
export function packageManagerFor(files: NodeProjectFiles): PackageManagerChoice {
  const notes: string[] = [];
  const present = NODE_LOCKFILES.filter((entry) => files[entry.file] !== undefined);
  const declared = stringField(parsePackageJson(files), "packageManager");
  let name: NodePackageManagerName;
  let version: string | null = null;
  let versionFrom: string | null = null;
  if (declared !== null) {
    ({ name, version } = parsePackageManagerField(declared));
    versionFrom = "packageManager";
  } else {
    name = present[0]?.manager ?? "npm";
  }
  const own = present.filter((entry) => entry.manager === name);
  const lockfile = own[0]?.file ?? null;
  const others = present.filter((entry) => entry.file !== lockfile).map((entry) => entry.file);
  if (others.length > 0)
    notes.push(
      `also has ${others.join(", ")}; installs with ${name}${lockfile === null ? "" : ` from ${lockfile}`}`,
    );

  let yarnFlavor: "classic" | "berry" | null = null;
  if (name === "yarn") {
    const lock = files["yarn.lock"] ?? "";
    const berryFiles = /^__metadata:/m.test(lock) || files[".yarnrc.yml"] !== undefined;
    yarnFlavor =
      version !== null
        ? semverMajor(version) === 1
          ? "classic"
          : "berry"
        : berryFiles
          ? "berry"
          : "classic";
    if (version === null) ({ version, versionFrom } = impliedYarnVersion(yarnFlavor, files));
  } else if (name === "pnpm" && version === null) {
    ({ version, versionFrom } = impliedPnpmVersion(files["pnpm-lock.yaml"] ?? ""));
  }
  if (lockfile === null)
    notes.push(
      `no lockfile: \`${name} install\` resolves the dependencies as of the grade, not of the commit, so installs may differ between grades`,
    );
  return {
    name,
    yarnFlavor,
    version,
    versionFrom,
    lockfile,
    install: installCommand(name, yarnFlavor, lockfile !== null),
    frozen: lockfile !== null,
    notes,
  };
}

/** "pnpm@8.6.0+sha256.abc" → pnpm, 8.6.0 (corepack's hash is of the download, not a version). */
function parsePackageManagerField(field: string): {
  name: NodePackageManagerName;
  version: string;
} {
  const match = /^(npm|pnpm|yarn)@([^+]+)(\+.*)?$/.exec(field.trim());
  const version = match?.[2]?.trim() ?? "";
  if (match === null || semver.validRange(version) === null) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `package.json's packageManager is "${field}", which is not npm, pnpm or yarn at a version.`,
      {
        hint: "lab installs JS projects with npm, pnpm or yarn; check the field at the task's base commit.",
      },
    );
  }
  return { name: match[1] as NodePackageManagerName, version };
}

function semverMajor(version: string): number | null {
  return semver.minVersion(version)?.major ?? null;
}

/**
 * yarn's version when package.json does not say: berry's `yarnPath` in .yarnrc.yml names the
 * release the project commits (yarn-3.6.1.cjs); else the major its lockfile format belongs to
 * (`__metadata.version`: 4 was written by yarn 2, 5 and 6 by 3, 7 and 8 by 4); classic is 1.
 */
function impliedYarnVersion(
  flavor: "classic" | "berry",
  files: NodeProjectFiles,
): { version: string; versionFrom: string } {
  if (flavor === "classic") return { version: "1", versionFrom: "yarn.lock (classic)" };
  const yarnPath = /^yarnPath:\s*["']?([^"'\n]+?)["']?\s*$/m.exec(files[".yarnrc.yml"] ?? "")?.[1];
  const released =
    yarnPath === undefined ? undefined : /yarn-(\d+\.\d+\.\d+)\.c?js$/.exec(yarnPath)?.[1];
  if (released !== undefined) return { version: released, versionFrom: ".yarnrc.yml yarnPath" };
  const format = Number(
    /^__metadata:\s*\n\s+version:\s*["']?(\d+)/m.exec(files["yarn.lock"] ?? "")?.[1],
  );
  const major = format >= 7 ? "4" : format >= 5 ? "3" : format >= 1 ? "2" : "4";
  return {
    version: major,
    versionFrom:
      Number.isNaN(format) || format === 0
        ? "berry's newest major (no lockfile format)"
        : `yarn.lock __metadata version ${String(format)}`,
  };
}

/**
 * pnpm's major from pnpm-lock.yaml's `lockfileVersion`: 5.3 was written by pnpm 6, 5.4 by 7,
 * 6.x by 8, 9.0 by 9 (and 10, whose changed defaults, dependencies' build scripts not run, a
 * project stating nothing did not ask for).
 */
function impliedPnpmVersion(lock: string): { version: string | null; versionFrom: string | null } {
  const format = /^lockfileVersion:\s*["']?([\d.]+)/m.exec(lock)?.[1];
  if (format === undefined) return { version: null, versionFrom: null };
  const number = Number(format);
  const major =
    number >= 7 ? "9" : number >= 6 ? "8" : number >= 5.4 ? "7" : number >= 5.3 ? "6" : "5";
  return { version: major, versionFrom: `pnpm-lock.yaml lockfileVersion ${format}` };
}

function installCommand(
  name: NodePackageManagerName,
  yarnFlavor: "classic" | "berry" | null,
  locked: boolean,
): string[] {
  if (!locked) return [name, "install"];
  if (name === "npm") return ["npm", "ci"];
  if (name === "pnpm") return ["pnpm", "install", "--frozen-lockfile"];
  return yarnFlavor === "berry"
    ? ["yarn", "install", "--immutable"]
    : ["yarn", "install", "--frozen-lockfile"];
}
