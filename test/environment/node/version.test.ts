import { describe, expect, it } from "vitest";
import {
  buildNodeReleases,
  describeNodeVersionChoice,
  ltsCodenameOf,
  nodeReleaseOfLineBefore,
  nodeVersionFor,
  type NodeRelease,
} from "../../../src/environment/index.js";

/**
 * A release list as lab builds it, from real days of Node's releases (nodejs.org's, as
 * node-releases lists them: minor releases only) and registry publish times that, as on the
 * real registry, say nothing of when Node released them (all late 2024).
 */
const knownDates: Record<string, string> = {
  "0.10.0": "2013-03-11",
  "0.12.0": "2015-02-06",
  "14.15.0": "2020-10-27",
  "14.21.0": "2022-11-01",
  "16.0.0": "2021-04-20",
  "16.13.0": "2021-10-26",
  "16.14.0": "2022-02-08",
  "16.20.0": "2023-03-28",
  "17.0.0": "2021-10-19",
  "18.0.0": "2022-04-18",
  "18.12.0": "2022-10-25",
  "18.13.0": "2023-01-05",
  "18.19.0": "2023-11-29",
  "18.20.0": "2024-03-26",
  "20.0.0": "2023-04-18",
  "20.9.0": "2023-10-24",
  "20.10.0": "2023-11-22",
  "21.0.0": "2023-10-17",
  "27.0.0-alpha.1": "2026-11-25",
};
const published: Record<string, string> = Object.fromEntries(
  [
    "0.10.48",
    "0.12.0",
    "14.15.0",
    "14.21.3",
    "16.0.0",
    "16.13.0",
    "16.13.2",
    "16.14.0",
    "16.20.0",
    "16.20.2",
    "17.0.0",
    "18.0.0",
    "18.12.0",
    "18.12.1",
    "18.13.0",
    "18.19.0",
    "18.19.1",
    "18.20.0",
    "18.20.4",
    "20.0.0",
    "20.9.0",
    "20.10.0",
    "21.0.0",
    "27.0.0-alpha.1",
  ].map((version) => [version, "2024-12-11T18:10:08.878000+00:00"]),
);
/** Ends of life of Node's release schedule, by line. */
const lineEnds: Record<string, string> = { "0.10": "2016-10-31", "14": "2023-04-30" };
const releases: readonly NodeRelease[] = buildNodeReleases(
  { ...published, created: "2014-01-01T00:00:00Z", modified: "2026-01-01T00:00:00Z" },
  knownDates,
  lineEnds,
);
const on = (day: string): Date => new Date(`${day}T12:00:00Z`);
const pkg = (value: unknown): string => JSON.stringify(value);

/** What `work` throws (a test fails when it throws nothing). */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error, got none");
}

describe("the release list", () => {
  it("keeps releases only, oldest first, each with its LTS line", () => {
    expect(releases.map((release) => release.version)).toEqual(
      Object.keys(published).filter((version) => !version.includes("alpha")),
    );
    expect(releases.find((r) => r.version === "18.0.0")?.lts).toBeNull();
    expect(releases.find((r) => r.version === "18.12.0")?.lts).toBe("hydrogen");
    expect(releases.find((r) => r.version === "18.12.1")?.lts).toBe("hydrogen");
    expect(releases.find((r) => r.version === "21.0.0")?.lts).toBeNull();
    expect(ltsCodenameOf("20.9.0")).toBe("iron");
    expect(ltsCodenameOf("20.8.1")).toBeNull();
  });

  it("dates a patch release no later than the next minor of its line, or its publication", () => {
    const dated = (version: string): NodeRelease | undefined =>
      releases.find((release) => release.version === version);
    expect(dated("18.19.0")).toMatchObject({ date: "2023-11-29", dateExact: true });
    expect(dated("18.19.1")).toMatchObject({ date: "2024-03-26", dateExact: false });
    // The last minor of a line has no next one: only the registry's day bounds it.
    expect(dated("18.20.4")).toMatchObject({ date: "2024-12-11", dateExact: false });
    // 0.10 and 0.12 overlapped: 0.12.0 came out before 0.10.48 and bounds nothing of 0.10;
    // 0.10's end of life does.
    expect(dated("0.10.48")).toMatchObject({ date: "2016-10-31", dateExact: false });
    expect(dated("14.21.3")).toMatchObject({ date: "2023-04-30", dateExact: false });
  });
});

describe("nodeVersionFor", () => {
  it("takes volta.node before .nvmrc, .nvmrc before .node-version, that before engines.node", () => {
    const files = {
      "package.json": pkg({ volta: { node: "16.13.2" }, engines: { node: ">=18" } }),
      ".nvmrc": "v18.12.1\n",
      ".node-version": "20.9.0\n",
    };
    expect(nodeVersionFor(files, on("2024-06-01"), releases)).toEqual({
      version: "16.13.2",
      source: "volta.node",
      spec: "16.13.2",
      note: null,
    });
    const withoutVolta = { ...files, "package.json": pkg({ engines: { node: ">=18" } }) };
    expect(nodeVersionFor(withoutVolta, on("2024-06-01"), releases)).toMatchObject({
      version: "18.12.1",
      source: ".nvmrc",
    });
    const onlyNodeVersion = {
      "package.json": withoutVolta["package.json"],
      ".node-version": files[".node-version"],
    };
    expect(nodeVersionFor(onlyNodeVersion, on("2024-06-01"), releases)).toMatchObject({
      version: "20.9.0",
      source: ".node-version",
    });
    expect(
      nodeVersionFor({ "package.json": withoutVolta["package.json"] }, on("2024-06-01"), releases),
    ).toEqual({ version: "20.10.0", source: "engines.node", spec: ">=18", note: null });
    // An odd line is never LTS: the newest release it admits, then.
    expect(
      nodeVersionFor(
        { "package.json": pkg({ engines: { node: "^21" } }) },
        on("2024-06-01"),
        releases,
      ),
    ).toMatchObject({ version: "21.0.0", source: "engines.node" });
    expect(
      nodeVersionFor(
        { "package.json": pkg({ engines: { node: ">= 14.x" } }) },
        on("2021-05-01"),
        releases,
      ),
    ).toMatchObject({ version: "14.15.0" }); // not 16.0.0, then "Current"
  });

  it("reads a bare major, with or without v, as the newest of its line before the commit", () => {
    expect(nodeVersionFor({ ".nvmrc": "18" }, on("2023-01-10"), releases).version).toBe("18.13.0");
    expect(nodeVersionFor({ ".nvmrc": "v18\n" }, on("2024-06-01"), releases).version).toBe(
      "18.20.0",
    );
    expect(nodeVersionFor({ ".nvmrc": "18.19" }, on("2024-06-01"), releases).version).toBe(
      "18.19.1",
    );
    // The commit's own day does not count: the release may have come out after it.
    expect(nodeVersionFor({ ".nvmrc": "18" }, on("2023-11-29"), releases).version).toBe("18.13.0");
  });

  it("resolves lts/*, a codename and lts/-1 as of the commit", () => {
    const choose = (spec: string, day: string): string =>
      nodeVersionFor({ ".nvmrc": `${spec}\n` }, on(day), releases).version;
    // 18.12.1 came out by 2023-01-05 (18.13.0's day), maybe after the commit: not taken.
    expect(choose("lts/*", "2022-12-01")).toBe("18.12.0");
    expect(choose("lts/*", "2023-12-01")).toBe("20.10.0");
    expect(choose("lts/hydrogen", "2023-12-01")).toBe("18.19.0");
    // 16.20.2 is known to be out only by its publication (2024-12-11), after the commit.
    expect(choose("LTS/Gallium", "2023-12-01")).toBe("16.20.0");
    expect(choose("LTS/Gallium", "2025-01-01")).toBe("16.20.2");
    expect(choose("lts/-1", "2023-12-01")).toBe("18.19.0");
    expect(choose("node", "2023-12-01")).toBe("21.0.0");
    expect(choose("# pinned for CI\nlts/fermium # old", "2023-12-01")).toBe("14.21.3");
  });

  it("takes the newest LTS before the commit when the project states nothing", () => {
    const choice = nodeVersionFor(
      { "package.json": pkg({ name: "x" }) },
      on("2021-11-15"),
      releases,
    );
    expect(choice).toEqual({ version: "16.13.0", source: "newest LTS", spec: null, note: null });
    expect(describeNodeVersionChoice(choice)).toBe(
      "Node 16.13.0 (no version stated: the newest LTS before the commit)",
    );
    expect(nodeVersionFor({}, on("2024-06-01"), releases).version).toBe("20.10.0");
  });

  it("takes the first matching release, and says so, for a commit dated before any", () => {
    const choice = nodeVersionFor({ ".nvmrc": "20" }, on("2022-01-01"), releases);
    expect(choice.version).toBe("20.0.0");
    expect(choice.note).toMatch(/no release matching 20 had come out before .*2022-01-01/);
    expect(describeNodeVersionChoice(choice)).toMatch(/^Node 20\.0\.0 \(\.nvmrc: 20\); no release/);
  });

  it("names the file and the spec when no release satisfies it", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ ".nvmrc": "19" }, /^\.nvmrc asks for Node "19"/],
      [{ ".node-version": "lts/zirconium" }, /^\.node-version asks for Node "lts\/zirconium"/],
      [{ ".nvmrc": "18.99.0" }, /^\.nvmrc asks for Node "18\.99\.0"/],
      [{ ".nvmrc": "iojs" }, /^\.nvmrc asks for Node "iojs"/],
      [{ "package.json": pkg({ engines: { node: ">=30" } }) }, /^package\.json \(engines\.node\)/],
      [{ "package.json": pkg({ volta: { node: "12.0.0" } }) }, /^package\.json \(volta\.node\)/],
    ];
    for (const [files, message] of cases) {
      expect(thrown(() => nodeVersionFor(files, on("2024-01-01"), releases))).toMatchObject({
        code: "NODE_NOT_FOUND",
        message: expect.stringMatching(message) as string,
        hint: expect.stringContaining("releases.json") as string,
      });
    }
  });

  it("says so when package.json is not JSON", () => {
    expect(
      thrown(() => nodeVersionFor({ "package.json": "{ nope" }, on("2024-01-01"), releases)),
    ).toMatchObject({
      code: "ENVIRONMENT_FAILED",
      message: expect.stringMatching(/package\.json is not valid JSON/) as string,
    });
  });
});

describe("nodeReleaseOfLineBefore (a SWE-bench Multilingual spec's Node)", () => {
  it("takes the newest release of the stated line that came out before the day", () => {
    // 18.19.1 counts from 18.20.0's day (2024-03-26), the latest it can have come out.
    expect(nodeReleaseOfLineBefore("18", "2023-12-31", releases)).toBe("18.19.0");
    expect(nodeReleaseOfLineBefore("18", "2026-08-10", releases)).toBe("18.20.4");
    expect(nodeReleaseOfLineBefore("16", "2022-03-01", releases)).toBe("16.14.0");
  });

  it("takes an exact version as it is, and nothing for a line with no release before the day", () => {
    expect(nodeReleaseOfLineBefore("18.12.1", "2000-01-01", releases)).toBe("18.12.1");
    expect(nodeReleaseOfLineBefore("18.99.0", "2026-08-10", releases)).toBeNull();
    expect(nodeReleaseOfLineBefore("20", "2023-01-01", releases)).toBeNull();
    expect(nodeReleaseOfLineBefore("27", "2026-12-31", releases)).toBeNull();
    expect(nodeReleaseOfLineBefore("lts/*", "2026-08-10", releases)).toBeNull();
  });
});
