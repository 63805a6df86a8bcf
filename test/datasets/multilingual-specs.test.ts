/**
 * lab's SWE-bench Multilingual JS/TS specs as shipped (data/swebench/multilingual/), read through
 * multilingualSpecFor: real instances' lookups, the whole table's shape, and the errors for a
 * version, a repository of another language and a repository outside the dataset.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isLabError, JS_LOG_PARSERS } from "../../src/core/index.js";
import {
  MULTILINGUAL_DATA_DIR,
  multilingualSpecFor,
  type MultilingualSpec,
} from "../../src/datasets/index.js";
import { parseTestLog } from "../../src/grader/parse-log.js";

/** The languages file as shipped: every repository of the dataset, with its versions. */
const languages = JSON.parse(
  readFileSync(path.join(MULTILINGUAL_DATA_DIR, "languages.json"), "utf8"),
) as {
  instances: number;
  languages: Record<
    string,
    { supported: boolean; instances: number; repos: Record<string, { versions: string[] }> }
  >;
};
const javascript = languages.languages.javascript;

/** The error a lookup throws (the test fails when there is none). */
function lookupError(repo: string, version: string): Error & { code?: string; hint?: string } {
  try {
    multilingualSpecFor({ repo, version });
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${repo} ${version} has a spec`);
}

describe("multilingualSpecFor", () => {
  it("gives preact 3062 its Node 16 image, npm install and its karma command", () => {
    expect(multilingualSpecFor({ repo: "preactjs/preact", version: "3062" })).toEqual({
      repo: "preactjs/preact",
      version: "3062",
      instanceId: "preactjs__preact-3062",
      nodeVersion: "16",
      dockerVariant: "js_2",
      ubuntuVersion: "22.04",
      preInstall: [],
      install: ["npm install"],
      build: [],
      testCommands: [
        'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
      ],
      logParser: "karma",
      upstreamLogParser: "parse_log_karma",
      evalType: "pass_and_fail",
      testFramework: "karma: mocha in headless Chrome, the mocha reporter's ✔/✖ tree",
      notes: [],
    } satisfies MultilingualSpec);
  });

  it("keeps the build steps upstream runs again after the test patch", () => {
    const vue = multilingualSpecFor({ repo: "vuejs/core", version: "11899" });
    expect([vue.install, vue.build, vue.logParser]).toEqual([
      ["pnpm i"],
      ["pnpm run build compiler-sfc"],
      "vitest",
    ]);
    const babel = multilingualSpecFor({ repo: "babel/babel", version: "14532" });
    expect([babel.install, babel.build, babel.testCommands]).toEqual([
      ["make bootstrap"],
      ["make build"],
      ["yarn jest babel-generator --verbose"],
    ]);
    const axios = multilingualSpecFor({ repo: "axios/axios", version: "5316" });
    expect([axios.build, axios.logParser, axios.notes.join(" ")]).toEqual([
      ["npm install"],
      "tap",
      expect.stringContaining("adding a new dependency"),
    ]);
  });

  it("names immutable-js's parser as upstream maps it, and the instance id picks the runner", () => {
    const spec = multilingualSpecFor({ repo: "immutable-js/immutable-js", version: "2005" });
    expect(spec.logParser).toBe("immutable_js");
    expect(spec.testCommands[0]).toContain("--json | jq -r");
    const log = "[PASSED] OrderedSet > has\n[FAILED] OrderedSet > hashCode";
    expect(parseTestLog(log, spec.logParser, { instanceId: spec.instanceId })).toEqual({
      "OrderedSet > has": "PASSED",
      "OrderedSet > hashCode": "FAILED",
    });
  });

  it("has a spec for each of the dataset's 43 JS/TS instances, and only for them", () => {
    expect(javascript?.supported).toBe(true);
    expect(javascript?.instances).toBe(43);
    const counts: Record<string, number> = {};
    for (const [repo, { versions }] of Object.entries(javascript?.repos ?? {})) {
      counts[repo] = versions.length;
      for (const version of versions) {
        const spec = multilingualSpecFor({ repo, version });
        expect(spec.instanceId).toBe(`${repo.replace("/", "__")}-${version}`);
        expect(JS_LOG_PARSERS).toContain(spec.logParser);
        expect(["16", "18", "20"]).toContain(spec.nodeVersion);
        expect(spec.testCommands.length, spec.instanceId).toBe(1);
      }
    }
    expect(counts).toEqual({
      "axios/axios": 6,
      "babel/babel": 5,
      "facebook/docusaurus": 5,
      "immutable-js/immutable-js": 2,
      "mrdoob/three.js": 3,
      "preactjs/preact": 17,
      "vuejs/core": 5,
    });
    const total = Object.values(languages.languages).reduce((sum, l) => sum + l.instances, 0);
    expect([total, languages.instances]).toEqual([300, 300]);
  });

  it("names the repository and version it has no spec for, and lists the versions it has", () => {
    const error = lookupError("vuejs/core", "99999");
    expect(isLabError(error)).toBe(true);
    expect(error.code).toBe("TASK_NOT_FOUND");
    expect(error.message).toContain("vuejs/core version 99999");
    expect(error.hint).toContain("11589, 11739, 11870, 11899, 11915");
  });

  it("says why a repository of another language is not supported here", () => {
    const error = lookupError("gin-gonic/gin", "3741");
    expect(error.code).toBe("TASK_NOT_FOUND");
    expect(error.message).toContain("gin-gonic/gin is Go");
    expect(error.message).toContain("Go module proxy");
    expect(lookupError("tokio-rs/tokio", "6724").message).toContain("is Rust");
  });

  it("says when a repository is not in the dataset at all", () => {
    const error = lookupError("psf/requests", "2.3");
    expect(error.message).toContain("psf/requests is not a repository of SWE-bench Multilingual");
    expect(error.hint).toContain("preactjs/preact");
  });
});
