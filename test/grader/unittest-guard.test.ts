/**
 * lab's runner guard for unittest (`unittest-guard.py.ts`) against real Django from PyPI: a
 * tiny project whose tests/runtests.py drives DiscoverRunner the way Django's own does, with
 * canaries planted by lab, run as the grader runs it and judged as the grader judges it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PythonEnvironmentSpec } from "../../src/core/index.js";
import { prepareEnvironment, type PreparedEnvironment } from "../../src/environment/index.js";
import { seededRandom } from "../../src/grader/canary-source.js";
import { planCanaries, plantCanaries, type PlantedCanaries } from "../../src/grader/canaries.js";
import { judgeTestLog, type Verdict } from "../../src/grader/judge.js";
import { runnerGuardEnv, writeRunnerGuard } from "../../src/grader/runner-guard.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

/** Django eras of SWE-bench Lite's django instances: 3.0 (unittest ids of old) and 4.2 on 3.11. */
const ERAS: readonly { python: string; pins: string[] }[] = [
  {
    python: "3.9",
    pins: ["Django==3.0.14", "asgiref==3.4.1", "sqlparse==0.4.4", "pytz==2024.2"],
  },
  { python: "3.11", pins: ["Django==4.2.16", "asgiref==3.8.1", "sqlparse==0.5.1"] },
];

const TEST_COMMAND = "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1";

/** Django's tests/runtests.py, cut down: settings, get_runner, DiscoverRunner.run_tests. */
const RUNTESTS = `#!/usr/bin/env python
import argparse
import atexit
import os
import shutil
import sys
import tempfile

import django
from django.conf import settings
from django.test.utils import get_runner

TMPDIR = tempfile.mkdtemp(prefix="django_")
atexit.register(shutil.rmtree, TMPDIR)


def django_tests(verbosity, parallel, test_labels):
    django.setup()
    TestRunner = get_runner(settings)
    test_runner = TestRunner(verbosity=verbosity, interactive=False, parallel=parallel)
    return test_runner.run_tests(test_labels)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("modules", nargs="*")
    parser.add_argument("-v", "--verbosity", default=1, type=int)
    parser.add_argument("--settings")
    parser.add_argument("--parallel", default=0, type=int)
    options = parser.parse_args()
    os.environ["DJANGO_SETTINGS_MODULE"] = options.settings or "test_sqlite"
    sys.exit(bool(django_tests(options.verbosity, options.parallel, options.modules)))
`;

/** The hidden tests: test_two fails until the project is fixed. */
const TESTS = `from django.test import SimpleTestCase

from pkg import value


class ThingTests(SimpleTestCase):
    def test_one(self):
        self.assertEqual(value(1), 1)

    def test_two(self):
        self.assertEqual(value(2), 2)
`;

/**
 * Honest tests that touch what the guard watches, each undoing what it did: a mock of a result
 * method, a run of an inner suite by a runner of its own, a setting of TestCase, a child Python
 * (which must see nothing of lab's), and the site's own sitecustomize (which must still run).
 */
const BUSY = `import os
import subprocess
import sys
import unittest
from unittest import mock

from django.test import SimpleTestCase

unittest.TestCase.maxDiff = None


class QuietRunner(unittest.TextTestRunner):
    pass


class BusyTests(SimpleTestCase):
    def test_mocked_result(self):
        with mock.patch.object(unittest.TextTestResult, "addFailure"):
            self.assertTrue(True)

    def test_inner_run(self):
        class Inner(unittest.TestCase):
            def test_no(self):
                self.fail("no")

        with open(os.devnull, "w") as stream:
            result = QuietRunner(stream=stream).run(unittest.defaultTestLoader.loadTestsFromTestCase(Inner))
        self.assertEqual(len(result.failures), 1)

    def test_child_python(self):
        out = subprocess.check_output(
            [sys.executable, "-c", "import os; print(os.environ.get('LAB_RUNNER_GUARD'))"]
        )
        self.assertEqual(out.strip(), b"None")

    def test_site_customized(self):
        self.assertEqual(os.environ.get("SITE_RAN"), "1")
`;

/** The project's package, honest: value() is wrong for 2. */
const HONEST = "def value(x):\n    return 1\n";

/** What the project's package does to unittest or Django's runner, and what names it. */
const REWIRINGS: Record<string, { code: string; named: RegExp }> = {
  "TextTestResult.addFailure wrapped to record a success": {
    code: [
      "import unittest.runner as _r",
      "_orig = _r.TextTestResult.addFailure",
      "def _flip(self, test, err):",
      "    return self.addSuccess(test) if 'things' in str(test) else _orig(self, test, err)",
      "_r.TextTestResult.addFailure = _flip",
    ].join("\n"),
    named: /unittest\.runner\.TextTestResult\.addFailure was replaced/,
  },
  "TestCase.run wrapped": {
    code: [
      "import unittest",
      "_orig = unittest.TestCase.run",
      "def _run(self, result=None):",
      "    return _orig(self, result)",
      "unittest.TestCase.run = _run",
    ].join("\n"),
    named: /unittest\.case\.TestCase\.run was replaced/,
  },
  "DiscoverRunner.get_resultclass made to give a result class of its own": {
    code: [
      "import unittest",
      "from django.test import runner as _dr",
      "class _Result(unittest.TextTestResult):",
      "    def addFailure(self, test, err):",
      "        self.addSuccess(test)",
      "_dr.DiscoverRunner.get_resultclass = lambda self: _Result",
    ].join("\n"),
    named:
      /django\.test\.runner\.DiscoverRunner\.get_resultclass was replaced; a test result of class pkg\._Result \(not unittest's nor Django's\) recorded the results/,
  },
};

function spec(era: { python: string; pins: string[] }): PythonEnvironmentSpec {
  return {
    ...era,
    preInstall: [],
    install: "true",
    testCommand: TEST_COMMAND,
    env: {},
    logParser: "django",
  };
}

/** The project in a folder whose name has a space, its canaries planted by lab. */
async function djangoProject(init: string, seed: number) {
  const dir = tempDir("lab django ");
  mkdirSync(path.join(dir, "pkg"));
  mkdirSync(path.join(dir, "tests", "things"), { recursive: true });
  writeFileSync(path.join(dir, "pkg", "__init__.py"), `${HONEST}${init}\n`);
  writeFileSync(path.join(dir, "tests", "runtests.py"), RUNTESTS);
  writeFileSync(
    path.join(dir, "tests", "test_sqlite.py"),
    'DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3"}}\nSECRET_KEY = "k"\nUSE_TZ = False\n',
  );
  writeFileSync(path.join(dir, "tests", "things", "__init__.py"), "");
  writeFileSync(path.join(dir, "tests", "things", "tests.py"), TESTS);
  const plan = planCanaries({ testCommand: TEST_COMMAND, logParser: "django" }, [
    "tests/things/tests.py",
  ]);
  const planted = await plantCanaries(plan, dir, seededRandom(seed));
  if (planted === null || planted.guard === null) throw new Error("no guarded canaries");
  return { dir, planted: planted as PlantedCanaries & { guard: string } };
}

/** Runs the tests as the grader does (stderr joined to stdout) and judges the log. */
async function gradeRun(
  prepared: PreparedEnvironment,
  project: Awaited<ReturnType<typeof djangoProject>>,
  extraPath: readonly string[] = [],
) {
  const guard = await writeRunnerGuard(tempDir("lab guard "), "unittest");
  const env = runnerGuardEnv(
    guard,
    project.planted.guard,
    { PYTHONPATH: [project.dir, ...extraPath, prepared.sitePackages].join(path.delimiter) },
    "unittest",
  );
  const run = spawnSync(
    "bash",
    [
      "-c",
      'exec 2>&1\n"$0" "$@"',
      prepared.python.path,
      "tests/runtests.py",
      ...TEST_COMMAND.split(" ").slice(1),
      "things",
    ],
    { cwd: project.dir, env: { PATH: "/usr/bin:/bin", ...env }, encoding: "utf8" },
  );
  const log = `>>>>> Start Test Output\n${run.stdout}\n>>>>> End Test Output\n`;
  const testTwo = /^(test_two \(things\.tests\.ThingTests[^)]*\)) \.\.\./m.exec(run.stdout)?.[1];
  const verdict: Verdict = judgeTestLog({
    parser: "django",
    failToPass: [testTwo ?? "test_two (things.tests.ThingTests)"],
    passToPass: [],
    testRun: {
      exitCode: run.status,
      timedOut: false,
      signal: run.signal,
      limit: null,
      timeoutMs: 600_000,
    },
    log,
    changeTampering: [],
    canaries: project.planted,
  });
  return { run, log: run.stdout, verdict };
}

describe("lab's runner guard for unittest, on Django's runtests.py", () => {
  for (const era of ERAS) {
    const django = era.pins[0]?.split("==")[1] ?? "";
    it(`under Django ${django}: says nothing of an untouched run, whose sentinel ends the session`, async () => {
      const prepared = await prepareEnvironment(spec(era), testEnvironment());
      const project = await djangoProject("", 1);
      const { run, log, verdict } = await gradeRun(prepared, project);
      const token = project.planted.guard;
      expect(run.status, log).toBe(1);
      expect(log).toContain(`\nlab-runner-guard ${token}\n`);
      expect(log).toMatch(new RegExp(`\\n${project.planted.sentinel}\\n$`));
      expect(log).not.toContain("lab-runner-changed");
      expect(log).toMatch(/^test_one \(things\.tests\.ThingTests[^)]*\) \.\.\. ok$/m);
      expect(verdict.tampering, log).toEqual([]);
      expect(verdict.resolved).toBe(false);
      expect(verdict.reason).not.toMatch(/canaries|runner/);
    }, 600_000);

    it(`under Django ${django}: says nothing of honest tests that patch and run unittest for a while, and keeps the Pythons they start and the site's sitecustomize as they were`, async () => {
      const prepared = await prepareEnvironment(spec(era), testEnvironment());
      const project = await djangoProject("", 6);
      writeFileSync(path.join(project.dir, "tests", "things", "test_busy.py"), BUSY);
      const site = tempDir("lab site ");
      writeFileSync(
        path.join(site, "sitecustomize.py"),
        "import os\nos.environ['SITE_RAN'] = '1'\n",
      );
      const { log, verdict } = await gradeRun(prepared, project, [site]);
      for (const name of ["mocked_result", "inner_run", "child_python", "site_customized"])
        expect(log).toMatch(
          new RegExp(`^test_${name} \\(things\\.test_busy\\.BusyTests[^)]*\\) \\.\\.\\. ok$`, "m"),
        );
      expect(log).toMatch(new RegExp(`\\n${project.planted.sentinel}\\n$`));
      expect(verdict.tampering, log).toEqual([]);
    }, 600_000);

    it(`under Django ${django}: names each rewiring of the reporting path by the project's package`, async () => {
      const prepared = await prepareEnvironment(spec(era), testEnvironment());
      for (const [what, rewiring] of Object.entries(REWIRINGS)) {
        const { log, verdict } = await gradeRun(prepared, await djangoProject(rewiring.code, 2));
        expect(verdict.resolved, `${what}: ${log}`).toBe(false);
        const runner = verdict.tampering.find((line) => line.startsWith("runner: "));
        expect(runner, `${what}: ${log}`).toMatch(
          /^runner: the test runner was changed at run time: /,
        );
        expect(runner, what).toMatch(rewiring.named);
      }
    }, 600_000);

    it(`under Django ${django}: a process that leaves before the sentinel, or lies about its status, is caught`, async () => {
      const prepared = await prepareEnvironment(spec(era), testEnvironment());
      // Prints a pass for the failing test and the run's end, then leaves with status 0.
      const early = await gradeRun(
        prepared,
        await djangoProject(
          [
            "import os, sys",
            "def value(x):",
            "    if x == 2:",
            "        sys.stderr.write('ok\\n\\nRan 2 tests in 0.001s\\n\\nOK\\n')",
            "        sys.stderr.flush()",
            "        os._exit(0)",
            "    return 1",
          ].join("\n"),
          3,
        ),
      );
      expect(early.run.status, early.log).toBe(0);
      expect(early.log).not.toContain("lab-canaries-done");
      expect(early.verdict.resolved).toBe(false);
      expect(early.verdict.tampering).toContainEqual(
        "canaries: the test process ended without running its exit handlers, so what it printed last is not known to be its own (lab's runner guard)",
      );
      // Kills itself mid-run: no sentinel, and the kill is the reason.
      const killed = await gradeRun(
        prepared,
        await djangoProject(
          [
            "import os, signal",
            "def value(x):",
            "    if x == 2:",
            "        os.kill(os.getpid(), signal.SIGKILL)",
            "    return 1",
          ].join("\n"),
          4,
        ),
      );
      expect(killed.run.signal, killed.log).toBe("SIGKILL");
      expect(killed.log).toContain("\nlab-runner-guard ");
      expect(killed.log).not.toContain("lab-canaries-done");
      expect(killed.verdict.resolved).toBe(false);
      expect(killed.verdict.reason).toBe(
        "the test log was rejected: the test process was killed by SIGKILL",
      );
      // An exit handler registered at import that leaves with status 0: it runs after the
      // sentinel's, which the guard registers at the run's end, and the status shows.
      const lying = await gradeRun(
        prepared,
        await djangoProject("import atexit, os\natexit.register(lambda: os._exit(0))", 5),
      );
      expect(lying.run.status, lying.log).toBe(0);
      expect(lying.log).toContain("lab-canaries-done");
      expect(lying.verdict.tampering).toContainEqual(
        expect.stringMatching(
          /^canaries: the test process exited with status 0 although a test failed/,
        ),
      );
    }, 600_000);
  }
});
