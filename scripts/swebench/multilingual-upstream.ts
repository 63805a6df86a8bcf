/**
 * Where transcribe-multilingual.ts reads upstream, and what lab writes beside upstream's data:
 * each JS/TS repository's test framework, upstream's comments on single specs, the JS image's
 * steps in words, and why each other language is not supported on this machine.
 */

/** The upstream commits and files (paths are `commit:path` in the data's provenance). */
export const MULTILINGUAL = {
  specs: {
    commit: "a62387db10d304aa2df9d360a00415594db5e7c4",
    files: {
      specs: "swebench/harness/constants/javascript.py",
      constants: "swebench/harness/constants/__init__.py",
      logParsers: "swebench/harness/log_parsers/javascript.py",
      dockerfile: "swebench/harness/dockerfiles/javascript.py",
      scripts: "swebench/harness/test_spec/utils.py",
    },
    /** Each language's spec table, whose keys say which language a repository is. */
    languages: {
      c: "swebench/harness/constants/c.py",
      go: "swebench/harness/constants/go.py",
      java: "swebench/harness/constants/java.py",
      javascript: "swebench/harness/constants/javascript.py",
      php: "swebench/harness/constants/php.py",
      ruby: "swebench/harness/constants/ruby.py",
      rust: "swebench/harness/constants/rust.py",
    },
  },
  dataset: {
    commit: "9fa561428aeef6406f534c8370c670f9ce51c630",
    path: "data/SWE-bench_Multilingual/test.parquet",
  },
  /** `_DOCKERFILE_BASE_JS_2` in words: the image every spec with `_variant: js_2` runs in. */
  dockerVariants: {
    js_2: {
      upstream:
        "_DOCKERFILE_BASE_JS_2, built as both the base and the env image when docker_specs._variant is js_2",
      from: "ubuntu:{ubuntu_version}",
      env: {
        TZ: "Etc/UTC",
        CHROME_BIN: "/usr/bin/google-chrome",
        CHROME_PATH: "/usr/bin/google-chrome",
      },
      aptPackages: [
        "wget",
        "curl",
        "git",
        "build-essential",
        "jq",
        "gnupg",
        "ca-certificates",
        "apt-transport-https",
      ],
      node: "NodeSource's apt setup script for {node_version}.x, then apt-get install nodejs: the newest release of that major line on the day the image was built",
      pnpm: ["npm install --global corepack@latest", "corepack enable pnpm"],
      browser: "google-chrome-stable from Google's apt repository",
      user: "adduser nonroot; the specs' commands run as root",
    },
  },
} as const;

/** Lines `_DOCKERFILE_BASE_JS_2` must hold for the summary above to stand (the script checks). */
export const DOCKERFILE_MUST_HOLD = [
  "_DOCKERFILE_BASE_JS_2",
  "FROM --platform={platform} ubuntu:{ubuntu_version}",
  "ENV TZ=Etc/UTC",
  "setup_{node_version}.x | bash -",
  "apt-get install -y nodejs",
  "npm install --global corepack@latest",
  "corepack enable pnpm",
  "apt-get install -y google-chrome-stable",
  "ENV CHROME_BIN /usr/bin/google-chrome",
  "ENV CHROME_PATH /usr/bin/google-chrome",
  "adduser --disabled-password --gecos 'dog' nonroot",
  ...MULTILINGUAL.dockerVariants.js_2.aptPackages.map((name) => `    ${name}`),
];

/** Lab's reading of each repository's test command: the runner and the output it parses. */
export const TEST_FRAMEWORK: Readonly<Record<string, string>> = {
  "axios/axios": "mocha, TAP reporter (-R tap)",
  "babel/babel": "jest --verbose (yarn jest)",
  "facebook/docusaurus": "jest --verbose (yarn test)",
  "immutable-js/immutable-js": "jest: --verbose for 2006, --json through jq for 2005",
  "mrdoob/three.js": "QUnit's CLI (npx qunit), TAP output",
  "preactjs/preact": "karma: mocha in headless Chrome, the mocha reporter's ✔/✖ tree",
  "vuejs/core": "vitest --reporter=verbose (pnpm run test)",
};

/** Upstream's comments on single specs, which executing the table loses, and the parser picks. */
export const VERSION_NOTES: Readonly<Record<string, readonly string[]>> = {
  "axios__axios-4738": [
    "Upstream's comment: 'Tests get stuck for some reason, so we run them with a timeout' (timeout 10s).",
  ],
  "axios__axios-5316": [
    "Upstream's comment on build: 'Patch involves adding a new dependency, so we need to re-install'. The eval script runs npm install after the test patch, so grading needs the npm registry.",
  ],
  "immutable-js__immutable-js-2005": [
    "parse_log_immutable_js reads this instance with parse_log_jest_json (the jq lines).",
  ],
  "immutable-js__immutable-js-2006": [
    "parse_log_immutable_js reads this instance with parse_log_jest.",
  ],
  "mrdoob__three.js-25687": [
    "Upstream's comment on 27395's install: '--ignore-scripts is used to avoid downloading chrome for puppeteer'.",
  ],
  "mrdoob__three.js-26589": [
    "Upstream's comment on 27395's install: '--ignore-scripts is used to avoid downloading chrome for puppeteer'.",
  ],
  "mrdoob__three.js-27395": [
    "Upstream's comment: '--ignore-scripts is used to avoid downloading chrome for puppeteer'.",
  ],
};

/** Whether lab targets each language of the dataset, and why not where it does not. */
export const SUPPORT: Readonly<Record<string, { label: string; supported: boolean; why: string }>> =
  {
    javascript: {
      label: "JavaScript/TypeScript",
      supported: true,
      why: "The instances lab targets: their installs need only the npm registry, which this machine reaches, and Node (20 here). Specs in specs-javascript.json, parsers in src/grader/parse-log-js.ts; none is proven here yet.",
    },
    c: {
      label: "C/C++",
      supported: false,
      why: "No package registry, but jq's and micropython's builds fetch git submodules from GitHub, which this machine cannot reach, and lab has none of their runners' parsers (redis's and valkey's tcl runner, googletest, doctest, micropython's run-tests).",
    },
    go: {
      label: "Go",
      supported: false,
      why: "Modules come from the Go module proxy, which this machine cannot reach; upstream's image also downloads a Go toolchain release.",
    },
    java: {
      label: "Java",
      supported: false,
      why: "Dependencies come from Maven Central and Gradle's plugin portal, which this machine cannot reach; upstream's image also downloads mvnd.",
    },
    php: {
      label: "PHP",
      supported: false,
      why: "Packages come from Packagist through composer, which this machine cannot reach; upstream's image also downloads composer's installer.",
    },
    ruby: {
      label: "Ruby",
      supported: false,
      why: "Gems come from RubyGems through bundler, which this machine cannot reach.",
    },
    rust: {
      label: "Rust",
      supported: false,
      why: "Crates come from Rust's crate registry, which this machine cannot reach; upstream builds on the rust:<version> image's toolchain.",
    },
  };

/**
 * Reads upstream's Python on stdin ({name: source}) and prints JSON: the JS spec table executed
 * with no builtins (it builds its dicts with comprehensions and loops), everything else read with
 * ast, never run.
 */
export const PY_READER = String.raw`
import ast, json, sys
src = json.load(sys.stdin)

def value(tree, name):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    raise SystemExit("no " + name)

def names(tree, name):
    node = value(tree, name)
    return {k.value: v.id for k, v in zip(node.keys, node.values)}

scope = {"__builtins__": {}}
exec(src["specs"], scope)
specs = {repo: {str(v): s for v, s in table.items()} for repo, table in scope["MAP_REPO_VERSION_TO_SPECS_JS"].items()}
constants = ast.parse(src["constants"])
languages = {}
for key, text in src.items():
    if key.startswith("language:"):
        tree = ast.parse(text)
        table = [n.targets[0].id for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and n.targets[0].id.startswith("MAP_REPO_VERSION_TO_SPECS_")]
        languages[key.split(":", 1)[1]] = sorted(names(tree, table[0]))
json.dump({
    "specs": specs,
    "tables": names(ast.parse(src["specs"]), "MAP_REPO_VERSION_TO_SPECS_JS"),
    "parsers": {repo: fn for repo, fn in names(ast.parse(src["logParsers"]), "MAP_REPO_TO_PARSER_JS").items()},
    "defaults": ast.literal_eval(value(constants, "DEFAULT_DOCKER_SPECS")),
    "failOnly": sorted(ast.literal_eval(value(constants, "FAIL_ONLY_REPOS"))),
    "languages": languages,
}, sys.stdout)
`;
