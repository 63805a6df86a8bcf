/**
 * Runs before every test file (vitest's `setupFiles`). A machine that has used lab may export
 * its settings in the shell: LAB_RUNS_DIR, LAB_SANDBOX, LAB_CONFIG, LAB_TRIALS, ... Tests name
 * the folders and settings they use, and lab reads LAB_* over its defaults, so a user's variable
 * would change what a test runs (or where its runs go). They are removed here. Kept: the tests'
 * own variables (LAB_TEST_*), LAB_UV, which only says where a uv binary is, and the switches of
 * the opt-in test/e2e/swebench-real.test.ts (LAB_MIRRORS, LAB_REAL_INSTANCES); every other test
 * names its mirrors with a flag, which wins over LAB_MIRRORS.
 */

/** The LAB_* variables a test run keeps from its shell (test/structure/env-isolation.test.ts). */
const KEPT_LAB_VARIABLE = /^LAB_(TEST_\w+|UV|MIRRORS|REAL_INSTANCES)$/;

for (const name of Object.keys(process.env))
  if (name.startsWith("LAB_") && !KEPT_LAB_VARIABLE.test(name))
    Reflect.deleteProperty(process.env, name);
