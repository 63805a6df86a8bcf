import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { EnvironmentSpec, PythonEnvironmentSpec } from "../../src/core/index.js";
import { suiteLayout } from "../../src/suite/index.js";

/** Files of a tiny project, path to content. */
export type Files = Readonly<Record<string, string>>;

/** One fixture task: a base tree, a fix and hidden tests, each as whole files. */
export interface FixtureTask {
  readonly id: string;
  readonly base: Files;
  readonly gold: Files;
  readonly tests: Files;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  readonly prompt?: string;
  readonly pins?: readonly string[];
  readonly testCommand?: string;
  /** environment.json's content when it is not the default Python one (a Node task's). */
  readonly environment?: Readonly<Record<string, unknown>>;
}

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "lab",
  GIT_AUTHOR_EMAIL: "lab@localhost",
  GIT_COMMITTER_NAME: "lab",
  GIT_COMMITTER_EMAIL: "lab@localhost",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });
}

function writeFiles(root: string, files: Files): void {
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
}

/** The pyproject of a fixture package (uv_build: editable installs in well under a second). */
export function pyproject(name: string): string {
  return `[build-system]\nrequires = ["uv_build>=0.8,<0.20"]\nbuild-backend = "uv_build"\n\n[project]\nname = "${name}"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n`;
}

/** The setup.sh every fixture task uses: copy the base tree, one deterministic commit. */
const SETUP_SH = `#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
id="$(basename "$here")"
mkdir -p "$1"
cp -R "$here/../../repos/$id/." "$1/"
cd "$1"
export GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=lab GIT_AUTHOR_EMAIL=lab@localhost GIT_COMMITTER_NAME=lab GIT_COMMITTER_EMAIL=lab@localhost GIT_AUTHOR_DATE=2024-01-01T00:00:00Z GIT_COMMITTER_DATE=2024-01-01T00:00:00Z
git -c init.defaultBranch=main init -q
git add -A
git -c commit.gpgsign=false commit -q -m base
`;

/**
 * Writes a suite in lab's task format under `evalsDir/<name>`, with real git-made patches.
 * Returns the suite folder.
 */
export function writeFixtureSuite(
  evalsDir: string,
  name: string,
  tasks: readonly FixtureTask[],
): string {
  const suiteDir = path.join(evalsDir, name);
  for (const task of tasks) {
    const repoDir = path.join(suiteDir, "repos", task.id);
    writeFiles(repoDir, task.base);
    const taskDir = suiteLayout(suiteDir).taskDir(task.id);
    const oracleDir = suiteLayout(suiteDir).oracleDir(task.id);
    mkdirSync(taskDir, { recursive: true });
    mkdirSync(oracleDir, { recursive: true });
    writeFileSync(path.join(taskDir, "setup.sh"), SETUP_SH);
    writeFileSync(
      path.join(taskDir, "check.sh"),
      `#!/usr/bin/env bash\nset -euo pipefail\nhere="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"\nexec "\${LAB_BIN:-lab}" grade --task-dir "$here" "$@"\n`,
    );
    chmodSync(path.join(taskDir, "setup.sh"), 0o755);
    chmodSync(path.join(taskDir, "check.sh"), 0o755);
    writeFileSync(path.join(taskDir, "prompt.txt"), task.prompt ?? `Fix the bug in ${task.id}.\n`);

    // Make the base commit the way setup.sh will, then diff the fix and the tests against it.
    const scratch = path.join(suiteDir, ".scratch", task.id);
    execFileSync("bash", [path.join(taskDir, "setup.sh"), scratch], { env: GIT_ENV });
    const baseCommit = git(scratch, "rev-parse", "HEAD").trim();
    writeFiles(scratch, task.gold);
    git(scratch, "add", "-A");
    writeFileSync(
      path.join(oracleDir, "gold.patch"),
      git(scratch, "diff", "--cached", "--binary", baseCommit),
    );
    git(scratch, "reset", "-q", "--hard", baseCommit);
    writeFiles(scratch, task.tests);
    git(scratch, "add", "-A");
    writeFileSync(
      path.join(oracleDir, "test.patch"),
      git(scratch, "diff", "--cached", "--binary", baseCommit),
    );
    execFileSync("rm", ["-rf", path.join(suiteDir, ".scratch")]);

    writeFileSync(
      path.join(taskDir, "task.json"),
      JSON.stringify(
        { id: task.id, repo: task.id, baseCommit, metadata: { kind: "fixture" } },
        null,
        2,
      ),
    );
    writeFileSync(
      path.join(oracleDir, "tests.json"),
      JSON.stringify({ FAIL_TO_PASS: task.failToPass, PASS_TO_PASS: task.passToPass }),
    );
    writeFileSync(
      path.join(oracleDir, "environment.json"),
      JSON.stringify(
        task.environment ?? {
          python: "3.11",
          pins: task.pins ?? [
            "pytest==8.3.4",
            "pluggy==1.5.0",
            "iniconfig==2.0.0",
            "packaging==24.2",
          ],
          install: "pip install -e . --no-deps",
          testCommand: task.testCommand ?? "pytest -rA",
        },
      ),
    );
  }
  return suiteDir;
}

/** A task over a one-function package: `add` subtracts, and the hidden test catches it. */
export function addTask(id: string, extra: Partial<FixtureTask> = {}): FixtureTask {
  const pkg = id.replace(/[^a-z0-9]/g, "_");
  return {
    id,
    base: {
      "pyproject.toml": pyproject(pkg),
      [`src/${pkg}/__init__.py`]: "def add(a, b):\n    return a - b\n",
      "tests/test_add.py": `from ${pkg} import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n`,
      ".gitignore": "__pycache__/\n*.egg-info/\n.pytest_cache/\n",
    },
    gold: { [`src/${pkg}/__init__.py`]: "def add(a, b):\n    return a + b\n" },
    tests: {
      "tests/test_add.py": `from ${pkg} import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\ndef test_two():\n    assert add(1, 1) == 2\n`,
    },
    failToPass: ["tests/test_add.py::test_two"],
    passToPass: ["tests/test_add.py::test_zero"],
    ...extra,
  };
}

/** A Python task's environment spec, narrowed from an oracle's (fails on a Node task's). */
export function pythonSpec(spec: EnvironmentSpec): PythonEnvironmentSpec {
  if (spec.kind === "node") throw new Error("expected a Python task's environment");
  return spec;
}
