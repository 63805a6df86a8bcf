import { describe, expect, it } from "vitest";
import type { NodeUpstreamCommands, Oracle } from "../../src/core/index.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { multilingualSpecFor } from "../../src/datasets/swebench/multilingual-specs.js";
import { APPLY_CHAIN, describePlan, planGrade, type GradeOptions } from "../../src/grader/index.js";
import { planUpstreamCanaries } from "../../src/grader/plan.js";
import { repoRoot } from "../helpers/temp.js";
import { testEnvironment } from "../helpers/lab.js";
import { pythonSpec } from "../helpers/fixture-suite.js";

const task = {
  suite: "demo",
  dir: "/evals/demo/tasks/acme__widget-1",
  oracleDir: "/evals/demo/oracle/acme__widget-1",
  info: { id: "acme__widget-1", repo: "acme/widget", baseCommit: "abc123", metadata: {} },
};

const testPatch = [
  "diff --git a/tests/test_widget.py b/tests/test_widget.py",
  "--- a/tests/test_widget.py",
  "+++ b/tests/test_widget.py",
  "@@ -1 +1,2 @@",
  " x = 1",
  "+y = 2",
  "diff --git a/tests/test new.py b/tests/test new.py",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/tests/test new.py",
  "@@ -0,0 +1 @@",
  "+z = 3",
  "diff --git a/tests/data.json b/tests/data.json",
  "--- a/tests/data.json",
  "+++ b/tests/data.json",
  "@@ -1 +1 @@",
  "-{}",
  "+[]",
  "",
].join("\n");

function oracle(install: string, services?: string[]): Oracle {
  return {
    goldPatch: "",
    testPatch,
    failToPass: ["tests/test_widget.py::test_a"],
    passToPass: ["tests/test_widget.py::test_b", "tests/test_widget.py::test_c"],
    environment: {
      python: "3.11",
      pins: ["pytest==8.3.4", "six==1.16.0"],
      preInstall: ["sed -i 's/a/b/' setup.cfg"],
      install,
      testCommand: "pytest -rA",
      env: {},
      logParser: "pytest_options",
      ...(services === undefined ? {} : { services }),
    },
  };
}

const options: GradeOptions = {
  scratchDir: "/scratch/grade",
  logFile: "/runs/r/grader.log",
  environment: testEnvironment(),
  setupTimeoutMs: 60_000,
  installTimeoutMs: 120_000,
  testTimeoutMs: 1_800_000,
};

describe("planGrade", () => {
  it("decides the test command, the files to reset, the parser and the places before any step runs", () => {
    const plan = planGrade(task, oracle("pip install -e ."), { patch: "" }, options);
    expect(plan.testCommand).toBe("pytest -rA tests/test_widget.py 'tests/test new.py'");
    expect(plan.resetFiles).toEqual([
      { path: "tests/test_widget.py", isNew: false, isDeleted: false },
      { path: "tests/test new.py", isNew: true, isDeleted: false },
      { path: "tests/data.json", isNew: false, isDeleted: false },
    ]);
    expect(plan.parser).toBe("pytest_options");
    expect(plan.apply).toBe(APPLY_CHAIN);
    expect(plan.places).toEqual({
      scratchDir: "/scratch/grade",
      repo: "/scratch/grade/repo",
      home: "/scratch/grade/home",
      tmp: "/scratch/grade/tmp",
      logFile: "/runs/r/grader.log",
    });
    expect(plan.limits).toEqual({ setupMs: 60_000, installMs: 120_000, testMs: 1_800_000 });
    expect(plan.keepScratch).toBe(false);
    // Canaries go into the hidden test modules pytest would find by name.
    // Must-fail canaries are made from the hidden tests that must start passing.
    expect(plan.canaries).toEqual({
      style: "pytest",
      files: ["tests/test_widget.py"],
      prefer: ["test_a"],
    });
    expect(
      planGrade(task, oracle("pip install -e ."), { patch: "" }, { ...options, canaries: false })
        .canaries,
    ).toEqual({ style: null, why: "turned off for this grade" });
  });

  it("allows the base commit's install to stand in only for an editable install, saying why not otherwise", () => {
    expect(planGrade(task, oracle("pip install -e ."), { patch: "" }, options).install).toEqual({
      preInstall: ["sed -i 's/a/b/' setup.cfg"],
      command: "pip install -e .",
      reuse: { allowed: true },
    });
    expect(planGrade(task, oracle("pip install ."), { patch: "" }, options).install.reuse).toEqual({
      allowed: false,
      why: "the install is not editable, so it copies the change's code",
    });
  });
});

describe("describePlan", () => {
  it("prints every decision as comment lines for the top of grader.log", () => {
    const text = describePlan(
      planGrade(task, oracle("pip install .", ["httpbin"]), { workTree: "/scratch/work" }, options),
    );
    expect(text.split("\n")).toEqual([
      "# lab grade: demo/acme__widget-1 at abc123",
      "# plan:",
      "#   checkout: /evals/demo/tasks/acme__widget-1/setup.sh into /scratch/grade/repo",
      "#   change: the diff of the work tree /scratch/work against the base commit",
      "#   environment: Python 3.11, 2 pin(s)",
      "#   pre-install: 1 step(s), run before the change is applied",
      "#   apply: git apply --verbose; then git apply --verbose --3way; then git apply --verbose --reject; then patch --batch --forward --fuzz=5 -p1 -i",
      "#   install: pip install . (always fresh: the install is not editable, so it copies the change's code)",
      "#   reset: tests/test_widget.py, tests/test new.py (new), tests/data.json",
      "#   tests: pytest -rA tests/test_widget.py 'tests/test new.py'",
      "#   parser: pytest_options; 1 FAIL_TO_PASS, 2 PASS_TO_PASS",
      "#   canaries: pytest canaries in 1 hidden test module(s)",
      "#   services: httpbin",
      "#   limits: setup 60 s, each install 120 s, tests 1800 s",
      "#   sandbox: bwrap if it runs here, else none",
      "",
    ]);
  });
});

describe("planGrade for other runners", () => {
  it("turns the test patch into Django's test labels and keeps pre-test lines apart from the command", () => {
    const djangoPatch = [
      "diff --git a/tests/admin_views/test_forms.py b/tests/admin_views/test_forms.py",
      "--- a/tests/admin_views/test_forms.py",
      "+++ b/tests/admin_views/test_forms.py",
      "@@ -1 +1,2 @@",
      " x = 1",
      "+y = 2",
      "",
    ].join("\n");
    const base = oracle("python setup.py install");
    const plan = planGrade(
      task,
      {
        ...base,
        testPatch: djangoPatch,
        environment: {
          ...pythonSpec(base.environment),
          testCommand: "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1",
          testDirectiveRule: "django",
          preTest: ["export LANG=en_US.UTF-8"],
          logParser: "django",
        },
      },
      { patch: "" },
      options,
    );
    expect(plan.testCommand).toBe(
      "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 admin_views.test_forms",
    );
    expect(plan.preTest).toEqual(["export LANG=en_US.UTF-8"]);
    expect(plan.parser).toBe("django");
    expect(describePlan(plan)).toContain("#   pre-test: export LANG=en_US.UTF-8\n");
  });
});

describe("the plan of a JS task", () => {
  const jsPatch = [
    "diff --git a/test/add.test.js b/test/add.test.js",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/test/add.test.js",
    "@@ -0,0 +1 @@",
    "+test('adds', () => {});",
    "diff --git a/test/fixtures/data.json b/test/fixtures/data.json",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/test/fixtures/data.json",
    "@@ -0,0 +1 @@",
    "+{}",
    "diff --git a/test/old.test.js b/test/old.test.js",
    "deleted file mode 100644",
    "--- a/test/old.test.js",
    "+++ /dev/null",
    "@@ -1 +0,0 @@",
    "-test('old', () => {});",
    "",
  ].join("\n");
  const jsOracle: Oracle = {
    goldPatch: "",
    testPatch: jsPatch,
    failToPass: ["test/add.test.js > adds"],
    passToPass: [],
    environment: {
      kind: "node",
      node: "20.11.1",
      packageManager: "npm@10.2.4",
      runner: "jest",
      env: {},
    },
  };

  it("runs only the hidden test files with the runner's reporter, and plants no canaries", () => {
    const plan = planGrade(task, jsOracle, { patch: "" }, options);
    expect(plan.js).toEqual({
      runner: "jest",
      testFiles: ["test/add.test.js"],
      resultsPath: "/scratch/grade/tmp/lab-js-results",
      upstream: null,
    });
    expect(plan.parser).toBe("js-results");
    expect(plan.testCommand).toContain("--runTestsByPath test/add.test.js");
    const text = describePlan(plan);
    expect(text).toContain(
      "#   environment: Node 20.11.1, npm@10.2.4 (both from the npm registry, in lab's cache)\n",
    );
    expect(text).toContain(
      "#   tests: jest on test/add.test.js only, its results written to /scratch/grade/tmp/lab-js-results\n",
    );
    expect(text).toContain("#   canaries: js canaries in 1 hidden test module(s)\n");
    expect(text).toContain(
      "#   reset: test/add.test.js (new), test/fixtures/data.json (new), test/old.test.js\n",
    );
  });

  /** The plan of the JS task graded by upstream's commands. */
  const planUpstream = (upstream: NodeUpstreamCommands) =>
    planGrade(
      task,
      {
        ...jsOracle,
        environment: {
          kind: "node",
          node: "20.11.1",
          packageManager: "npm@10.2.4",
          runner: "jest",
          env: {},
          upstream,
        },
      },
      { patch: "" },
      options,
    );

  it("runs upstream's commands with upstream's parser when the spec has them, with canaries judged by that parser's ids", () => {
    const upstream = {
      install: ["npm install"],
      build: ["npm run build"],
      testCommands: ["npx jest __tests__/Range.ts --verbose"],
      logParser: "jest" as const,
    };
    const plan = planUpstream(upstream);
    expect(plan.js?.upstream).toEqual(upstream);
    expect(plan.parser).toBe("jest");
    expect(plan.testCommand).toBe(
      "set -uo pipefail\n(npx jest __tests__/Range.ts --verbose) | cat",
    );
    expect(plan.preTest).toEqual(["npm run build"]);
    // The instance's ids, which no canary's title may take (upstream's ids name no file).
    expect(plan.canaries).toEqual({
      style: "js",
      files: ["test/add.test.js"],
      prefer: ["adds"],
      upstream: { parser: "jest", known: ["test/add.test.js > adds"] },
    });
    const text = describePlan(plan);
    expect(text).toContain("#   canaries: js canaries in 1 hidden test module(s)\n");
    expect(text).toContain("#   tests: npx jest __tests__/Range.ts --verbose\n");
    expect(text).toContain(
      "#   parser: upstream's parse_log_jest; 1 FAIL_TO_PASS, 0 PASS_TO_PASS\n",
    );
    expect(text).toContain("#   install: upstream's npm install && npm run build (");
  });

  it.each([
    [
      'yarn jest babel-parser -t "arrow" --verbose',
      "jest",
      "upstream's test command selects tests by title",
    ],
    [
      "npx mocha -R tap test/unit/adapters/http.js -g 'body length'",
      "tap",
      "upstream's test command selects tests by title",
    ],
    [
      'npx qunit test/unit/src/core/Object3D.tests.js -f "/json|clone|copy/i"',
      "tap",
      "upstream's test command selects tests by title",
    ],
    [
      "timeout 10s npx mocha -R tap test/unit/adapters/http.js",
      "tap",
      "upstream's test command is cut short by timeout",
    ],
    [
      'npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
      "karma",
      null,
    ],
    ["pnpm run test packages/x/__tests__/a.spec.ts --no-watch --reporter=verbose", "vitest", null],
  ] as const)("by upstream's `%s` (%s): canaries %s", (command, logParser, why) => {
    const plan = planUpstream({ install: [], build: [], testCommands: [command], logParser });
    // preact's karma.conf.js takes --grep for the test files' pattern, not for titles.
    expect(plan.canaries).toEqual(
      why === null
        ? {
            style: "js",
            files: ["test/add.test.js"],
            prefer: ["adds"],
            upstream: { parser: logParser, known: ["test/add.test.js > adds"] },
          }
        : { style: null, why },
    );
  });

  it("plants canaries in 34 of SWE-bench Multilingual's 43 JS/TS instances, as the design notes say", () => {
    const specs = JSON.parse(
      readFileSync(
        path.join(repoRoot, "data", "swebench", "multilingual", "specs-javascript.json"),
        "utf8",
      ),
    ) as { repos: Record<string, { versions: Record<string, unknown> }> };
    const without = Object.entries(specs.repos).flatMap(([repo, { versions }]) =>
      Object.keys(versions).flatMap((version) => {
        const spec = multilingualSpecFor({ repo, version });
        const logParser = spec.logParser === "immutable_js" ? "jest" : spec.logParser;
        const plan = planUpstreamCanaries(
          { install: spec.install, build: spec.build, testCommands: spec.testCommands, logParser },
          ["test/a.test.js"],
          { failToPass: [], passToPass: [] },
          true,
        );
        return plan.style === null ? [spec.instanceId] : [];
      }),
    );
    expect(without.sort()).toEqual([
      "axios__axios-4731",
      "axios__axios-4738",
      "axios__axios-5316",
      "axios__axios-5892",
      "babel__babel-13928",
      "babel__babel-15445",
      "mrdoob__three.js-25687",
      "vuejs__core-11739",
      "vuejs__core-11915",
    ]);
  });
});
