/**
 * The runner guard: a pytest plugin of lab's (`runner-guard.py.ts`), loaded with `-p` from a
 * folder of the grade's that the tests can read but not write, before the project's code. It
 * notes pytest's reporting path as loaded and, at exit, prints what of it was replaced or
 * wrapped, then the canaries' sentinel line. See docs/design/canaries.md.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { RUNNER_GUARD_PY } from "./runner-guard.py.js";

/** The plugin's module name, as `-p` names it. */
export const RUNNER_GUARD_MODULE = "lab_runner_guard";

/** Writes the plugin into `dir` (made if missing); returns `dir`. */
export async function writeRunnerGuard(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${RUNNER_GUARD_MODULE}.py`), RUNNER_GUARD_PY);
  return dir;
}

/**
 * The test run's variables that load the plugin from `dir`: it first on PYTHONPATH, `-p` added
 * to PYTEST_ADDOPTS (which the plugin takes out again, so pytest runs the tests start do not
 * load it), and the grade's token, which the plugin prints its lines with.
 */
export function runnerGuardEnv(
  dir: string,
  token: string,
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    PYTHONPATH: [dir, env.PYTHONPATH ?? ""].filter(Boolean).join(path.delimiter),
    PYTEST_ADDOPTS: `${env.PYTEST_ADDOPTS ?? ""} -p ${RUNNER_GUARD_MODULE}`.trim(),
    LAB_RUNNER_GUARD: token,
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
