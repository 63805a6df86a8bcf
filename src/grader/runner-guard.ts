/**
 * The runner guard, from a folder of the grade's that the tests can read but not write, loaded
 * before the project's code: for pytest a plugin of lab's (`runner-guard.py.ts`) loaded with
 * `-p`, for SymPy's bin/test a `sitecustomize` module (`sympy-guard.py.ts`) that watches the
 * import of SymPy's test runner, for unittest (Django's runtests.py) one that watches the
 * import of `unittest` and `django.test.runner` (`unittest-guard.py.ts`). It notes the runner's reporting path as loaded and, at the
 * end, prints what of it was replaced or wrapped, then the canaries' sentinel line. See
 * docs/design/canaries.md.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { RUNNER_GUARD_PY } from "./runner-guard.py.js";
import { SYMPY_GUARD_PY } from "./sympy-guard.py.js";
import { UNITTEST_GUARD_PY } from "./unittest-guard.py.js";

/** The runners lab has a guard for. */
export type GuardedRunner = "pytest" | "sympy" | "unittest";

/** The plugin's module name, as `-p` names it. */
export const RUNNER_GUARD_MODULE = "lab_runner_guard";

/** Writes the runner's guard into `dir` (made if missing); returns `dir`. */
export async function writeRunnerGuard(
  dir: string,
  runner: GuardedRunner = "pytest",
): Promise<string> {
  await mkdir(dir, { recursive: true });
  if (runner === "sympy") await writeFile(path.join(dir, "sitecustomize.py"), SYMPY_GUARD_PY);
  else if (runner === "unittest")
    await writeFile(path.join(dir, "sitecustomize.py"), UNITTEST_GUARD_PY);
  else await writeFile(path.join(dir, `${RUNNER_GUARD_MODULE}.py`), RUNNER_GUARD_PY);
  return dir;
}

/**
 * The test run's variables that load the guard from `dir`: it first on PYTHONPATH, the grade's
 * token, which the guard prints its lines with, and for pytest `-p` added to PYTEST_ADDOPTS
 * (which the plugin takes out again, so pytest runs the tests start do not load it). SymPy's
 * guard stays on PYTHONPATH: bin/test runs the tests in a child Python it starts. The unittest
 * guard takes its folder and token out of the environment of the Pythons the tests start.
 */
export function runnerGuardEnv(
  dir: string,
  token: string,
  env: Readonly<Record<string, string>>,
  runner: GuardedRunner = "pytest",
): Record<string, string> {
  const common = {
    PYTHONPATH: [dir, env.PYTHONPATH ?? ""].filter(Boolean).join(path.delimiter),
    LAB_RUNNER_GUARD: token,
  };
  if (runner !== "pytest") return common;
  return {
    ...common,
    PYTEST_ADDOPTS: `${env.PYTEST_ADDOPTS ?? ""} -p ${RUNNER_GUARD_MODULE}`.trim(),
  };
}

/** What the plugin printed in a test log: whether it loaded, and what it found changed. */
export function readRunnerGuard(
  log: string,
  token: string,
): { readonly loaded: boolean; readonly changed: string[] } {
  const changed: string[] = [];
  const prefix = `lab-runner-changed ${token}: `;
  for (const line of log.split("\n")) {
    const at = line.indexOf(prefix);
    if (at !== -1) changed.push(line.slice(at + prefix.length).trim());
  }
  return { loaded: log.includes(`\nlab-runner-guard ${token}\n`), changed: [...new Set(changed)] };
}
