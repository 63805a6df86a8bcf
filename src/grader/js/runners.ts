/**
 * Which JavaScript test runner a project uses, read from its package.json and the names of its
 * files, never by running anything: what the project's own `npm test` would run says the most
 * (`scripts.test`, following the scripts it calls), then runner config files, then dependencies.
 */

/** The JavaScript test runners lab can run and read: jest, vitest, mocha and Node's own. */
export type JsTestRunner = "jest" | "vitest" | "mocha" | "node:test";

/** A runner found, with what showed it (for a log line), or none and why. */
export type JsRunnerDetection =
  | { readonly runner: JsTestRunner; readonly evidence: string }
  | { readonly runner: null; readonly reason: string };

/** A runner a script, a config file or a dependency names, supported or not, and where it was seen. */
interface Sighting {
  /** A JsTestRunner, or the name of a runner lab does not support. */
  readonly runner: string;
  readonly evidence: string;
}

const SUPPORTED: readonly string[] = ["jest", "vitest", "mocha", "node:test"];

/** Command words that run a supported runner. `react-scripts test` and `craco test` run jest. */
const RUNNER_WORDS: Readonly<Record<string, JsTestRunner>> = {
  jest: "jest",
  vitest: "vitest",
  mocha: "mocha",
  _mocha: "mocha",
  "ts-mocha": "mocha",
};

/** Command words of runners lab does not run yet (the name a user would recognise). */
const UNSUPPORTED_WORDS: Readonly<Record<string, string>> = {
  karma: "karma",
  ava: "ava",
  tap: "tap",
  tape: "tape",
  jasmine: "jasmine",
  qunit: "qunit",
  uvu: "uvu",
  playwright: "playwright",
  cypress: "cypress",
  wdio: "webdriverio",
  "web-test-runner": "@web/test-runner",
  wtr: "@web/test-runner",
  testem: "testem",
  lab: "@hapi/lab",
  zora: "zora",
  brittle: "brittle",
};

/** Words that run the next word as a command, possibly after flags and VAR=value settings. */
const WRAPPERS = new Set([
  "npx",
  "cross-env",
  "env",
  "nyc",
  "c8",
  "dotenv",
  "time",
  "nice",
  "exec",
]);

/** Package managers whose `run X` (or bare `X`, for yarn and pnpm) runs script X. */
const PACKAGE_MANAGERS = new Set(["npm", "yarn", "pnpm", "bun"]);

/** Runners whose scripts call scripts in turn, each argument a script name or a `name:*` glob. */
const SCRIPT_SEQUENCERS = new Set(["run-s", "run-p", "npm-run-all", "npm-run-all2"]);

/** How deep script-calls-script chains are followed: a cycle or a long chain stops here. */
const MAX_SCRIPT_DEPTH = 8;

/** Dependencies that mean a runner, supported or not. */
const RUNNER_PACKAGES: Readonly<Record<string, string>> = {
  jest: "jest",
  "ts-jest": "jest",
  "babel-jest": "jest",
  "react-scripts": "jest",
  vitest: "vitest",
  mocha: "mocha",
  "ts-mocha": "mocha",
  karma: "karma",
  ava: "ava",
  tap: "tap",
  tape: "tape",
  jasmine: "jasmine",
  qunit: "qunit",
  uvu: "uvu",
  "@web/test-runner": "@web/test-runner",
};

/** Config files at the root (with package.json's own keys, below) that name a runner. */
const CONFIG_FILES: readonly (readonly [RegExp, string])[] = [
  [/^jest\.config\.(js|cjs|mjs|ts|cts|mts|json)$/, "jest"],
  [/^vitest\.(config|workspace)\.(js|cjs|mjs|ts|cts|mts|json)$/, "vitest"],
  [/^\.mocharc(\.(js|cjs|mjs|json|jsonc|yaml|yml))?$/, "mocha"],
  [/^test\/mocha\.opts$/, "mocha"],
  [/^karma\.conf\.(js|cjs|mjs|ts)$/, "karma"],
  [/^ava\.config\.(js|cjs|mjs)$/, "ava"],
  [/^\.taprc$/, "tap"],
  [/^spec\/support\/jasmine\.json$/, "jasmine"],
];

/** package.json keys that configure a runner. */
const CONFIG_KEYS: Readonly<Record<string, string>> = {
  jest: "jest",
  mocha: "mocha",
  ava: "ava",
  tap: "tap",
};

/**
 * The project's test runner, from its parsed package.json and the repository-relative paths of
 * its files (only root-level config files and `test/mocha.opts` are looked at).
 *
 * The test script wins: a runner it runs, directly or through `npm run X`, `yarn X`, `pnpm X`,
 * `run-s`/`npm-run-all` and wrappers such as `cross-env`, `nyc` or `npx`, is the answer even when
 * other runners' configs are present; the first supported one in script order when it runs
 * several. A script that runs only unsupported runners (karma, ava, ...) gives null saying so.
 * Without a runner in the script, a runner's config file or package.json key decides, then the
 * dependencies; two runners tied at one level give null rather than a guess.
 */
export function jsTestRunnerFor(packageJson: unknown, files: readonly string[]): JsRunnerDetection {
  const manifest = isRecord(packageJson) ? packageJson : {};
  const scripts = stringRecord(manifest.scripts);
  const fromScript = scripts.test === undefined ? [] : scriptSightings(scripts, "test", [], 0);
  const chosen = fromScript.find((sighting) => isSupported(sighting.runner));
  if (chosen !== undefined) {
    const others = distinct(fromScript.map((s) => s.runner)).filter((r) => r !== chosen.runner);
    const also = others.length === 0 ? "" : ` (the script also runs ${others.join(", ")})`;
    return { runner: chosen.runner as JsTestRunner, evidence: chosen.evidence + also };
  }
  const unsupported = fromScript[0];
  if (unsupported !== undefined) return notSupported(unsupported);
  for (const [level, sightings] of [
    ["config files", configSightings(manifest, files)],
    ["dependencies", dependencySightings(manifest)],
  ] as const) {
    const decided = decide(level, sightings);
    if (decided !== null) return decided;
  }
  return {
    runner: null,
    reason:
      "no test runner found: scripts.test runs none lab knows, and no jest, vitest or mocha " +
      "config file or dependency is present",
  };
}

/** The runners seen at one level of evidence, or null to look at the next level. */
function decide(level: string, sightings: readonly Sighting[]): JsRunnerDetection | null {
  const supported = sightings.filter((s) => isSupported(s.runner));
  const runners = distinct(supported.map((s) => s.runner));
  const first = supported[0];
  if (first !== undefined && runners.length === 1) {
    return { runner: first.runner as JsTestRunner, evidence: first.evidence };
  }
  if (runners.length > 1) {
    return {
      runner: null,
      reason: `${level} name several runners (${supported.map((s) => s.evidence).join(", ")}) and scripts.test does not say which one runs the tests`,
    };
  }
  const unsupported = sightings[0];
  return unsupported === undefined ? null : notSupported(unsupported);
}

/** The null answer for a runner lab does not run yet. */
function notSupported(sighting: Sighting): JsRunnerDetection {
  return {
    runner: null,
    reason: `${sighting.runner} (${sighting.evidence}) is not supported yet: lab runs jest, vitest, mocha and node:test`,
  };
}

/** The runners script `name` runs, in order, following the scripts it calls. */
function scriptSightings(
  scripts: Readonly<Record<string, string>>,
  name: string,
  chain: readonly string[],
  depth: number,
): Sighting[] {
  const body = scripts[name];
  if (body === undefined || depth > MAX_SCRIPT_DEPTH || chain.includes(name)) return [];
  const where = [...chain, name].map((step) => `scripts[${JSON.stringify(step)}]`).join(" -> ");
  const evidence = `${where}: ${JSON.stringify(body)}`;
  const sightings: Sighting[] = [];
  for (const segment of body.split(/&&|\|\||[;|&]/)) {
    const words = segment
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/^["']|["']$/g, ""))
      .filter((word) => word !== "");
    const seen = commandSighting(words);
    if (seen === null) continue;
    if (typeof seen === "string") {
      sightings.push({ runner: seen, evidence });
    } else {
      for (const called of seen.scripts.flatMap((pattern) => matchScripts(scripts, pattern))) {
        sightings.push(...scriptSightings(scripts, called, [...chain, name], depth + 1));
      }
    }
  }
  return sightings;
}

/**
 * What one simple command runs: a runner's name, the scripts it calls, or null. Leading
 * `VAR=value` settings and wrapper commands (with their flags) are skipped to the command they
 * run; after a wrapper an unknown word is read as a flag's value (`nyc --reporter lcov mocha`).
 */
function commandSighting(words: readonly string[]): string | { scripts: string[] } | null {
  let afterWrapper = false;
  for (let index = 0; index < words.length; index++) {
    const raw = words[index] ?? "";
    if (/^(-|[A-Za-z_][A-Za-z0-9_]*=)/.test(raw)) continue;
    const word = commandName(raw);
    const next = words[index + 1];
    if (WRAPPERS.has(word)) {
      afterWrapper = true;
      continue;
    }
    if (PACKAGE_MANAGERS.has(word) && next === "exec") {
      afterWrapper = true;
      index++;
      continue;
    }
    if (word === "react-scripts" || word === "craco") return next === "test" ? "jest" : null;
    if (word === "node" || word === "tsx") return nodeSighting(words.slice(index + 1));
    if (word === "bun" && next === "test") return "bun test";
    if (word === "deno" && next === "test") return "deno test";
    if (word === "ng") return next === "test" ? "karma (ng test)" : null;
    if (PACKAGE_MANAGERS.has(word)) return scriptCall(word, words.slice(index + 1));
    if (SCRIPT_SEQUENCERS.has(word)) {
      return { scripts: words.slice(index + 1).filter((arg) => !arg.startsWith("-")) };
    }
    const runner = RUNNER_WORDS[word] ?? UNSUPPORTED_WORDS[word];
    if (runner !== undefined) return runner;
    if (!afterWrapper) return null;
  }
  return null;
}

/** `node [flags] --test ...` is node:test; `node [flags] path/to/jest.js` is what the path names. */
function nodeSighting(args: readonly string[]): string | null {
  for (const arg of args) {
    if (arg === "--test" || arg.startsWith("--test=")) return "node:test";
    if (arg.startsWith("-")) continue;
    // The first non-flag is the script (a flag's separate value, e.g. `--import tsx`, is not a
    // runner's name either, so reading it as one is harmless).
    const name = commandName(arg);
    const runner = RUNNER_WORDS[name] ?? UNSUPPORTED_WORDS[name];
    if (runner !== undefined) return runner;
  }
  return null;
}

/** The scripts `npm run X`, `npm test`, `yarn X`, `pnpm run X` and the like call. */
function scriptCall(manager: string, args: readonly string[]): { scripts: string[] } | null {
  const [first, second] = args.filter((arg) => !arg.startsWith("-"));
  if (first === undefined) return null;
  if (first === "test" || first === "t") return { scripts: ["test"] };
  if (first === "run" || first === "run-script") {
    return second === undefined ? null : { scripts: [second] };
  }
  // `yarn X` and `pnpm X` run script X; npm and bun need `run`.
  return manager === "yarn" || manager === "pnpm" ? { scripts: [first] } : null;
}

/** The script names a `run-s` argument stands for: itself, or every `name:*` match of a glob. */
function matchScripts(scripts: Readonly<Record<string, string>>, pattern: string): string[] {
  if (!pattern.includes("*")) return [pattern];
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*\*?/g, ".*");
  const regex = new RegExp(`^${escaped}$`);
  return Object.keys(scripts).filter((name) => regex.test(name));
}

/** A command word's name: its path's last part without a .js/.cjs/.mjs ending. */
function commandName(word: string): string {
  return (word.split("/").at(-1) ?? "").replace(/\.(c|m)?js$/, "");
}

/** Runners named by root-level config files and package.json keys. */
function configSightings(manifest: Readonly<Record<string, unknown>>, files: readonly string[]) {
  const sightings: Sighting[] = [];
  for (const file of [...files].sort()) {
    const match = CONFIG_FILES.find(([pattern]) => pattern.test(file));
    if (match !== undefined) sightings.push({ runner: match[1], evidence: file });
  }
  for (const [key, runner] of Object.entries(CONFIG_KEYS)) {
    if (manifest[key] !== undefined) sightings.push({ runner, evidence: `package.json "${key}"` });
  }
  return sightings;
}

/** Runners named by dependencies, devDependencies first. */
function dependencySightings(manifest: Readonly<Record<string, unknown>>): Sighting[] {
  const sightings: Sighting[] = [];
  for (const field of ["devDependencies", "dependencies"]) {
    for (const name of Object.keys(stringRecord(manifest[field])).sort()) {
      const runner = RUNNER_PACKAGES[name];
      if (runner !== undefined) sightings.push({ runner, evidence: `${field}.${name}` });
    }
  }
  return sightings;
}

function isSupported(runner: string): boolean {
  return SUPPORTED.includes(runner);
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The string-valued entries of an object field of package.json (others are ignored). */
function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
}
