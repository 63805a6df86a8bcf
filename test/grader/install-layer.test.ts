import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Oracle, Task } from "../../src/core/index.js";
import { gradeChange, type GradeOptions } from "../../src/grader/index.js";
import {
  installLayerKey,
  isEditableInstall,
  relocateCStrings,
} from "../../src/grader/install-layer.js";
import { loadOracle, loadSuite, loadTask } from "../../src/suite/index.js";
import { withDockerReclaimLock } from "../helpers/docker-reclaim-lock.js";
import { writeFixtureSuite, type FixtureTask } from "../helpers/fixture-suite.js";
import { runLab, testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();
/** A cache of this file's own, so the first grade of a task is the one that makes its layer. */
const cacheDir = path.join(root, "cache");

/**
 * An in-tree build backend whose editable install does what real ones do: a .pth with the
 * checkout's absolute path, a console script (uv writes its shebang with the venv's path), and
 * a file written into the checkout (as setuptools_scm writes _version.py). With a file named
 * TOUCH_TRACKED in the checkout it also edits a tracked file, which no layer can stand for; with
 * FAIL_UNFIXED it fails on the base commit; with native.c it compiles it with gcc into a shared
 * library in the checkout, whose debug info and __FILE__ string hold the checkout's path, as a
 * compiled extension's do.
 */
const BACKEND = `import base64, hashlib, os, zipfile

NAME, VERSION = "layered", "0.1.0"


def _line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    if os.path.exists("FAIL_UNFIXED") and "a - b" in open("src/layered/impl.py").read():
        raise RuntimeError("this build fails without the fix")
    with open(os.path.join("src", "layered", "_build.py"), "w") as out:
        out.write("BUILT = True\\n")
    if os.path.exists("native.c"):
        import subprocess
        subprocess.run(["gcc", "-g", "-shared", "-fPIC", "-o", os.path.join("src", "layered", "_native.so"), os.path.abspath("native.c")], check=True)
    if os.path.exists("TOUCH_TRACKED"):
        with open("TOUCH_TRACKED", "a") as out:
            out.write("built\\n")
    info = "%s-%s.dist-info" % (NAME, VERSION)
    files = {
        "layered.pth": (os.path.abspath("src") + "\\n").encode(),
        info + "/METADATA": ("Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n" % (NAME, VERSION)).encode(),
        info + "/WHEEL": b"Wheel-Version: 1.0\\nGenerator: lab-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        info + "/entry_points.txt": b"[console_scripts]\\nlayered-add = layered.cli:main\\n",
    }
    wheel = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as archive:
        lines = []
        for name, data in files.items():
            archive.writestr(name, data)
            lines.append(_line(name, data))
        lines.append(info + "/RECORD,,")
        archive.writestr(info + "/RECORD", "\\n".join(lines) + "\\n")
    return wheel
`;

const HIDDEN_TESTS = `import subprocess

from layered import add
from layered._build import BUILT


def test_built():
    assert BUILT


def test_two():
    assert add(1, 1) == 2


def test_script():
    out = subprocess.run(["layered-add", "1", "1"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2"
`;

function layeredTask(id: string, extraBase: Record<string, string> = {}): FixtureTask {
  return {
    id,
    base: {
      "pyproject.toml": `[build-system]\nrequires = []\nbuild-backend = "lab_backend"\nbackend-path = ["."]\n`,
      "lab_backend.py": BACKEND,
      ".gitignore": "__pycache__/\n.pytest_cache/\n_build.py\n",
      "src/layered/__init__.py": "from .impl import add\n",
      "src/layered/impl.py": "def add(a, b):\n    return a - b\n",
      "src/layered/cli.py":
        "import sys\n\nfrom .impl import add\n\n\ndef main():\n    print(add(int(sys.argv[1]), int(sys.argv[2])))\n",
      "tests/test_add.py":
        "def test_built():\n    from layered._build import BUILT\n    assert BUILT\n",
      ...extraBase,
    },
    gold: { "src/layered/impl.py": "def add(a, b):\n    return a + b\n" },
    tests: { "tests/test_add.py": HIDDEN_TESTS },
    failToPass: ["tests/test_add.py::test_two", "tests/test_add.py::test_script"],
    passToPass: ["tests/test_add.py::test_built"],
  };
}

let task: Task;
let oracle: Oracle;
let touchyTask: Task;
let touchyOracle: Oracle;
let fragileTask: Task;
let fragileOracle: Oracle;
let nativeTask: Task;
let nativeOracle: Oracle;

/** A C source whose library says where it was compiled from (its __FILE__). */
const NATIVE_C = "const char *where(void) { return __FILE__; }\n";

/** Hidden tests that load the compiled library and ask it where its source was. */
const NATIVE_TESTS = `${HIDDEN_TESTS}

def test_native():
    import ctypes, os
    library = ctypes.CDLL(os.path.join(os.getcwd(), "src", "layered", "_native.so"))
    library.where.restype = ctypes.c_char_p
    assert library.where().decode() == os.path.join(os.getcwd(), "native.c")
`;

beforeAll(async () => {
  writeFixtureSuite(path.join(root, "evals"), "fixture", [
    layeredTask("layered"),
    layeredTask("touchy", { TOUCH_TRACKED: "tracked\n" }),
    layeredTask("fragile", { FAIL_UNFIXED: "\n" }),
    {
      ...layeredTask("native", { "native.c": NATIVE_C }),
      tests: { "tests/test_add.py": NATIVE_TESTS },
      failToPass: ["tests/test_add.py::test_two", "tests/test_add.py::test_script"],
      passToPass: ["tests/test_add.py::test_built", "tests/test_add.py::test_native"],
    },
  ]);
  const suite = await loadSuite("fixture", { evalsDir: path.join(root, "evals"), cwd: root });
  task = await loadTask(suite, "layered");
  oracle = await loadOracle(task);
  touchyTask = await loadTask(suite, "touchy");
  touchyOracle = await loadOracle(touchyTask);
  fragileTask = await loadTask(suite, "fragile");
  fragileOracle = await loadOracle(fragileTask);
  nativeTask = await loadTask(suite, "native");
  nativeOracle = await loadOracle(nativeTask);
});

function options(overrides: Partial<GradeOptions> = {}): GradeOptions {
  const scratch = mkdtempSync(path.join(root, "grade-"));
  return {
    scratchDir: scratch,
    logFile: `${scratch}.log`,
    environment: { ...testEnvironment(), cacheDir },
    setupTimeoutMs: 60_000,
    installTimeoutMs: 300_000,
    testTimeoutMs: 120_000,
    ...overrides,
  };
}

/** A change: the gold patch plus whole new files, as a git diff. */
function withNewFile(patch: string, file: string, content: string): string {
  const lines = content.split("\n").slice(0, -1);
  return `${patch}diff --git a/${file} b/${file}\nnew file mode 100644\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1,${String(lines.length)} @@\n${lines.map((line) => `+${line}`).join("\n")}\n`;
}

/** A change that gives src/layered/impl.py these lines (its base has two). */
function editImpl(lines: readonly string[]): string {
  const file = "src/layered/impl.py";
  return [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,2 +1,${String(lines.length)} @@`,
    "-def add(a, b):",
    "-    return a - b",
    ...lines.map((line) => `+${line}`),
    "",
  ].join("\n");
}

function layerRecords(): { dir: string; record: Record<string, unknown> }[] {
  const layers = path.join(cacheDir, "layers");
  return readdirSync(layers).map((key) => ({
    dir: path.join(layers, key),
    record: JSON.parse(readFileSync(path.join(layers, key, "layer.json"), "utf8")) as Record<
      string,
      unknown
    >,
  }));
}

describe("reusing the base commit's install", () => {
  it("installs the base commit once, keeps what it wrote, and puts it into the grade", async () => {
    const opts = options({ keepScratch: true });
    const { grade } = await gradeChange(task, oracle, { patch: oracle.goldPatch }, opts);
    // The .pth, the console script's shebang and the file the build wrote all work in the grade.
    expect(grade).toMatchObject({ resolved: true, install: "reused", reason: null });
    const log = readFileSync(opts.logFile, "utf8");
    expect(log).toContain("lab: installing the base commit once");
    expect(log).toContain("the change leaves the install alone");

    const [layer] = layerRecords();
    const files = (layer?.record.files as { place: string; path: string }[]).map(
      (file) => `${file.place}:${file.path}`,
    );
    expect(files).toContain("repo:src/layered/_build.py");
    expect(files).toContain("venv:bin/layered-add");
    expect(files).toContain("venv:lib/python3.11/site-packages/layered.pth");

    // Relocated: the grade's files name the grade's folders, and RECORD's hashes match them.
    const sitePackages = path.join(opts.scratchDir, "venv", "lib", "python3.11", "site-packages");
    expect(readFileSync(path.join(sitePackages, "layered.pth"), "utf8")).toBe(
      `${path.join(opts.scratchDir, "repo", "src")}\n`,
    );
    // uv writes a /bin/sh trampoline for a long interpreter path (the base install's is long).
    const script = readFileSync(path.join(opts.scratchDir, "venv", "bin", "layered-add"), "utf8");
    expect(script).toContain(path.join(opts.scratchDir, "venv", "bin", "python"));
    expect(script).not.toContain("base-install-");
    const record = readFileSync(
      path.join(sitePackages, "layered-0.1.0.dist-info", "RECORD"),
      "utf8",
    );
    const pth = readFileSync(path.join(sitePackages, "layered.pth"));
    const digest = createHash("sha256").update(pth).digest("base64url");
    expect(record).toContain(`layered.pth,sha256=${digest},${String(pth.length)}`);
  }, 300_000);

  it("reuses the layer in later grades without running the install", async () => {
    const opts = options();
    const { grade } = await gradeChange(task, oracle, { patch: oracle.goldPatch }, opts);
    expect(grade).toMatchObject({ resolved: true, install: "reused" });
    const log = readFileSync(opts.logFile, "utf8");
    expect(log).not.toContain("installing the base commit once");
    expect(log).not.toContain("+ pip install");
    expect(layerRecords()).toHaveLength(1);

    const empty = await gradeChange(task, oracle, { patch: "" }, options());
    expect(empty.grade).toMatchObject({ resolved: false, install: "reused" });
    expect(empty.grade.passToPass).toEqual({ "tests/test_add.py::test_built": true });
  }, 300_000);

  it("installs a change that adds a file at the repository's root itself", async () => {
    const opts = options();
    const patch = withNewFile(oracle.goldPatch, "reproduce.py", "print('hi')\n");
    const { grade } = await gradeChange(task, oracle, { patch }, opts);
    expect(grade).toMatchObject({ resolved: true, install: "fresh" });
    const log = readFileSync(opts.logFile, "utf8");
    expect(log).toContain(
      "lab: installing the change: the change adds reproduce.py at the repository's root",
    );
    expect(log).toContain("+ pip install -e . --no-deps");
  }, 300_000);

  it("installs the change itself when a file of the layer is in the checkout already", async () => {
    const opts = options();
    const patch = withNewFile(oracle.goldPatch, "src/layered/_build.py", "BUILT = False\n");
    const { grade } = await gradeChange(task, oracle, { patch }, opts);
    // The install rewrote the file, as a fresh install of that change does.
    expect(grade).toMatchObject({ resolved: true, install: "fresh" });
    expect(readFileSync(opts.logFile, "utf8")).toContain(
      "lab: installing the change: the base commit's install cannot be put in: the checkout already has src/layered/_build.py",
    );
  }, 300_000);

  it("keeps why an install that edits tracked files cannot be reused, and installs each change", async () => {
    const first = options();
    const { grade } = await gradeChange(
      touchyTask,
      touchyOracle,
      { patch: touchyOracle.goldPatch },
      first,
    );
    expect(grade).toMatchObject({ resolved: true, install: "fresh" });
    expect(readFileSync(first.logFile, "utf8")).toContain(
      "the base commit's install cannot be reused: the install changes files the repository tracks",
    );
    const unusable = layerRecords().filter((layer) => "unusable" in layer.record);
    expect(unusable).toHaveLength(1);
    expect(existsSync(path.join(unusable[0]?.dir ?? "", "repo"))).toBe(false);

    const second = options();
    await gradeChange(touchyTask, touchyOracle, { patch: touchyOracle.goldPatch }, second);
    expect(readFileSync(second.logFile, "utf8")).not.toContain("installing the base commit once");
  }, 300_000);

  it("installs the change itself when the base commit's install fails, and keeps nothing", async () => {
    const opts = options();
    const before = layerRecords().length;
    const { grade } = await gradeChange(
      fragileTask,
      fragileOracle,
      { patch: fragileOracle.goldPatch },
      opts,
    );
    expect(grade).toMatchObject({ resolved: true, install: "fresh" });
    const log = readFileSync(opts.logFile, "utf8");
    expect(log).toContain("RuntimeError: this build fails without the fix");
    expect(log).toContain(
      "lab: installing the change: the base commit's install cannot be reused: the install of the base commit failed",
    );
    // A failure may pass: nothing is kept, so the next grade tries again.
    expect(layerRecords()).toHaveLength(before);
  }, 300_000);
});

describe("a change's code and the layer", () => {
  it("never reaches the layer, even in the grade that makes it", async () => {
    // A cache of its own: the hostile change's grade is the one that makes the layer.
    const ownCache = path.join(root, "poison-cache");
    // The fix, plus code that writes into the venv and the checkout whenever it runs.
    const hostile = editImpl([
      "def add(a, b):",
      "    import os, sysconfig",
      "    with open(os.path.join(sysconfig.get_paths()['purelib'], 'poison.pth'), 'w') as f:",
      "        f.write('import sys; sys.stderr.write(\"POISONED\\\\n\")\\n')",
      "    with open(os.path.join(os.path.dirname(__file__), 'poison.py'), 'w') as f:",
      "        f.write('POISON = 1\\n')",
      "    return a + b",
    ]);
    const first = options({
      environment: { ...testEnvironment(), cacheDir: ownCache },
      keepScratch: true,
    });
    const poisoned = await gradeChange(task, oracle, { patch: hostile }, first);
    expect(poisoned.grade).toMatchObject({ resolved: true, install: "reused" });
    expect(readFileSync(first.logFile, "utf8")).toContain("installing the base commit once");
    // It ran (so "not in the layer" means kept out, not "never written").
    const firstSite = path.join(first.scratchDir, "venv", "lib", "python3.11", "site-packages");
    expect(existsSync(path.join(firstSite, "poison.pth"))).toBe(true);
    expect(existsSync(path.join(first.scratchDir, "repo", "src", "layered", "poison.py"))).toBe(
      true,
    );

    const layers = readdirSync(path.join(ownCache, "layers"));
    expect(layers).toHaveLength(1);
    const record = readFileSync(
      path.join(ownCache, "layers", layers[0] ?? "", "layer.json"),
      "utf8",
    );
    expect(record).not.toContain("poison");

    const next = options({
      environment: { ...testEnvironment(), cacheDir: ownCache },
      keepScratch: true,
    });
    const gold = await gradeChange(task, oracle, { patch: oracle.goldPatch }, next);
    expect(gold.grade).toMatchObject({ resolved: true, install: "reused" });
    expect(readFileSync(next.logFile, "utf8")).not.toContain("POISONED");
    const site = path.join(next.scratchDir, "venv", "lib", "python3.11", "site-packages");
    expect(existsSync(path.join(site, "poison.pth"))).toBe(false);
    expect(existsSync(path.join(next.scratchDir, "repo", "src", "layered", "poison.py"))).toBe(
      false,
    );
  }, 300_000);
});

describe("lab cache", () => {
  it("counts the install layers beside the environments, and clears both", async () => {
    const env = { LAB_CACHE_DIR: cacheDir };
    const list = await runLab(["cache", "list"], { cwd: root, env });
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(
      new RegExp(
        `1 cached environment\\(s\\) and 2 install layer\\(s\\), [\\d.]+ [KMG]?i?B, in ${cacheDir}`,
      ),
    );
    // Where an engine answers, it also removes containers whose lab is gone.
    const clear = await withDockerReclaimLock(() => runLab(["cache", "clear"], { cwd: root, env }));
    expect(clear.stderr).toContain("Removed 1 cached environment(s) and 2 install layer(s)");
    expect(existsSync(path.join(cacheDir, "layers"))).toBe(false);
  });
});

describe("installLayerKey", () => {
  it("changes with everything the install depends on besides the change", async () => {
    const parts = {
      repo: "acme/widget",
      baseCommit: "a".repeat(40),
      environmentKey: "py3.11.7-0123456789abcdef",
      sitePackages: "/cache/envs/x/lib/python3.11/site-packages",
      spec: { preInstall: [], install: "pip install -e .", env: {} },
      uv: process.execPath,
    };
    const key = await installLayerKey(parts);
    expect(await installLayerKey({ ...parts })).toBe(key);
    const variants = [
      { ...parts, baseCommit: "b".repeat(40) },
      { ...parts, environmentKey: "py3.11.7-fedcba9876543210" },
      { ...parts, sitePackages: "/elsewhere/site-packages" },
      { ...parts, spec: { ...parts.spec, preInstall: ["sed -i s/a/b/ setup.cfg"] } },
      { ...parts, spec: { ...parts.spec, install: "pip install -e .[test]" } },
      { ...parts, spec: { ...parts.spec, env: { SETUPTOOLS_SCM_PRETEND_VERSION: "1.0" } } },
      { ...parts, uv: "/bin/sh" },
    ];
    const keys = await Promise.all(variants.map((variant) => installLayerKey(variant)));
    expect(new Set([key, ...keys]).size).toBe(variants.length + 1);
  });
});

describe("isEditableInstall", () => {
  it("tells an editable install from one that copies the code", () => {
    expect(isEditableInstall("pip install -e .")).toBe(true);
    expect(isEditableInstall("pip install -e .[test] --no-build-isolation")).toBe(true);
    expect(isEditableInstall("python -m pip install --editable=.")).toBe(true);
    expect(isEditableInstall("pip install . --no-build-isolation --compile-bytecode")).toBe(false);
    expect(isEditableInstall("python setup.py develop")).toBe(false);
    expect(isEditableInstall("pip install --no-deps -e-thing")).toBe(false);
  });
});

describe("a compiled library in the base commit's install", () => {
  it("is kept in the layer and relocated in place into each grade, still loadable, naming the grade's checkout", async () => {
    const first = options({ keepScratch: true });
    const made = await gradeChange(
      nativeTask,
      nativeOracle,
      { patch: nativeOracle.goldPatch },
      first,
    );
    expect(made.grade).toMatchObject({ resolved: true, install: "reused" });
    const library = readFileSync(
      path.join(first.scratchDir, "repo", "src", "layered", "_native.so"),
    );
    expect(library.includes(path.join(first.scratchDir, "repo", "native.c"))).toBe(true);
    expect(library.includes("base-install-")).toBe(false);
    const second = options();
    const again = await gradeChange(
      nativeTask,
      nativeOracle,
      { patch: nativeOracle.goldPatch },
      second,
    );
    expect(again.grade).toMatchObject({ resolved: true, install: "reused" });
  });

  it("is installed fresh by a grade whose folder's path is longer than the base install's", async () => {
    const deep = path.join(root, "d".repeat(200));
    mkdirSync(deep, { recursive: true });
    const opts = options({ scratchDir: mkdtempSync(path.join(deep, "grade-")) });
    const { grade } = await gradeChange(
      nativeTask,
      nativeOracle,
      { patch: nativeOracle.goldPatch },
      opts,
    );
    expect(grade).toMatchObject({ resolved: true, install: "fresh" });
    expect(readFileSync(opts.logFile, "utf8")).toMatch(
      /the base commit's install cannot be put in: src\/layered\/_native\.so, a compiled file, holds the base install's path, and this grade's \(.*\) is longer/,
    );
  });
});

describe("relocateCStrings", () => {
  it("rewrites each NUL-terminated string holding the old path, padding it to its old length", () => {
    const from = Buffer.from("/long/origin/folder");
    const to = Buffer.from("/grade");
    const content = Buffer.concat([
      Buffer.from("\x7fELF\0"),
      Buffer.from("-I/long/origin/folder/include -I/long/origin/folder/venv\0"),
      Buffer.from("/long/origin/folder/native.c\0tail"),
    ]);
    const out = relocateCStrings(content, from, to);
    expect(out.length).toBe(content.length);
    const strings = out
      .toString("latin1")
      .split("\0")
      .filter((part) => part !== "");
    expect(strings).toEqual([
      "\x7fELF",
      "-I/grade/include -I/grade/venv",
      "/grade/native.c",
      "tail",
    ]);
    expect(relocateCStrings(Buffer.from("nothing here\0"), from, to).toString()).toBe(
      "nothing here\0",
    );
  });
});
