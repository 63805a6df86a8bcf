import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PythonEnvironmentSpec } from "../../src/core/index.js";
import {
  addStandIns,
  createGradeEnvironment,
  prepareEnvironment,
  removeStandIns,
  STAND_IN_MARKER,
} from "../../src/environment/index.js";
import { runCommand } from "../../src/process/index.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

const spec: PythonEnvironmentSpec = {
  python: "3.11",
  pins: ["iniconfig==2.0.0", "pluggy==1.5.0"],
  preInstall: [],
  install: "pip install -e .",
  testCommand: "pytest -rA",
  env: {},
  logParser: "pytest",
};

/** A project that needs one pinned package and one that is not pinned (six). */
function writeProject(dir: string, requires: string[]): void {
  mkdirSync(path.join(dir, "tinyproj"), { recursive: true });
  writeFileSync(path.join(dir, "tinyproj", "__init__.py"), "import iniconfig\n");
  writeFileSync(
    path.join(dir, "pyproject.toml"),
    [
      "[build-system]",
      'requires = ["setuptools>=61"]',
      'build-backend = "setuptools.build_meta"',
      "[project]",
      'name = "tinyproj"',
      'version = "0.1"',
      `dependencies = ${JSON.stringify(requires)}`,
      "[tool.setuptools]",
      'packages = ["tinyproj"]',
      "",
    ].join("\n"),
  );
}

async function gradeEnvironment(name: string) {
  const options = testEnvironment();
  const prepared = await prepareEnvironment(spec, options);
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  const gradeEnv = await createGradeEnvironment(prepared, dir, {
    ...options,
    timeoutMs: 120_000,
  });
  return { prepared, gradeEnv, dir };
}

describe("stand-ins for the cached environment's packages", () => {
  it("make uv find the pins installed, install only what is missing, and leave no trace for the tests", async () => {
    const { prepared, gradeEnv, dir } = await gradeEnvironment("install");
    const project = path.join(dir, "project");
    writeProject(project, ["iniconfig", "pluggy>=1"]);

    const standIns = await addStandIns(prepared.sitePackages, gradeEnv.sitePackages);
    expect(standIns).toEqual(["iniconfig-2.0.0.dist-info", "pluggy-1.5.0.dist-info"]);
    const install = await runCommand(["bash", "-c", "pip install -e ."], {
      cwd: project,
      env: { ...gradeEnv.env, UV_CACHE_DIR: path.join(dir, "uv-cache") },
      timeoutMs: 300_000,
    });
    expect(install.exitCode, install.stderrTail).toBe(0);
    // Only the project itself was installed: the pins were already satisfied.
    expect(install.stderrTail).toMatch(/\+ tinyproj==0\.1/);
    expect(install.stderrTail).not.toMatch(/\+ (iniconfig|pluggy)/);
    await removeStandIns(gradeEnv.sitePackages, standIns);

    const own = readdirSync(gradeEnv.sitePackages).filter((entry) => entry.endsWith(".dist-info"));
    expect(own).toEqual(["tinyproj-0.1.dist-info"]);
    // The tests see the cached packages as before: through the .pth file.
    const check = await runCommand(
      [
        path.join(gradeEnv.venv, "bin", "python"),
        "-c",
        "import importlib.metadata as m, tinyproj, iniconfig; print(m.version('iniconfig'), iniconfig.__file__)",
      ],
      { env: gradeEnv.env, timeoutMs: 30_000, captureStdout: true },
    );
    expect(check.exitCode).toBe(0);
    expect(check.stdout).toContain(`2.0.0 ${prepared.sitePackages}`);
  });

  it("still installs a dependency the pins lack, into the grade's own environment", async () => {
    const { prepared, gradeEnv, dir } = await gradeEnvironment("missing");
    const project = path.join(dir, "project");
    writeProject(project, ["iniconfig", "six==1.16.0"]);
    const standIns = await addStandIns(prepared.sitePackages, gradeEnv.sitePackages);
    const install = await runCommand(["bash", "-c", "pip install -e ."], {
      cwd: project,
      env: { ...gradeEnv.env, UV_CACHE_DIR: path.join(dir, "uv-cache") },
      timeoutMs: 300_000,
    });
    expect(install.exitCode, install.stderrTail).toBe(0);
    expect(install.stderrTail).toMatch(/\+ six==1\.16\.0/);
    await removeStandIns(gradeEnv.sitePackages, standIns);
    expect(existsSync(path.join(gradeEnv.sitePackages, "six-1.16.0.dist-info"))).toBe(true);
    expect(existsSync(path.join(gradeEnv.sitePackages, "iniconfig-2.0.0.dist-info"))).toBe(false);
  });

  it("removes a stand-in turned into a link without following it, and keeps a real distribution of the same name", async () => {
    const { prepared, gradeEnv, dir } = await gradeEnvironment("hostile");
    const standIns = await addStandIns(prepared.sitePackages, gradeEnv.sitePackages);
    const victim = path.join(dir, "victim");
    mkdirSync(victim);
    writeFileSync(path.join(victim, STAND_IN_MARKER), "");
    writeFileSync(path.join(victim, "keep.txt"), "host file\n");
    const linked = path.join(gradeEnv.sitePackages, "iniconfig-2.0.0.dist-info");
    rmSync(linked, { recursive: true });
    symlinkSync(victim, linked);
    // The install replaced pluggy's stand-in with a real distribution (no marker).
    const real = path.join(gradeEnv.sitePackages, "pluggy-1.5.0.dist-info");
    rmSync(path.join(real, STAND_IN_MARKER));

    await removeStandIns(gradeEnv.sitePackages, standIns);
    expect(existsSync(linked)).toBe(false);
    expect(readdirSync(victim).sort()).toEqual([STAND_IN_MARKER, "keep.txt"]);
    expect(existsSync(path.join(real, "METADATA"))).toBe(true);
  });
});

/**
 * A grade environment of `python` with `pins`, and a project folder beside it holding `files`
 * (relative paths): what the pip tests below install.
 */
async function projectEnvironment(
  name: string,
  python: string,
  pins: string[],
  files: Record<string, string>,
) {
  const options = testEnvironment();
  const prepared = await prepareEnvironment({ ...spec, python, pins }, options);
  const dir = path.join(root, name);
  const project = path.join(dir, "project");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), text);
  }
  const gradeEnv = await createGradeEnvironment(prepared, dir, { ...options, timeoutMs: 120_000 });
  return { dir, project, gradeEnv };
}

describe("the pip of a grade's environment", () => {
  const python36 = readdirSync(
    path.join(
      process.env.PYENV_ROOT ?? path.join(process.env.HOME ?? "/root", ".pyenv"),
      "versions",
    ),
  ).find((name) => name.startsWith("3.6."));

  it.skipIf(python36 === undefined)(
    "installs a project editable with setup.py develop, as pip does, when the era's setuptools has no PEP 517 backend (38.2.4, astropy 1.3's)",
    async () => {
      const { dir, project, gradeEnv } = await projectEnvironment(
        "legacy-setuptools",
        "3.6",
        ["setuptools==38.2.4"],
        {
          "oldproj/__init__.py": "VALUE = 38\n",
          "setup.py":
            "from setuptools import setup\nsetup(name='oldproj', version='0.1', packages=['oldproj'], extras_require={'test': []})\n",
        },
      );
      const install = await runCommand(["bash", "-c", "pip install -e .[test] --verbose"], {
        cwd: project,
        env: { ...gradeEnv.env, UV_CACHE_DIR: path.join(dir, "uv-cache") },
        timeoutMs: 300_000,
      });
      expect(install.exitCode, install.stderrTail).toBe(0);
      expect(install.stderrTail).toContain("retrying the editable install with setup.py develop");
      const check = await runCommand(
        [
          path.join(gradeEnv.venv, "bin", "python"),
          "-c",
          "import oldproj, setuptools; print(oldproj.VALUE, oldproj.__file__, setuptools.__version__)",
        ],
        { cwd: dir, env: gradeEnv.env, timeoutMs: 30_000, captureStdout: true },
      );
      expect((check.stdout ?? "").trim()).toBe(
        `38 ${path.join(project, "oldproj", "__init__.py")} 38.2.4`,
      );
    },
    300_000,
  );

  it("retries a failed editable install without repeating flags it already has (setuptools 41.6.0, pylint 3.0's pin)", async () => {
    const { dir, project, gradeEnv } = await projectEnvironment(
      "no-editable-hook",
      "3.9",
      ["setuptools==41.6.0", "wheel==0.44.0"],
      {
        "newproj/__init__.py": "VALUE = 41\n",
        "pyproject.toml":
          '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
        "setup.py":
          "from setuptools import setup\nsetup(name='newproj', version='0.1', packages=['newproj'])\n",
      },
    );
    // Both flags given, as the pylint specs give them: the env's setuptools has no
    // build_editable, so the install fails, and no retry can add anything.
    const install = await runCommand(
      [
        "bash",
        "-c",
        "pip install -e . --no-build-isolation --config-settings editable_mode=compat",
      ],
      {
        cwd: project,
        env: { ...gradeEnv.env, UV_CACHE_DIR: path.join(dir, "uv-cache") },
        timeoutMs: 300_000,
      },
    );
    expect(install.exitCode, install.stderrTail).toBe(0);
    expect(install.stderrTail).not.toContain("retrying the install with");
    expect(install.stderrTail).toContain("retrying the editable install with setup.py develop");
    const check = await runCommand(
      [
        path.join(gradeEnv.venv, "bin", "python"),
        "-c",
        "import newproj; print(newproj.VALUE, newproj.__file__)",
      ],
      { cwd: dir, env: gradeEnv.env, timeoutMs: 30_000, captureStdout: true },
    );
    expect((check.stdout ?? "").trim()).toBe(`41 ${path.join(project, "newproj", "__init__.py")}`);
  }, 300_000);
});
