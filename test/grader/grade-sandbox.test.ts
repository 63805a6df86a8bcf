/**
 * Grading in a sandbox: what the change's code sees when it is installed and tested, that its
 * processes end with the grade, and that lab's own git afterwards ignores what it did to .git.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SandboxLimits, SandboxProvider } from "../../src/core/index.js";
import {
  defaultGradeProvider,
  gradeHiddenPaths,
  pathsNamedBy,
} from "../../src/grader/grade-sandbox.js";
import { gradeChange, type GradeOptions } from "../../src/grader/index.js";
import { resolveSandboxProvider } from "../../src/sandbox/index.js";
import { loadOracle, loadSuite, loadTask } from "../../src/suite/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { testEnvironment } from "../helpers/lab.js";
import { outsideTmpRoot, sharedCacheDir } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";

// Not under /tmp: the sandbox has a /tmp of its own, so a secret there would be out of sight
// whatever the sandbox's rules were.
const root = mkdtempSync(path.join(outsideTmpRoot, "confine-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const evalsDir = path.join(root, "evals");
const userHome = path.join(root, "home");
const runs = path.join(root, "runs");
const filterRan = path.join(root, "filter-ran");
const victim = path.join(root, "victim");
mkdirSync(userHome);
mkdirSync(runs);
mkdirSync(victim);
writeFileSync(path.join(victim, "test_new.py"), "a file of the host\n");
writeFileSync(path.join(userHome, "secret.txt"), "the user's secret\n");
writeFileSync(path.join(runs, "secret.txt"), "a run's record\n");
const tag = `lab-confine-daemon-${String(process.pid)}`;

/** Prints `PROBE yes|no <what>` for each thing graded code might try. */
const PROBE = `
check() { if eval "$2" >/dev/null 2>&1; then echo "PROBE yes $1"; else echo "PROBE no $1"; fi; }
site=$(python -c 'import sys; print(next(p for p in sys.path if p.endswith("site-packages") and not p.startswith(sys.prefix)))')
env_root=$(dirname "$(dirname "$(dirname "$site")")")
git_dir=$(sed 's/^gitdir: //' .git)
check read-user-home "cat ${path.join(userHome, "secret.txt")}"
check read-oracle "cat ${path.join(evalsDir, "confine", "oracle", "probe", "gold.patch")}"
check read-runs "cat ${path.join(runs, "secret.txt")}"
check see-cache-beyond-env "test -e ${path.join(sharedCacheDir, "uv")} || test -e ${path.join(sharedCacheDir, "proof-logs")}"
check read-cached-env "cat $env_root/lab-env.json"
check write-cached-env "touch $site/lab-probe.txt"
check write-git-dir "touch $git_dir/lab-probe.txt"
check read-git-history "git log -1"
check write-checkout "touch lab-probe.txt"
check write-venv "touch $VIRTUAL_ENV/lab-probe.txt"
check write-home "touch $HOME/lab-probe.txt"
check write-tmp "touch /tmp/lab-probe.txt"
check write-tmpdir "touch $TMPDIR/lab-probe.txt"
check run-pip "pip list"
`;

/** Tries to make lab's own git run a filter on the host after the install. */
const GIT_ATTACK = `
git_dir=$(sed 's/^gitdir: //' .git)
git --git-dir="$git_dir" config filter.lab.smudge "touch ${filterRan}" && echo "PROBE wrote the git config"
cp -R "$git_dir" evil-git
git --git-dir=evil-git config filter.lab.smudge "touch ${filterRan}"
echo '* filter=lab' >.gitattributes
echo '# lab must check this out again' >>tests/test_add.py
echo "gitdir: $PWD/evil-git" >.git
`;

writeFixtureSuite(evalsDir, "confine", [
  addTask("probe"),
  addTask("git"),
  addTask("daemon"),
  addTask("link", {
    tests: { "tests/new/test_new.py": "def test_new():\n    pass\n" },
    failToPass: ["tests/new/test_new.py::test_new"],
    passToPass: [],
  }),
]);
for (const [id, preInstall] of [
  ["probe", [PROBE]],
  ["git", [GIT_ATTACK]],
  // The folder of a new hidden test file becomes a link to a folder of the host, where lab
  // removes that file before it applies the hidden tests.
  ["link", [`ln -s ${victim} tests/new`]],
] as const) {
  const file = path.join(evalsDir, "confine", "oracle", id, "environment.json");
  const spec = JSON.parse(readFileSync(file, "utf8")) as object;
  writeFileSync(file, JSON.stringify({ ...spec, preInstall }));
}

/** A change adding a conftest.py that leaves a process behind (its environment cleared or not). */
function daemonPatch(clearEnvironment: boolean): string {
  return conftestPatch([
    "import os, subprocess",
    "",
    `subprocess.Popen(["sh", "-c", "sleep 300; : ${tag}"], start_new_session=True, env=${clearEnvironment ? '{"PATH": "/usr/bin:/bin"}' : "dict(os.environ)"}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
  ]);
}

/** A change adding a conftest.py of these lines. */
function conftestPatch(lines: readonly string[]): string {
  return [
    "diff --git a/conftest.py b/conftest.py",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/conftest.py",
    `@@ -0,0 +1,${String(lines.length)} @@`,
    ...lines.map((line) => `+${line}`),
    "",
  ].join("\n");
}

async function grade(
  id: string,
  provider: SandboxProvider,
  patch?: string,
  limits?: SandboxLimits,
): Promise<{ log: string; resolved: boolean; reason: string | null; statuses: number }> {
  const suite = await loadSuite("confine", { evalsDir, cwd: root });
  const task = await loadTask(suite, id);
  const oracle = await loadOracle(task);
  const scratch = mkdtempSync(path.join(root, "grade-"));
  const options: GradeOptions = {
    scratchDir: scratch,
    logFile: `${scratch}.log`,
    environment: testEnvironment(),
    setupTimeoutMs: 60_000,
    installTimeoutMs: 300_000,
    testTimeoutMs: 120_000,
    sandbox: { provider, hostHome: userHome, hiddenPaths: [runs], limits },
  };
  const { grade } = await gradeChange(task, oracle, { patch: patch ?? oracle.goldPatch }, options);
  return {
    log: readFileSync(options.logFile, "utf8"),
    resolved: grade.resolved,
    reason: grade.reason,
    statuses: Object.keys(grade.statuses).length,
  };
}

function probes(log: string): Record<string, boolean> {
  return Object.fromEntries(
    [...log.matchAll(/^PROBE (yes|no) (\S+)$/gm)].map((match) => [
      match[2] ?? "",
      match[1] === "yes",
    ]),
  );
}

/** Pids of host processes whose command line holds `text`. */
function processesNamed(text: string): number[] {
  return execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(text) && !line.includes("ps -eo"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe.runIf(hasBwrap())("grading in bwrap", () => {
  const bwrap = resolveSandboxProvider("bwrap", {
    pathEnv: process.env.PATH ?? "/usr/bin:/bin",
  });

  it("shows the change's code its checkout, venv, HOME and /tmp, the cached environment read-only, and nothing else", async () => {
    const { log, resolved } = await grade("probe", bwrap);
    expect(log).toContain("lab: the install and the tests run in the bwrap sandbox");
    expect(probes(log)).toEqual({
      "read-user-home": false,
      "read-oracle": false,
      "read-runs": false,
      "see-cache-beyond-env": false,
      "read-cached-env": true,
      "write-cached-env": false,
      "write-git-dir": false,
      "read-git-history": true,
      "write-checkout": true,
      "write-venv": true,
      "write-home": true,
      "write-tmp": true,
      "write-tmpdir": true,
      "run-pip": true,
    });
    // The install and the tests still work in there.
    expect(resolved).toBe(true);
  }, 180_000);

  it("keeps lab's own git, after the install, away from what the change did to .git", async () => {
    const { log, statuses } = await grade("git", bwrap);
    expect(log).not.toMatch(/^PROBE wrote the git config$/m);
    // No filter ran on the host, and the hidden tests were put in place (a checkout and an
    // apply) and ran.
    expect(existsSync(filterRan)).toBe(false);
    expect(statuses).toBeGreaterThan(0);
  }, 180_000);

  it("removes a link the install put where a new hidden test goes, not the file it points to", async () => {
    const { resolved } = await grade("link", bwrap);
    expect(readFileSync(path.join(victim, "test_new.py"), "utf8")).toBe("a file of the host\n");
    expect(resolved).toBe(true);
  }, 180_000);

  it("ends a test run that goes over the run's disk limit, and says so", async () => {
    const fill = conftestPatch([
      "import os, tempfile, time",
      "",
      "for i in range(5):",
      '    with open(os.path.join(tempfile.gettempdir(), f"fill{i}"), "wb") as out:',
      '        out.write(b"x" * (30 << 20))',
      "time.sleep(60)",
    ]);
    const { log, reason } = await grade("daemon", bwrap, fill, {
      memoryMb: null,
      diskMb: 64,
      maxProcesses: null,
    });
    expect(reason).toBe("the tests went over the sandbox's disk limit");
    expect(log).toContain("lab: the sandbox's disk limit (64 MiB) was passed");
  }, 180_000);

  it("ends every process of the test run with it, even one that left its session and cleared its environment", async () => {
    try {
      const { log } = await grade("daemon", bwrap, daemonPatch(true));
      expect(log).toContain(">>>>> Test Exit Code");
      expect(processesNamed(tag)).toEqual([]);
    } finally {
      for (const pid of processesNamed(tag)) process.kill(pid, "SIGKILL");
    }
  }, 180_000);
});

describe("grading without a sandbox", () => {
  const none = resolveSandboxProvider("none");

  it("says so in the log, and still ends a process the tests left behind", async () => {
    try {
      const { log } = await grade("daemon", none, daemonPatch(false));
      expect(log).toContain(
        "lab: the install and the tests run on the host, unconfined (sandbox none)",
      );
      expect(processesNamed(tag)).toEqual([]);
    } finally {
      for (const pid of processesNamed(tag)) process.kill(pid, "SIGKILL");
    }
  }, 180_000);
});

describe("the grading sandbox's choices", () => {
  it("default to bwrap where it works, else none", async () => {
    const provider = await defaultGradeProvider(process.env.PATH ?? "/usr/bin:/bin");
    expect(provider.name).toBe(hasBwrap() ? "bwrap" : "none");
  });

  it("hide the task's evals folder, lab's cache and the grade's scratch", () => {
    expect(
      gradeHiddenPaths({ oracleDir: "/e/suite/oracle/t1" }, "/cache", "/scratch/grade"),
    ).toEqual(["/e", "/cache", "/scratch/grade"]);
  });

  it("show only the files lab's variables name that exist", () => {
    const site = path.join(root, "site");
    mkdirSync(site, { recursive: true });
    expect(
      pathsNamedBy({ PYTHONPATH: `${site}:relative:${path.join(root, "gone")}`, OTHER: site }, [
        "PYTHONPATH",
        "UV_CONSTRAINT",
      ]),
    ).toEqual([site]);
  });
});
