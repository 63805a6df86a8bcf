import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PythonEnvironmentSpec } from "../../src/core/index.js";
import { prepareEnvironment, type PreparedEnvironment } from "../../src/environment/index.js";
import {
  readRunnerGuard,
  runnerGuardEnv,
  writeRunnerGuard,
  RUNNER_GUARD_MODULE,
} from "../../src/grader/runner-guard.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

/** The oldest pytest lab grades (astropy's era) and the starter suite's. */
const ERAS: readonly { python: string; pins: string[] }[] = [
  {
    python: "3.6",
    pins: [
      "pytest==3.3.1",
      "pluggy==0.6.0",
      "py==1.11.0",
      "attrs==17.3.0",
      "six==1.16.0",
      "setuptools==38.2.4",
    ],
  },
  {
    python: "3.11",
    pins: ["pytest==8.3.4", "pluggy==1.5.0", "iniconfig==2.0.0", "packaging==24.2"],
  },
];

function spec(era: { python: string; pins: string[] }): PythonEnvironmentSpec {
  return {
    ...era,
    preInstall: [],
    install: "true",
    testCommand: "pytest -rA",
    env: {},
    logParser: "pytest",
  };
}

/** What a package's __init__.py does to pytest, imported by the test module. */
const REWIRINGS: Record<string, { code: string; named: RegExp }> = {
  "call_and_report wrapped": {
    code: [
      "import _pytest.runner as _r",
      "_orig = _r.call_and_report",
      "def _wrapped(item, when, log=True, **kwargs):",
      "    return _orig(item, when, log, **kwargs)",
      "_r.call_and_report = _wrapped",
    ].join("\n"),
    named: /_pytest\.runner\.call_and_report was replaced/,
  },
  "a logreport hook registered at run time": {
    code: [
      "import gc",
      "class _Quiet(object):",
      "    @staticmethod",
      "    def pytest_runtest_logreport(report):",
      "        pass",
      "for _c in gc.get_objects():",
      "    if type(_c).__name__ == 'Config' and hasattr(_c, 'pluginmanager'):",
      "        _c.pluginmanager.register(_Quiet, 'quiet')",
      "        break",
    ].join("\n"),
    named: /a pytest_runtest_logreport hook was added at run time from pkg\/__init__\.py/,
  },
  "unittest's assertEqual disarmed": {
    code: ["import unittest", "unittest.TestCase.assertEqual = lambda self, *a, **k: None"].join(
      "\n",
    ),
    named: /unittest\.case\.TestCase\.assertEqual was replaced/,
  },
  "the terminal reporter's method replaced": {
    code: [
      "import _pytest.terminal as _t",
      "_orig = _t.TerminalReporter.pytest_runtest_logreport",
      "def _quiet(self, report):",
      "    return _orig(self, report)",
      "_t.TerminalReporter.pytest_runtest_logreport = _quiet",
    ].join("\n"),
    named: /TerminalReporter\.pytest_runtest_logreport was replaced/,
  },
};

function project(init: string): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, "pkg"));
  writeFileSync(path.join(dir, "pkg", "__init__.py"), `${init}\n`);
  writeFileSync(
    path.join(dir, "test_it.py"),
    "import pkg\n\n\ndef test_one():\n    assert pkg is not None\n\n\ndef test_two():\n    assert 1 + 1 == 2\n",
  );
  return dir;
}

function runPytest(prepared: PreparedEnvironment, dir: string, guard: string, token: string) {
  const env = runnerGuardEnv(guard, token, {
    PYTHONPATH: `${dir}${path.delimiter}${prepared.sitePackages}`,
  });
  const run = spawnSync(prepared.python.path, ["-m", "pytest", "-rA", "-p", "no:cacheprovider"], {
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", ...env },
    encoding: "utf8",
  });
  return { status: run.status, log: `${run.stdout}${run.stderr}` };
}

describe("lab's runner guard", () => {
  it("compiles under Python 2.7 as under 3", async () => {
    const guard = await writeRunnerGuard(tempDir());
    const pyenv = path.join(
      process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv"),
      "versions",
    );
    const two = path.join(pyenv, "2.7.18", "bin", "python");
    for (const python of ["python3", ...(existsSync(two) ? [two] : [])])
      execFileSync(python, [
        "-c",
        `compile(open(${JSON.stringify(path.join(guard, `${RUNNER_GUARD_MODULE}.py`))}).read(), "g", "exec")`,
      ]);
  });

  it("records unittest's TestCase when something first imports it, never importing it itself (Python 2.7 and 3)", async () => {
    const guard = await writeRunnerGuard(tempDir());
    // A stand-in pytest: the guard reaches only for these modules' names.
    const stub = tempDir();
    mkdirSync(path.join(stub, "_pytest"));
    for (const file of ["__init__", "runner", "terminal", "reports"])
      writeFileSync(path.join(stub, "_pytest", `${file}.py`), "");
    const script = [
      "import sys",
      `import ${RUNNER_GUARD_MODULE} as guard`,
      "print('preloaded' if 'unittest.case' in sys.modules else 'not preloaded')",
      "import unittest",
      "print(guard._unittest['case'] is sys.modules['unittest.case'])",
      "unittest.TestCase.assertEqual = lambda self, *a: None",
      "guard._check()",
      "print(guard._findings)",
    ].join("\n");
    const pyenv = path.join(
      process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv"),
      "versions",
    );
    const two = path.join(pyenv, "2.7.18", "bin", "python");
    for (const python of ["python3", ...(existsSync(two) ? [two] : [])]) {
      const out = execFileSync(python, ["-c", script], {
        env: { PATH: "/usr/bin:/bin", PYTHONPATH: `${stub}${path.delimiter}${guard}` },
        encoding: "utf8",
      });
      expect(out.split("\n").slice(-4), python).toEqual([
        "not preloaded",
        "True",
        "['unittest.case.TestCase.assertEqual was replaced']",
        "",
      ]);
    }
  });

  for (const era of ERAS) {
    it(`under pytest ${era.pins[0]?.split("==")[1] ?? ""}, leaves what the run imports as it was: unittest is in sys.modules when a test module loads exactly when it is without the guard`, async () => {
      const prepared = await prepareEnvironment(spec(era), testEnvironment());
      const guard = await writeRunnerGuard(tempDir());
      const dir = tempDir();
      // The test module notes whether unittest was loaded before it, in a file beside it.
      writeFileSync(
        path.join(dir, "test_mods.py"),
        "import os, sys\nLOADED = 'unittest' in sys.modules\nopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'loaded.txt'), 'w').write(str(LOADED))\n\n\ndef test_loaded():\n    pass\n",
      );
      const noted = () => readFileSync(path.join(dir, "loaded.txt"), "utf8");
      const bare = spawnSync(prepared.python.path, ["-m", "pytest", "-p", "no:cacheprovider"], {
        cwd: dir,
        env: {
          PATH: "/usr/bin:/bin",
          PYTHONPATH: `${dir}${path.delimiter}${prepared.sitePackages}`,
        },
        encoding: "utf8",
      });
      expect(bare.status, bare.stdout).toBe(0);
      const without = noted();
      const guarded = runPytest(prepared, dir, guard, "m0d");
      expect(guarded.log).toContain("\nlab-runner-guard m0d\n");
      expect(noted()).toBe(without);
    }, 600_000);

    it(`under pytest ${era.pins[0]?.split("==")[1] ?? ""}, says nothing of an honest run and names each rewiring`, async () => {
      const prepared = await prepareEnvironment(spec(era), testEnvironment());
      const guard = await writeRunnerGuard(tempDir());
      // A project that backports a TestCase method (Python 2's missing assertion) is honest.
      const backport = [
        "import unittest",
        "if not hasattr(unittest.TestCase, 'assertNotRegexpMatchesLab'):",
        "    unittest.TestCase.assertNotRegexpMatchesLab = lambda self, *a: None",
      ].join("\n");
      const honest = runPytest(prepared, project(backport), guard, "t0k");
      expect(honest.status, honest.log).toBe(0);
      expect(honest.log).toContain("\nlab-runner-guard t0k\n");
      expect(honest.log).toMatch(/\nlab-canaries-done t0k\n$/);
      expect(readRunnerGuard(honest.log, "t0k")).toEqual({ loaded: true, changed: [] });
      for (const [what, rewiring] of Object.entries(REWIRINGS)) {
        const run = runPytest(prepared, project(rewiring.code), guard, "t1k");
        expect(run.log, what).toMatch(/2 passed/);
        const read = readRunnerGuard(run.log, "t1k");
        expect(read.changed.join("; "), `${what}: ${run.log}`).toMatch(rewiring.named);
      }
    }, 600_000);
  }
});

/** SymPy's runner as bin/test drives it, over one test file, in a child Python with --fork. */
const SYMPY_DRIVER = `import subprocess
import sys

if sys.argv[1] == "--fork":
    sys.exit(subprocess.call([sys.executable, "-R", sys.argv[0]] + sys.argv[2:]))
import sympy
try:
    from sympy.testing.runtests import PyTestReporter, SymPyTests
except ImportError:
    from sympy.utilities.runtests import PyTestReporter, SymPyTests
reporter = PyTestReporter(verbose=True, colors=False)
tests = SymPyTests(reporter)
tests._testfiles = [sys.argv[1]]
sys.exit(not tests.test())
`;

/** What a package imported by the tests does to SymPy's runner. */
const SYMPY_REWIRINGS: Record<string, { code: string; named: RegExp }> = {
  "the reporter's test_fail made a pass": {
    code: [
      "import importlib as _il",
      "for _name in ('sympy.testing.runtests', 'sympy.utilities.runtests'):",
      "    try:",
      "        _r = _il.import_module(_name).PyTestReporter",
      "    except (ImportError, AttributeError):",
      "        continue",
      "    _r.test_fail = lambda self, *a, **k: self.test_pass()",
    ].join("\n"),
    named: /runtests\.PyTestReporter\.test_fail was replaced/,
  },
  "the test class's test_file wrapped": {
    code: [
      "import importlib as _il",
      "for _name in ('sympy.testing.runtests', 'sympy.utilities.runtests'):",
      "    try:",
      "        _t = _il.import_module(_name).SymPyTests",
      "    except (ImportError, AttributeError):",
      "        continue",
      "    _orig = _t.test_file",
      "    _t.test_file = lambda self, *a, **k: _orig(self, *a, **k)",
    ].join("\n"),
    named: /runtests\.SymPyTests\.test_file was replaced/,
  },
};

describe("lab's runner guard for SymPy's bin/test", () => {
  const ERAS_SYMPY = [
    { python: "3.9", pins: ["sympy==1.1.1", "mpmath==1.3.0"] },
    { python: "3.9", pins: ["sympy==1.12", "mpmath==1.3.0"] },
  ];

  function sympyProject(init: string): string {
    const dir = tempDir();
    mkdirSync(path.join(dir, "pkg"));
    writeFileSync(path.join(dir, "pkg", "__init__.py"), `${init}\n`);
    writeFileSync(path.join(dir, "run.py"), SYMPY_DRIVER);
    writeFileSync(
      path.join(dir, "test_it.py"),
      "import pkg\n\n\ndef test_one():\n    assert pkg is not None\n\n\ndef test_two():\n    assert 1 + 1 == 3\n",
    );
    return dir;
  }

  function runSympy(prepared: PreparedEnvironment, dir: string, guard: string, token: string) {
    const env = runnerGuardEnv(
      guard,
      token,
      { PYTHONPATH: `${dir}${path.delimiter}${prepared.sitePackages}` },
      "sympy",
    );
    const run = spawnSync(prepared.python.path, ["run.py", "--fork", "test_it.py"], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", ...env },
      encoding: "utf8",
    });
    return { status: run.status, log: `${run.stdout}${run.stderr}` };
  }

  for (const era of ERAS_SYMPY) {
    it(`under sympy ${era.pins[0]!.split("==")[1]!}, in the child that runs the tests: says nothing of an honest run, names each rewiring, and ends the session before the project's exit handlers`, async () => {
      const prepared = await prepareEnvironment(
        { ...spec(era), testCommand: "bin/test -C --verbose", logParser: "sympy" },
        testEnvironment(),
      );
      const guard = await writeRunnerGuard(tempDir(), "sympy");
      const honest = runSympy(prepared, sympyProject("VALUE = 1"), guard, "s0k");
      expect(honest.status, honest.log).toBe(1);
      expect(honest.log, honest.log).toMatch(/test_one ok/);
      expect(honest.log).toMatch(/test_two F/);
      // The parent and the child each load it; the child's sentinel follows its results.
      expect(honest.log.split("\nlab-runner-guard s0k\n")).toHaveLength(3);
      expect(honest.log.indexOf("lab-canaries-done s0k")).toBeGreaterThan(
        honest.log.indexOf("test_two F"),
      );
      expect(readRunnerGuard(honest.log, "s0k")).toEqual({ loaded: true, changed: [] });
      for (const [what, rewiring] of Object.entries(SYMPY_REWIRINGS)) {
        const run = runSympy(prepared, sympyProject(rewiring.code), guard, "s1k");
        const read = readRunnerGuard(run.log, "s1k");
        expect(read.changed.join("; "), `${what}: ${run.log}`).toMatch(rewiring.named);
      }
      // A handler the project registers prints after the sentinel: the results it forges show.
      const late = runSympy(
        prepared,
        sympyProject("import atexit\natexit.register(lambda: print('test_two ok'))"),
        guard,
        "s2k",
      );
      const sentinelAt = late.log.indexOf("lab-canaries-done s2k");
      expect(sentinelAt, late.log).toBeGreaterThan(-1);
      expect(late.log.lastIndexOf("test_two ok")).toBeGreaterThan(sentinelAt);
    }, 600_000);
  }

  it("keeps the environment's own sitecustomize running, and leaves lab's folder out of sys.path", async () => {
    const guard = await writeRunnerGuard(tempDir(), "sympy");
    const site = tempDir();
    writeFileSync(path.join(site, "sitecustomize.py"), "import os\nos.environ['SITE_RAN'] = '1'\n");
    const run = spawnSync(
      "python3",
      [
        "-c",
        "import os, sys; print(os.environ.get('SITE_RAN'), os.path.realpath(sys.argv[1]) in [os.path.realpath(p) for p in sys.path if p])",
        guard,
      ],
      {
        env: {
          PATH: "/usr/bin:/bin",
          ...runnerGuardEnv(guard, "s3k", { PYTHONPATH: site }, "sympy"),
        },
        encoding: "utf8",
      },
    );
    expect(run.stdout).toContain("lab-runner-guard s3k");
    expect(run.stdout).toContain("1 False");
  });
});
