import { describe, expect, it } from "vitest";
import { multilingualSpecFor } from "../../src/datasets/index.js";
import { buildNodeReleases } from "../../src/environment/index.js";
import { MULTILINGUAL_NODE_DAY, multilingualEnvironmentFor } from "../../src/gen/index.js";

/** Node 20's releases as lab's list dates them: 20.20.2 counts from 20.20.0's day, a bound. */
const releases = buildNodeReleases(
  Object.fromEntries(
    ["20.19.0", "20.20.0", "20.20.2", "22.0.0"].map((version) => [version, "2026-11-01T00:00:00Z"]),
  ),
  { "20.19.0": "2025-03-13", "20.20.0": "2026-01-13", "22.0.0": "2024-04-24" },
  { "20": "2026-04-30" },
);

describe("a SWE-bench Multilingual row's environment.json", () => {
  it("states Node exactly, as of the dataset's day, and upstream's commands verbatim", () => {
    const spec = multilingualSpecFor({ repo: "vuejs/core", version: "11899" });
    expect(MULTILINGUAL_NODE_DAY).toBe("2026-08-10");
    expect(multilingualEnvironmentFor(spec, releases)).toEqual({
      kind: "node",
      node: "20.20.2",
      runner: "vitest",
      // puppeteer's Chrome download is unreachable here; these tests start no browser.
      env: { PUPPETEER_SKIP_DOWNLOAD: "true" },
      upstream: {
        install: ["pnpm i"],
        build: ["pnpm run build compiler-sfc"],
        testCommands: [
          "pnpm run test packages/compiler-sfc/__tests__/compileStyle.spec.ts --no-watch --reporter=verbose",
        ],
        logParser: "vitest",
      },
    });
  });

  it("resolves immutable-js's parser by the instance, as upstream's dispatcher does", () => {
    const parserOf = (version: string) =>
      multilingualEnvironmentFor(
        multilingualSpecFor({ repo: "immutable-js/immutable-js", version }),
        releases,
      ).upstream?.logParser;
    expect(parserOf("2005")).toBe("jest_json");
    expect(parserOf("2006")).toBe("jest");
  });

  it("refuses a line with no release before the dataset's day", () => {
    const spec = multilingualSpecFor({ repo: "preactjs/preact", version: "2757" });
    expect(() => multilingualEnvironmentFor(spec, releases)).toThrow(
      `No Node release of "16" came out before 2026-08-10 (preactjs__preact-2757's spec).`,
    );
  });
});
