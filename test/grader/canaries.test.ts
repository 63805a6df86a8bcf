import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestStatus } from "../../src/core/index.js";
import {
  findInsertionLines,
  insertCanaries,
  seededRandom,
} from "../../src/grader/canary-source.js";
import {
  checkCanaries,
  planCanaries,
  plantCanaries,
  type PlantedCanaries,
} from "../../src/grader/canaries.js";
import { parseTestLog } from "../../src/grader/parse-log.js";
import { tempDir } from "../helpers/temp.js";

const MODULE = `"""Tests.

def test_in_docstring():
    pass
"""
import pytest

VALUES = [
1, 2,
]


def helper(x):
    return x


@pytest.mark.parametrize(
    "x", [1, 2]
)
def test_parse_value(x):
    assert helper(x) == x


class TestThing:
    def test_method(self):
        text = '''
def test_inside_string():
'''
        assert text


def test_after_continuation():
    total = 1 + \\
2
    assert total == 3
`;

describe("where canaries go", () => {
  it("finds the top-level definitions, never a string's, a bracket's or a decorator's line", () => {
    const lines = MODULE.split("\n");
    expect(findInsertionLines(MODULE).map((index) => lines[index])).toEqual([
      "def helper(x):",
      "@pytest.mark.parametrize(",
      "class TestThing:",
      "def test_after_continuation():",
    ]);
  });

  it("only plans canaries for runners it knows, whose run no failure can stop", () => {
    const pytest = { testCommand: "pytest -rA", logParser: "pytest" };
    expect(
      planCanaries(pytest, ["tests/test_a.py", "tests/conftest.py", "tests/data.txt"]),
    ).toEqual({ style: "pytest", files: ["tests/test_a.py"] });
    expect(planCanaries({ ...pytest, testCommand: "pytest -rA -x" }, ["tests/test_a.py"])).toEqual({
      style: null,
      why: "the test command stops at or selects failures",
    });
    expect(planCanaries({ ...pytest, logParser: "django" }, ["tests/test_a.py"]).style).toBe(
      "unittest",
    );
    expect(planCanaries({ ...pytest, logParser: "sympy" }, ["tests/test_a.py"]).style).toBe(
      "sympy",
    );
    expect(planCanaries({ ...pytest, logParser: "tap" }, ["tests/test_a.py"])).toEqual({
      style: null,
      why: "no canaries for the tap runner yet",
    });
    expect(planCanaries(pytest, ["tests/test_a.py"], false).style).toBeNull();
    // pytest's own suite collects testing/*/*.py: a file a hidden test's id names is a module.
    expect(
      planCanaries(pytest, ["testing/python/fixtures.py", "testing/conftest.py"], true, [
        "testing/python/fixtures.py::TestFillFixtures::test_funcarg_lookupfails",
      ]),
    ).toEqual({ style: "pytest", files: ["testing/python/fixtures.py"] });
    expect(planCanaries(pytest, ["testing/python/fixtures.py"]).style).toBeNull();
  });
});

/** Python interpreters to compile planted modules with: this machine's python3 and 2.7. */
function interpreters(): string[] {
  const found = ["python3"];
  const pyenv = path.join(os.homedir(), ".pyenv", "versions");
  const two = existsSync(pyenv) ? readdirSync(pyenv).find((name) => name.startsWith("2.7")) : null;
  if (two !== undefined && two !== null) found.push(path.join(pyenv, two, "bin", "python"));
  return found;
}

describe("planted canaries", () => {
  it("leave a module that Python 3 and 2.7 compile, with every definition of the module kept", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { text, canaries } = insertCanaries(
        MODULE,
        [
          { mustFail: false, carriesSentinel: true },
          { mustFail: true, carriesSentinel: false },
          { mustFail: true, carriesSentinel: false },
        ],
        seededRandom(seed),
        "lab-canaries-done 0",
      );
      expect(canaries).toHaveLength(3);
      for (const canary of canaries) expect(text).toContain(`def ${canary.name}():`);
      expect(text.replace(/\n{3,}/g, "\n\n")).toContain(
        '@pytest.mark.parametrize(\n    "x", [1, 2]\n)\ndef test_parse_value(x):',
      );
      const dir = tempDir();
      const file = path.join(dir, "test_mod.py");
      writeFileSync(file, text);
      for (const python of interpreters())
        execFileSync(python, ["-c", `compile(open(${JSON.stringify(file)}).read(), "m", "exec")`]);
    }
  });

  it("for SymPy's bin/test, go before the module's last test function, which stays the last one run", () => {
    // bin/test runs a module's functions in line order and puts its [OK]/[FAIL] mark on the last
    // one's line, which SWE-bench's parser cannot read: that place must stay the module's own.
    const sympyModule = [
      "from sympy.testing.pytest import XFAIL",
      "",
      "",
      "def test_first():",
      "    pass",
      "",
      "",
      "@XFAIL",
      "def test_last():",
      "    pass",
      "",
      "",
      "def helper():",
      "    return 1",
      "",
    ].join("\n");
    const requests = [
      { mustFail: false, carriesSentinel: true },
      { mustFail: false, carriesSentinel: false },
      { mustFail: true, carriesSentinel: false },
      { mustFail: true, carriesSentinel: false },
    ];
    const lastDefinition = (text: string) =>
      Math.max(...[...text.matchAll(/^def (test_\w+)\(/gm)].map((match) => match.index));
    let anywhereAfter = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const sympy = insertCanaries(sympyModule, requests, seededRandom(seed), "s", "functions", {
        beforeLastTest: true,
      });
      expect(sympy.text.slice(lastDefinition(sympy.text))).toMatch(/^def test_last\(/);
      expect(sympy.text).toContain("@XFAIL\ndef test_last():");
      const anywhere = insertCanaries(sympyModule, requests, seededRandom(seed), "s");
      if (!anywhere.text.slice(lastDefinition(anywhere.text)).startsWith("def test_last(")) {
        anywhereAfter++;
      }
    }
    // Without the rule (pytest), canaries also land after the last test and at the end.
    expect(anywhereAfter).toBeGreaterThan(0);
  });

  it("keeps a module's CRLF line endings", () => {
    const crlf = "def test_a():\r\n    pass\r\n";
    const { text } = insertCanaries(
      crlf,
      [{ mustFail: true, carriesSentinel: false }],
      seededRandom(3),
      "s",
    );
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
  });

  it("writes into the plan's modules in the checkout, and skips one reached through a symlink", async () => {
    const repo = tempDir();
    execFileSync("mkdir", ["-p", path.join(repo, "tests"), path.join(repo, "elsewhere")]);
    writeFileSync(path.join(repo, "tests", "test_a.py"), "def test_a():\n    pass\n");
    writeFileSync(path.join(repo, "elsewhere", "test_b.py"), "def test_b():\n    pass\n");
    execFileSync("ln", ["-s", path.join(repo, "elsewhere"), path.join(repo, "linked")]);
    const planted = await plantCanaries(
      { style: "pytest", files: ["tests/test_a.py", "linked/test_b.py", "tests/test_gone.py"] },
      repo,
      seededRandom(7),
    );
    expect(new Set(planted?.canaries.map((canary) => canary.file))).toEqual(
      new Set(["tests/test_a.py"]),
    );
    expect(readFileSync(path.join(repo, "elsewhere", "test_b.py"), "utf8")).toBe(
      "def test_b():\n    pass\n",
    );
    expect(planted?.canaries.filter((canary) => canary.carriesSentinel)).toHaveLength(1);
  });
});

describe("canaries for other runners", () => {
  it("as unittest classes, run by unittest and read by Django's parser, they pass and fail as they must", async () => {
    const repo = tempDir();
    execFileSync("mkdir", ["-p", path.join(repo, "tests")]);
    writeFileSync(path.join(repo, "tests", "__init__.py"), "");
    writeFileSync(
      path.join(repo, "tests", "test_real.py"),
      "import unittest\n\n\nclass TestReal(unittest.TestCase):\n    def test_real(self):\n        self.assertEqual(1 + 1, 2)\n",
    );
    const planted = await plantCanaries(
      planCanaries({ testCommand: "python -m unittest -v", logParser: "django" }, [
        "tests/test_real.py",
      ]),
      repo,
      seededRandom(11),
    );
    expect(planted?.canaries.length).toBeGreaterThanOrEqual(2);
    const run = spawnSync("bash", ["-c", "exec 2>&1\npython3 -m unittest -v tests/test_real.py"], {
      cwd: repo,
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    const log = `>>>>> Start Test Output\n${run.stdout}\n>>>>> End Test Output\n`;
    const parse = (text: string): Record<string, TestStatus> => parseTestLog(text, "django");
    const verdict = checkCanaries(planted!, log, parse, {
      exitCode: 1,
      timedOut: false,
      limitExceeded: null,
    });
    expect(verdict.findings).toEqual([]);
    expect(Object.values(verdict.statuses)).toEqual(["PASSED"]);
    expect(Object.keys(verdict.statuses)[0]).toMatch(/^test_real \(tests\.test_real\.TestReal/);
  });

  it("reads SymPy's verbose lines and failure headers", () => {
    const planted: PlantedCanaries = {
      sentinel: "lab-canaries-done s",
      canaries: [
        {
          file: "sympy/core/tests/test_a.py",
          name: "test_keep_value",
          mustFail: false,
          carriesSentinel: true,
        },
        {
          file: "sympy/core/tests/test_a.py",
          name: "test_sort_items",
          mustFail: true,
          carriesSentinel: false,
        },
      ],
    };
    const log = [
      ">>>>> Start Test Output",
      "sympy/core/tests/test_a.py[3] ",
      "test_real ok",
      "test_keep_value ok",
      "test_sort_items F                                                           [FAIL]",
      "________________________________ sympy/core/tests/test_a.py:test_sort_items _________________________________",
      "AssertionError",
      "",
      "lab-canaries-done s",
      ">>>>> End Test Output",
    ].join("\n");
    const parse = (text: string): Record<string, TestStatus> => parseTestLog(text, "sympy");
    const ended = { exitCode: 1, timedOut: false, limitExceeded: null };
    expect(checkCanaries(planted, log, parse, ended)).toEqual({
      findings: [],
      statuses: { test_real: "PASSED" },
    });
    const forged = log
      .replace(/test_sort_items F .*\n/, "test_sort_items ok\n")
      .replace(/_+ sympy\/core\/tests\/test_a\.py:test_sort_items _+\n/, "");
    expect(checkCanaries(planted, forged, parse, ended).findings).toEqual([
      "canaries: a test that must fail was reported as passing (test_sort_items)",
    ]);
  });
});

describe("the canaries' verdict on a log", () => {
  const planted: PlantedCanaries = {
    sentinel: "lab-canaries-done abc",
    canaries: [
      { file: "t/test_a.py", name: "test_keep_value", mustFail: false, carriesSentinel: true },
      { file: "t/test_a.py", name: "test_sort_items", mustFail: true, carriesSentinel: false },
      { file: "t/test_b.py", name: "test_join_text", mustFail: false, carriesSentinel: false },
      { file: "t/test_b.py", name: "test_merge_keys", mustFail: true, carriesSentinel: false },
    ],
  };
  const parse = (text: string): Record<string, TestStatus> => parseTestLog(text, "pytest");
  const honest = [
    ">>>>> Start Test Output",
    "PASSED t/test_a.py::test_real",
    "PASSED t/test_a.py::test_keep_value",
    "PASSED t/test_b.py::test_join_text",
    "FAILED t/test_a.py::test_sort_items - assert [1, 3, 2] == [1, 2, 3]",
    "FAILED t/test_b.py::test_merge_keys - KeyError: 'x'",
    "========= 2 failed, 3 passed in 0.1s =========",
    "",
    "lab-canaries-done abc",
    ">>>>> End Test Output",
  ].join("\n");
  const ended = { exitCode: 1, timedOut: false, limitExceeded: null };

  it("trusts an honest log and hands back the statuses without the canaries'", () => {
    expect(checkCanaries(planted, honest, parse, ended)).toEqual({
      findings: [],
      statuses: { "t/test_a.py::test_real": "PASSED" },
    });
  });

  it("flags a must-fail canary reported as passing", () => {
    const log = honest.replace(
      "FAILED t/test_b.py::test_merge_keys - KeyError: 'x'",
      "PASSED t/test_b.py::test_merge_keys",
    );
    expect(checkCanaries(planted, log, parse, ended).findings).toEqual([
      "canaries: a test that must fail was reported as passing (test_merge_keys)",
    ]);
  });

  it("flags failures turned into expected failures, but not a module that is all expected failures", () => {
    const xfail = honest.replace(
      "FAILED t/test_a.py::test_sort_items - assert [1, 3, 2] == [1, 2, 3]",
      "XFAIL t/test_a.py::test_sort_items - hostile",
    );
    expect(checkCanaries(planted, xfail, parse, ended).findings).toEqual([
      "canaries: a test that must fail was reported as an expected failure while one that must pass passed beside it (test_sort_items)",
    ]);
    // A module marked xfail as a whole: its passing canary is an XPASS, which no parser reads.
    const moduleXfail = xfail.replace(
      "PASSED t/test_a.py::test_keep_value\n",
      "XPASS t/test_a.py::test_keep_value\n",
    );
    expect(checkCanaries(planted, moduleXfail, parse, ended).findings).toEqual([]);
  });

  it("finds canaries in pytest_v2's ids, which keep an XFAIL's message", () => {
    const v2 = (text: string): Record<string, TestStatus> => parseTestLog(text, "pytest_v2");
    // A module marked xfail as a whole, read by sphinx's parser.
    const log = honest
      .replace("PASSED t/test_a.py::test_keep_value", "XPASS t/test_a.py::test_keep_value")
      .replace(
        "FAILED t/test_a.py::test_sort_items - assert [1, 3, 2] == [1, 2, 3]",
        "XFAIL t/test_a.py::test_sort_items - module is known to fail",
      );
    expect(checkCanaries(planted, log, v2, ended)).toEqual({
      findings: [],
      statuses: { "t/test_a.py::test_real": "PASSED" },
    });
  });

  it("flags canaries missing from a module that ran, once the process ended by itself", () => {
    const log = honest.replace("FAILED t/test_b.py::test_merge_keys - KeyError: 'x'\n", "");
    expect(checkCanaries(planted, log, parse, ended).findings).toEqual([
      "canaries: a test that must fail is missing from the log while its module ran (test_merge_keys)",
    ]);
    const passing = honest.replace("PASSED t/test_b.py::test_join_text\n", "");
    expect(checkCanaries(planted, passing, parse, ended).findings).toEqual([
      "canaries: a test that must pass is missing from the log while a failing one beside it was reported (test_join_text)",
    ]);
    // A module that never ran (an import error) is the change's failure, not a forgery.
    const broken = honest
      .replace("PASSED t/test_b.py::test_join_text\n", "")
      .replace("FAILED t/test_b.py::test_merge_keys - KeyError: 'x'\n", "ERROR t/test_b.py\n");
    expect(checkCanaries(planted, broken, parse, ended).findings).toEqual([]);
    // A killed test run is judged by its kill; only the passing must-fail canary still counts.
    expect(
      checkCanaries(planted, log, parse, { exitCode: null, timedOut: true, limitExceeded: null })
        .findings,
    ).toEqual([]);
  });

  it("flags a process that exited 0 although a test failed", () => {
    expect(checkCanaries(planted, honest, parse, { ...ended, exitCode: 0 }).findings).toEqual([
      "canaries: the test process exited with status 0 although a test failed (test_sort_items, test_merge_keys)",
    ]);
  });

  it("flags results printed after the sentinel, and a sentinel that never came", () => {
    const late = honest
      .replace(">>>>> End Test Output", "PASSED t/test_a.py::test_real_two\n>>>>> End Test Output")
      .replace("PASSED t/test_a.py::test_real\n", "FAILED t/test_a.py::test_real_two\n");
    expect(checkCanaries(planted, late, parse, ended).findings).toEqual([
      "canaries: test results were printed after the test session ended (t/test_a.py::test_real_two)",
    ]);
    const cut = honest.replace("\nlab-canaries-done abc", "");
    expect(checkCanaries(planted, cut, parse, ended).findings).toEqual([
      "canaries: the test process ended without running its exit handlers, so what it printed last is not known to be its own (test_keep_value)",
    ]);
  });
});
