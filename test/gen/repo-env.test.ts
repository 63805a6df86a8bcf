import path from "node:path";
import { describe, expect, it } from "vitest";
import { inferEnvironment } from "../../src/gen/repo/infer-env.js";
import { readProjectFacts, readToml, testRequirementFiles } from "../../src/gen/repo/project.js";
import { choosePython, satisfiesSpecifier } from "../../src/gen/repo/python-choice.js";
import { testEnvironment } from "../helpers/lab.js";
import { PrHistory } from "../helpers/pr-history.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

const PYPROJECT = `[build-system]
requires = ["flit_core<4"]
build-backend = "flit_core.buildapi"

[project]
name = "Widget_Tools"  # a comment
requires-python = ">=3.8"
classifiers = [
    "Programming Language :: Python :: 3.8",
    "Programming Language :: Python :: 3.9", # trailing
    "Programming Language :: Python :: 3.10",
]
dependencies = ["click>=8", "attrs[tests]>=22"]
optional-dependencies.docs = ["sphinx"]

[project.optional-dependencies]
testing = ["pytest", "hypothesis"]

[dependency-groups]
tests = ["pytest"]
typing = ["mypy"]
`;

describe("reading a project's metadata", () => {
  it("reads the subset of TOML project files use", () => {
    const toml = readToml(PYPROJECT);
    expect(toml.get("project.name")).toBe("Widget_Tools");
    expect(toml.get("project.dependencies")).toEqual(["click>=8", "attrs[tests]>=22"]);
    expect(toml.get("project.optional-dependencies.docs")).toEqual(["sphinx"]);
    expect(toml.get("dependency-groups.tests")).toEqual(["pytest"]);
  });

  it("finds the Python bounds, test extras and groups of a pyproject.toml", () => {
    const facts = readProjectFacts(new Map([["pyproject.toml", PYPROJECT]]), [
      "pyproject.toml",
      "requirements/tests.txt",
      "requirements/tests.in",
    ]);
    expect(facts).toEqual({
      name: "Widget_Tools",
      projectFile: "pyproject.toml",
      requiresPython: ">=3.8",
      classifierPythons: ["3.8", "3.9", "3.10"],
      testExtras: ["testing"],
      testGroups: ["tests"],
      poetryTestDependencies: [],
      requirementFiles: ["requirements/tests.txt"],
    });
  });

  it("reads setup.cfg, setup.py and Poetry projects", () => {
    const cfg = readProjectFacts(
      new Map([
        [
          "setup.cfg",
          "[metadata]\nname = old\nclassifiers =\n    Programming Language :: Python :: 3.7\n\n[options]\npython_requires = >=3.6\n\n[options.extras_require]\ntest =\n    pytest\n",
        ],
        ["setup.py", "from setuptools import setup\nsetup()\n"],
      ]),
      ["setup.cfg", "setup.py", "requirements.txt"],
    );
    expect(cfg).toMatchObject({
      name: "old",
      projectFile: "setup.py",
      requiresPython: ">=3.6",
      classifierPythons: ["3.7"],
      testExtras: ["test"],
      requirementFiles: ["requirements.txt"],
    });
    const py = readProjectFacts(
      new Map([
        [
          "setup.py",
          'setup(name="legacy", python_requires=">=2.7, !=3.0.*", extras_require={"testing": ["pytest"], "docs": ["x"]},\n    classifiers=["Programming Language :: Python :: 3.6"])\n',
        ],
      ]),
      ["setup.py"],
    );
    expect(py).toMatchObject({
      name: "legacy",
      requiresPython: ">=2.7, !=3.0.*",
      testExtras: ["testing"],
      classifierPythons: ["3.6"],
    });
    const poetry = readProjectFacts(
      new Map([
        [
          "pyproject.toml",
          '[tool.poetry]\nname = "poet"\n\n[tool.poetry.dependencies]\npython = "^3.9"\n\n[tool.poetry.group.test.dependencies]\npytest = "^7"\nfreezegun = "*"\n',
        ],
      ]),
      ["pyproject.toml"],
    );
    expect(poetry).toMatchObject({
      name: "poet",
      projectFile: "pyproject.toml",
      requiresPython: ">=3.9",
      poetryTestDependencies: ["pytest", "freezegun"],
    });
    expect(
      testRequirementFiles([
        "requirements-test.txt",
        "test-requirements.txt",
        "requirements/dev.txt",
        "tests/requirements.txt",
      ]),
    ).toEqual(["requirements-test.txt", "test-requirements.txt", "tests/requirements.txt"]);
    // flask's layout: tests.txt, not the minimum-versions or development variants beside it.
    expect(
      testRequirementFiles([
        "requirements/dev.txt",
        "requirements/tests-dev.txt",
        "requirements/tests-min.in",
        "requirements/tests-min.txt",
        "requirements/tests.in",
        "requirements/tests.txt",
      ]),
    ).toEqual(["requirements/tests.txt"]);
    expect(testRequirementFiles(["requirements/tests-min.txt"])).toEqual([
      "requirements/tests-min.txt",
    ]);
  });
});

describe("choosing a commit's Python", () => {
  const installed = new Map([
    ["3.8", "3.8.18"],
    ["3.9", "3.9.18"],
    ["3.11", "3.11.7"],
    ["3.13", "3.13.0"],
  ]);

  it("evaluates requires-python specifiers", () => {
    expect(satisfiesSpecifier("3.9.18", ">=3.8,<3.10")).toBe(true);
    expect(satisfiesSpecifier("3.10.0", ">=3.8,<3.10")).toBe(false);
    expect(satisfiesSpecifier("3.0.1", ">=2.7, !=3.0.*")).toBe(false);
    expect(satisfiesSpecifier("3.9.1", "~=3.9")).toBe(true);
    expect(satisfiesSpecifier("3.8.18", "==3.8")).toBe(true);
  });

  it("takes the newest installed Python that the metadata allows and that existed at the commit's date", () => {
    expect(
      choosePython(
        { requiresPython: ">=3.8", classifierPythons: [] },
        { date: "2023-01-01T00:00:00Z", installed },
      ),
    ).toEqual({
      version: "3.11",
      reason:
        "3.11: the newest that requires-python >=3.8 allows, released by 2023-01-01, installed here",
    });
    expect(
      choosePython(
        { requiresPython: ">=3.8", classifierPythons: ["3.8", "3.9", "3.10"] },
        { date: "2023-01-01", installed },
      ).version,
    ).toBe("3.9");
    expect(
      choosePython(
        { requiresPython: null, classifierPythons: [] },
        { date: "2026-01-01", installed },
      ).version,
    ).toBe("3.13");
    expect(
      choosePython(
        { requiresPython: ">=3.12", classifierPythons: [] },
        { date: "2024-01-01", installed },
      ).version,
    ).toBe("3.12");
    expect(
      choosePython(
        { requiresPython: ">=4", classifierPythons: [] },
        { date: "2024-01-01", installed },
      ).version,
    ).toBeNull();
    expect(
      choosePython(
        { requiresPython: ">=3.8", classifierPythons: [] },
        { date: "2024-01-01", installed, override: "3.8" },
      ),
    ).toEqual({ version: "3.8", reason: "3.8: given by --python" });
  });
});

describe("inferring a commit's environment", () => {
  it("resolves the project's dependencies, its test extra and pytest as of the commit's date", async () => {
    const h = new PrHistory(path.join(root, "old"), "2022-12-30T12:00:00Z");
    const commit = h.direct("root", "old project", {
      "pyproject.toml":
        '[build-system]\nrequires = ["flit_core<4"]\nbuild-backend = "flit_core.buildapi"\n\n[project]\nname = "old"\nversion = "1.0"\ndescription = "x"\nrequires-python = ">=3.7"\n\n[project.optional-dependencies]\ntests = ["tomli"]\n',
      "old.py": "",
    });
    const date = h.git("show", "-s", "--format=%cI", commit);
    const inferred = await inferEnvironment({
      gitDir: h.dir,
      commit,
      date,
      environment: testEnvironment(),
      cacheDir: path.join(root, "cache"),
    });
    expect(inferred.ok).toBe(true);
    expect(inferred.ok ? inferred.spec.kind : "none").toBeUndefined();
    if (!inferred.ok || inferred.spec.kind === "node") return;
    expect(inferred.spec.python).toBe("3.11");
    // pytest 7.2.1 came out on 2023-01-13: the resolution stops at the commit's date.
    expect(inferred.spec.pins).toContain("pytest==7.2.0");
    expect(inferred.spec.pins.some((pin) => pin.startsWith("tomli=="))).toBe(true);
    expect(inferred.spec).toMatchObject({
      install: "pip install -e . --no-deps",
      testCommand: "pytest -rA",
      logParser: "pytest",
      env: { UV_EXCLUDE_NEWER: date },
    });
    expect(inferred.notes[1]).toBe(
      `pins: pyproject.toml, extra "tests" and pytest, resolved by uv as of ${date}`,
    );
  });

  it("says why when there is nothing to install from, or the dependencies cannot be resolved", async () => {
    const h = new PrHistory(path.join(root, "bare"));
    const bare = h.direct("root", "scripts", { "tool.py": "" });
    await expect(
      inferEnvironment({
        gitDir: h.dir,
        commit: bare,
        date: "2025-01-01T00:00:00Z",
        environment: testEnvironment(),
        cacheDir: path.join(root, "cache"),
      }),
    ).resolves.toEqual({
      ok: false,
      category: "no_environment",
      reason: "no pyproject.toml, setup.py, setup.cfg or requirements file at the base commit",
    });
    const broken = h.direct("broken", "depend on a missing package", {
      "requirements.txt": "acme-internal @ file:///opt/acme-internal\n",
    });
    const result = await inferEnvironment({
      gitDir: h.dir,
      commit: broken,
      date: "2025-01-01T00:00:00Z",
      environment: testEnvironment(),
      cacheDir: path.join(root, "cache"),
    });
    expect(result).toMatchObject({ ok: false, category: "install" });
    expect(!result.ok && result.reason).toMatch(
      /^install failed: resolving the dependencies as of 2025-01-01 failed: .*acme-internal/,
    );
  });
});
