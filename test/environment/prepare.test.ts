import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  clearEnvironmentCache,
  ensureUv,
  findPython,
  listCachedEnvironments,
  prepareEnvironment,
} from "../../src/environment/index.js";
import { runCommand } from "../../src/process/index.js";
import type { PythonEnvironmentSpec } from "../../src/core/index.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
const pyenvRoot = process.env.PYENV_ROOT ?? path.join(os.homedir(), ".pyenv");

function spec(pins: string[], python = "3.11"): PythonEnvironmentSpec {
  return {
    python,
    pins,
    preInstall: [],
    install: "pip install -e .",
    testCommand: "pytest -rA",
    env: {},
    logParser: "pytest",
  };
}

describe("environments", () => {
  it("builds an era's environment once under concurrent graders, and reuses it", async () => {
    const cacheDir = path.join(root, "concurrent");
    const options = {
      ...testEnvironment(),
      cacheDir,
      uv: await ensureUv({
        toolsDir: path.join(root, "tools"),
        pathEnv: process.env.PATH ?? "",
        home: os.homedir(),
      }),
    };
    const wanted = spec(["iniconfig==2.0.0"]);
    const results = await Promise.all([1, 2, 3].map(() => prepareEnvironment(wanted, options)));
    expect(new Set(results.map((result) => result.key)).size).toBe(1);
    expect(readdirSync(path.join(cacheDir, "envs"))).toEqual([results[0]?.key]);
    const again = await prepareEnvironment(wanted, options);
    expect(again.built).toBe(false);
    const check = await runCommand(
      [
        again.python.path,
        "-c",
        `import sys; sys.path.insert(0, ${JSON.stringify(again.sitePackages)}); import iniconfig; print(iniconfig.__file__)`,
      ],
      {
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 30_000,
        captureStdout: true,
      },
    );
    expect(check.stdout).toContain(again.sitePackages);

    expect(listCachedEnvironments(cacheDir).map((env) => env.key)).toEqual([again.key]);
    // uv: null, as lab's own uv is not in this cache folder (the test finds uv elsewhere).
    expect(await clearEnvironmentCache(cacheDir)).toEqual({ environments: 1, layers: 0, uv: null });
    expect(listCachedEnvironments(cacheDir)).toEqual([]);
  });

  it("keys environments by interpreter and pins", async () => {
    const options = testEnvironment();
    const a = await prepareEnvironment(
      spec(["pytest==8.3.4", "pluggy==1.5.0", "iniconfig==2.0.0", "packaging==24.2"]),
      options,
    );
    const b = await prepareEnvironment(
      spec(["packaging==24.2", "iniconfig==2.0.0", "pluggy==1.5.0", "pytest==8.3.4"]),
      options,
    );
    expect(b.key).toBe(a.key);
    const older = await prepareEnvironment(
      spec(
        [
          "pytest==8.3.4",
          "pluggy==1.5.0",
          "iniconfig==2.0.0",
          "packaging==24.2",
          "exceptiongroup==1.2.2",
          "tomli==2.2.1",
        ],
        "3.9",
      ),
      options,
    );
    expect(older.key).toMatch(/^py3\.9\.\d+-/);
    expect(older.key).not.toBe(a.key);
  });

  it("names the package when the pins cannot be installed", async () => {
    const options = { ...testEnvironment(), cacheDir: path.join(root, "bad-pins") };
    await expect(
      prepareEnvironment(
        spec(["pytest==8.3.4", "surely-not-a-real-package-lab-test==1.0"]),
        options,
      ),
    ).rejects.toMatchObject({
      code: "ENVIRONMENT_FAILED",
      message: expect.stringMatching(
        /^Building the Python 3\.11 environment failed: installing the pins failed: .*surely-not-a-real-package-lab-test/,
      ) as string,
    });
    expect(
      existsSync(path.join(root, "bad-pins", "envs"))
        ? readdirSync(path.join(root, "bad-pins", "envs"))
        : [],
    ).toEqual([]);
  });

  it("finds era interpreters in pyenv's versions folder, and says how to get a missing one", async () => {
    const uv = await ensureUv({
      toolsDir: path.join(root, "tools"),
      pathEnv: process.env.PATH ?? "",
      home: os.homedir(),
    });
    const found = await findPython("3.9", {
      pyenvRoot,
      pathEnv: process.env.PATH ?? "",
      home: os.homedir(),
      uv,
    });
    expect(found.version).toMatch(/^3\.9\.\d+$/);
    await expect(
      findPython("2.5", { pyenvRoot, pathEnv: "/nonexistent", home: os.homedir(), uv }),
    ).rejects.toMatchObject({
      code: "PYTHON_NOT_FOUND",
      message: expect.stringContaining("No Python 2.5 found") as string,
      hint: "Install Python 2.5 (`uv python install 2.5` or `pyenv install 2.5`), then run lab again.",
    });
  });

  it("remembers for a day that uv could not download an interpreter, instead of asking every time", async () => {
    // A uv that has no Python to offer and cannot download one (as offline), logging its calls.
    const bin = path.join(root, "offline-uv");
    mkdirSync(bin, { recursive: true });
    const uv = path.join(bin, "uv");
    const calls = path.join(bin, "calls.log");
    writeFileSync(
      uv,
      `#!/bin/sh\necho "$*" >> ${JSON.stringify(calls)}\necho "error: Failed to download: network unreachable" >&2\nexit 2\n`,
    );
    chmodSync(uv, 0o755);
    const failedDownloads = path.join(root, "offline-cache", "python-downloads.json");
    const find = () =>
      findPython("3.99.1", {
        pyenvRoot,
        pathEnv: "/nonexistent",
        home: os.homedir(),
        uv,
        failedDownloads,
      });
    // An exact release also falls back to its minor version (3.99), a download of its own.
    const installs = () =>
      readFileSync(calls, "utf8")
        .split("\n")
        .filter((line) => line.startsWith("python install"));

    await expect(find()).rejects.toMatchObject({
      code: "PYTHON_NOT_FOUND",
      message: expect.stringContaining(
        "uv could not download one: error: Failed to download",
      ) as string,
    });
    expect(installs()).toEqual(["python install 3.99.1", "python install 3.99"]);
    // Asked again: the failure is remembered, and said when it happened.
    await expect(find()).rejects.toMatchObject({
      message: expect.stringMatching(/at \d{4}-\d\d-\d\dT.*lab asks again a day later/) as string,
    });
    expect(installs()).toHaveLength(2);
    // A day later uv is asked again.
    const record = JSON.parse(readFileSync(failedDownloads, "utf8")) as Record<
      string,
      { at: string; error: string }
    >;
    record["3.99.1"] = {
      error: record["3.99.1"]?.error ?? "",
      at: new Date(Date.now() - 25 * 3600_000).toISOString(),
    };
    writeFileSync(failedDownloads, JSON.stringify(record));
    await expect(find()).rejects.toMatchObject({ code: "PYTHON_NOT_FOUND" });
    expect(installs()).toEqual([
      "python install 3.99.1",
      "python install 3.99",
      "python install 3.99.1",
    ]);
  });

  it("installs uv into its own folder when none is on PATH", async () => {
    const toolsDir = path.join(root, "fresh-tools");
    const uv = await ensureUv({
      toolsDir,
      home: os.homedir(),
      pathEnv:
        path.dirname(process.execPath) +
        ":/usr/local/bin:/usr/bin:/bin" +
        (process.env.PYENV_ROOT === undefined ? "" : `:${pyenvRoot}/shims`),
    });
    expect(uv).toBe(path.join(toolsDir, "uv", "bin", "uv"));
    const version = await runCommand([uv, "--version"], {
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 10_000,
      captureStdout: true,
    });
    expect(version.stdout).toMatch(/^uv \d+\.\d+\.\d+/);
  }, 180_000);
});

describe("build constraints of the pins", () => {
  /** An sdist whose build records the setuptools it was built with, as a module. */
  function recordingSdist(): string {
    const dir = path.join(root, "recording");
    mkdirSync(path.join(dir, "recording"), { recursive: true });
    writeFileSync(
      path.join(dir, "setup.py"),
      [
        "import os, setuptools",
        "with open(os.path.join('recording', 'built.py'), 'w') as out:",
        "    out.write('SETUPTOOLS = %r\\n' % setuptools.__version__)",
        "setuptools.setup(name='recording', version='1.0', packages=['recording'])",
        "",
      ].join("\n"),
    );
    writeFileSync(path.join(dir, "recording", "__init__.py"), "");
    return dir;
  }

  it("hold the builds of pins made from source to the setuptools they name, and change the environment's key", async () => {
    const project = recordingSdist();
    const options = { ...testEnvironment(), cacheDir: path.join(root, "constrained") };
    const pin = `recording @ file://${project}`;
    const constrained = await prepareEnvironment(
      { ...spec([pin]), pinsBuildConstraints: ["setuptools<70"] },
      options,
    );
    const plain = await prepareEnvironment(spec([pin]), options);
    expect(constrained.key).not.toBe(plain.key);
    const version = (sitePackages: string): number => {
      const text = readFileSync(path.join(sitePackages, "recording", "built.py"), "utf8");
      return Number(/SETUPTOOLS = '(\d+)\./.exec(text)?.[1]);
    };
    expect(version(constrained.sitePackages)).toBeLessThan(70);
    expect(version(plain.sitePackages)).toBeGreaterThanOrEqual(70);
  }, 300_000);
});

describe("bytecode of the pins", () => {
  const python36 = existsSync(path.join(pyenvRoot, "versions"))
    ? readdirSync(path.join(pyenvRoot, "versions")).find((name) => name.startsWith("3.6."))
    : undefined;

  it.skipIf(python36 === undefined)(
    "is compiled on Python 3.6 too, whose interpreter uv's compiler does not run on",
    async () => {
      const dir = path.join(root, "bytecode36");
      mkdirSync(path.join(dir, "compiled"), { recursive: true });
      writeFileSync(
        path.join(dir, "setup.py"),
        "import setuptools\nsetuptools.setup(name='compiled', version='1.0', packages=['compiled'])\n",
      );
      writeFileSync(path.join(dir, "compiled", "__init__.py"), "VALUE = 1\n");
      const options = { ...testEnvironment(), cacheDir: path.join(root, "bytecode36-cache") };
      const built = await prepareEnvironment(
        { ...spec([`compiled @ file://${dir}`], "3.6"), pinsInstallArgs: ["--compile-bytecode"] },
        options,
      );
      expect(built.python.version).toMatch(/^3\.6\./);
      const cache = readdirSync(path.join(built.sitePackages, "compiled", "__pycache__"));
      expect(cache).toContain("__init__.cpython-36.pyc");
    },
    300_000,
  );
});
