/**
 * Hostile tools against the sandbox's boundary: each runs through runSuite inside each isolating
 * sandbox (bwrap, docker) and must fail, leaving the task unresolved as noop leaves it. See
 * test/fixtures/hostile/.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { outsideTmpRoot, sharedCacheDir } from "../helpers/temp.js";
import {
  gradedPatch,
  HOSTILE_SANDBOXES,
  makeLab,
  toolReport,
  type IsolatingSandbox,
  type Lab,
} from "./helpers.js";

describe.each(HOSTILE_SANDBOXES)("hostile tools against the sandbox boundary (%s)", (sandbox) => {
  const lab = makeLab({ sandbox });

  it("searching the filesystem and processes for the oracle finds nothing", async () => {
    const result = await lab.run("search-oracle.sh", { tasks: ["alpha", "beta"] });
    expect(result.summary).toMatchObject({ trials: 2, resolved: 0, infraErrors: 0 });
    for (const trial of result.results) {
      expect(toolReport(result.runDir, trial), trial.taskId).toEqual([]);
      expect(trial.patchEmpty).toBe(true);
    }
  }, 240_000);

  // The controls run once, beside bwrap.
  it.runIf(sandbox === "bwrap")(
    "the same search without the sandbox finds the oracle and resolves the task (the control)",
    async () => {
      // Another lab's oracle beside this one, as another test file (or a user's suites) leaves.
      const decoy = path.join(outsideTmpRoot, `hostile-decoy-${String(process.pid)}`);
      const decoyPatch = path.join(decoy, "evals", "fixture", "oracle", "alpha", "gold.patch");
      mkdirSync(path.dirname(decoyPatch), { recursive: true });
      writeFileSync(decoyPatch, "not the fix\n");
      let result;
      try {
        result = await lab.run("search-oracle.sh", { runId: "search-none", sandbox: "none" });
      } finally {
        rmSync(decoy, { recursive: true, force: true });
      }
      const trial = result.results[0]!;
      const report = toolReport(result.runDir, trial);
      // Its own lab's oracle, the nearest to its work tree: not one another test file (or anything
      // else on the machine) has put somewhere the search passes.
      const own = path.join(lab.evalsDir, "fixture", "oracle", "alpha", "gold.patch");
      expect(report).toContain(`FOUND ${own}`);
      expect(report.filter((line) => line.startsWith("APPLIED"))).toEqual([`APPLIED ${own}`]);
      expect(report.filter((line) => line.startsWith("FOUND") && !line.includes(lab.root))).toEqual(
        [],
      );
      expect(trial.resolved).toBe(true);
      expect(result.events).toContainEqual(
        expect.objectContaining({
          type: "log",
          level: "warn",
          message: expect.stringContaining("the trust boundary is NOT enforced") as string,
        }),
      );
    },
    240_000,
  );

  it("looking for the fix in git history finds one commit and no fix", async () => {
    const result = await lab.run("git-history.sh");
    const trial = result.results[0]!;
    const report = toolReport(result.runDir, trial);
    expect(report).toContain("commits: 1");
    expect(report.filter((line) => line.startsWith("FOUND"))).toEqual([]);
    expect(trial).toMatchObject({ resolved: false, patchEmpty: true });
  }, 120_000);

  it("writing outside the work tree reaches only the trial's private HOME, /tmp and /dev/shm", async () => {
    const result = await lab.run("write-outside.sh");
    const trial = result.results[0]!;
    const wrote = toolReport(result.runDir, trial).map((line) => line.replace(/^WROTE /, ""));
    // /tmp, HOME (in the trial's scratch folder) and /dev/shm are the trial's own.
    const privateDirs = ["/tmp/", "/dev/shm/", `${lab.scratchDir}/`];
    expect(wrote.filter((file) => !privateDirs.some((dir) => file.startsWith(dir)))).toEqual([]);
    // On the host: no trace anywhere it aimed, the record is lab's own.
    const marked = (file: string) =>
      existsSync(file) &&
      statSync(file).isFile() &&
      readFileSync(file, "utf8").includes("pwned by");
    const aimedAt = [
      "/tmp/pwned.txt",
      "/pwned.txt",
      "/etc/pwned.txt",
      "/usr/pwned.txt",
      path.join(os.homedir(), "pwned.txt"),
    ];
    expect(aimedAt.filter(marked)).toEqual([]);
    expect(findMarked(lab.root)).toEqual([]);
    expect(findMarked(sharedCacheDir, "sitecustomize.py")).toEqual([]);
    expect(trial).toMatchObject({ resolved: false, outcome: { kind: "graded" } });
    expect(
      JSON.parse(readFileSync(path.join(result.runDir, "trials/alpha/1/result.json"), "utf8")),
    ).toMatchObject({
      tool: "write-outside",
    });
  }, 120_000);

  it("a daemon left to write the fix during grading dies with the tool", async () => {
    const tag = `lab-hostile-daemon-${String(process.pid)}`;
    const result = await lab.run("daemon.sh", { args: tag });
    const trial = result.results[0]!;
    expect(trial).toMatchObject({ resolved: false, patchEmpty: true, outcome: { kind: "graded" } });
    expect(gradedPatch(result.runDir, trial)).not.toContain(".daemon-heartbeat");
    // Its environment was cleared, so no marker finds it: it must be gone all the same.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(processesNamed(tag)).toEqual([]);
  }, 120_000);

  // The tool's change runs when it is graded: its build backend at install, its conftest.py
  // when the tests start. In the sandbox that code sees its checkout, not the host.
  it("code in the change runs confined when it is graded: no home, oracle, runs or cache", async () => {
    const home = fakeHome();
    const tag = `lab-hostile-graded-${String(process.pid)}`;
    const { grading, secrets, result } = await runGraded(lab, sandbox, home, (targets) => [
      ...targets.reads.map((file) => `read:${file}`),
      `write:${path.join(home, "pwned.txt")}`,
      `write:${path.join(sharedCacheDir, "pwned.txt")}`,
      `write:${path.join(sharedCacheDir, "envs", "pwned.txt")}`,
      `write:${path.join(lab.runsDir, "pwned.txt")}`,
      `write:${path.join(lab.evalsDir, "fixture", "oracle", "alpha", "pwned.txt")}`,
      "site",
      `daemon:${tag}`,
    ]);
    // It ran at both stages (so "nothing found" means blocked, not "never tried")...
    expect(grading).toMatch(/HOSTILE install RAN /);
    expect(grading).toMatch(/HOSTILE tests RAN /);
    expect(grading).toMatch(/HOSTILE tests DAEMON /);
    expect(grading).toMatch(
      /HOSTILE tests TRIED \S+\/envs\/py[^/]+\/lib\/python[\d.]+\/site-packages\//,
    );
    // ...and read, wrote and kept nothing.
    // Nothing was read, and the cached environment was not writable. A write may seem to work
    // when its target lies under /tmp (a checkout under /tmp holds lab's cache): it lands in the
    // grade's private /tmp, which is thrown away; the real folders are searched below.
    expect(grading).not.toMatch(/HOSTILE \w+ (READ|WRITABLE) /);
    for (const secret of secrets) expect(grading).not.toContain(secret);
    expect(findMarked(home)).toEqual([]);
    expect(findMarked(lab.root)).toEqual([]);
    expect(findMarked(sharedCacheDir, "lab_hostile_pwned.py")).toEqual([]);
    expect(findMarked(sharedCacheDir, "pwned.txt")).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(processesNamed(tag)).toEqual([]);
    expect(result.results[0]).toMatchObject({ resolved: false, outcome: { kind: "graded" } });
    expect(result.events).toContainEqual(
      expect.objectContaining({
        type: "log",
        message: expect.stringContaining(
          `grading: the change's install and tests run in ${sandbox} too`,
        ) as string,
      }),
    );
  }, 240_000);

  it.runIf(sandbox === "bwrap")(
    "the same code graded without the sandbox reads the home, the oracle and the runs (the control)",
    async () => {
      const home = fakeHome();
      const tag = `lab-hostile-graded-none-${String(process.pid)}`;
      try {
        const { grading, secrets, result } = await runGraded(lab, "none", home, (targets) => [
          ...targets.reads.map((file) => `read:${file}`),
          `write:${path.join(home, "pwned.txt")}`,
          `daemon:${tag}`,
        ]);
        for (const secret of secrets) expect(grading).toContain(secret);
        expect(grading).toContain(`HOSTILE tests WROTE ${path.join(home, "pwned.txt")}`);
        expect(result.events).toContainEqual(
          expect.objectContaining({
            type: "log",
            message: expect.stringContaining(
              "grading: the change's install and tests run unconfined, on the host",
            ) as string,
          }),
        );
      } finally {
        for (const pid of processesNamed(tag)) process.kill(pid, "SIGKILL");
      }
    },
    240_000,
  );
});

/** Fake home folders, outside the lab's root: the control writes its mark into its own. */
let homes: string | undefined;

/** A home folder of its own for one run (not under /tmp, which the sandbox replaces). */
function fakeHome(): string {
  if (homes === undefined) {
    homes = mkdtempSync(path.join(outsideTmpRoot, "hostile-homes-"));
  }
  return mkdtempSync(path.join(homes, "home-"));
}

afterAll(() => {
  if (homes !== undefined) rmSync(homes, { recursive: true, force: true });
});

/**
 * Runs graded-code.sh as the tool over task alpha with HOME set to `home` (the user's home, to
 * lab), the orders given by `orders`; returns the grading log and the secrets it was aimed at.
 */
async function runGraded(
  lab: Lab,
  sandbox: IsolatingSandbox | "none",
  home: string,
  orders: (targets: { reads: string[] }) => string[],
): Promise<{
  grading: string;
  secrets: string[];
  result: Awaited<ReturnType<Lab["run"]>>;
}> {
  const runId = `graded-code-${sandbox}`;
  const secret = `secret of ${path.basename(home)}`;
  writeFileSync(path.join(home, "secret.txt"), `${secret}\n`);
  const oracle = path.join(lab.evalsDir, "fixture", "oracle");
  const reads = [
    path.join(home, "secret.txt"),
    path.join(oracle, "alpha", "gold.patch"),
    path.join(oracle, "beta", "gold.patch"),
    path.join(lab.runsDir, runId, "run.json"),
  ];
  const result = await lab.run("graded-code.sh", {
    args: orders({ reads }).join(" "),
    runId,
    sandbox,
    home,
  });
  const grading = readFileSync(
    path.join(result.runDir, "trials", "alpha", "1", "grader.log"),
    "utf8",
  );
  // What each read would show: the home's secret, and the first line of the others.
  const secrets = [
    secret,
    ...reads.slice(1, 3).map((file) => readFileSync(file, "utf8").split("\n")[0] ?? ""),
  ];
  return { grading, secrets, result };
}

/** Files under `dir` (named `name`, if given) holding the hostile tools' mark. */
function findMarked(dir: string, name?: string): string[] {
  const hits: string[] = [];
  const walk = (current: string): void => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && (name === undefined || entry.name === name)) {
        if (statSync(full).size < 4096 && readFileSync(full, "utf8").includes("pwned by"))
          hits.push(full);
      }
    }
  };
  walk(dir);
  return hits;
}

/** Pids of host processes whose command line holds `tag`. */
function processesNamed(tag: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => line.includes(tag) && !line.includes("ps -eo"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/**
 * The same searches for a JavaScript task (node:test projects as the fixture's tasks): its
 * oracle sits where a Python task's does, and its history is made the same way.
 */
describe.each(HOSTILE_SANDBOXES)(
  "hostile tools against the boundary, on a JS task (%s)",
  (sandbox) => {
    const lab = makeLab({ suite: "fixture-js", sandbox });

    it("searching the filesystem and processes for the oracle finds nothing", async () => {
      const result = await lab.run("search-oracle.sh", { tasks: ["alpha", "beta"] });
      expect(result.summary).toMatchObject({ trials: 2, resolved: 0, infraErrors: 0 });
      for (const trial of result.results) {
        expect(toolReport(result.runDir, trial), trial.taskId).toEqual([]);
        expect(trial.patchEmpty).toBe(true);
      }
    }, 240_000);

    it.runIf(sandbox === "bwrap")(
      "the same search without the sandbox finds the oracle and resolves the task (the control)",
      async () => {
        const result = await lab.run("search-oracle.sh", { runId: "search-none", sandbox: "none" });
        const trial = result.results[0]!;
        const own = path.join(lab.evalsDir, "fixture", "oracle", "alpha", "gold.patch");
        expect(toolReport(result.runDir, trial)).toContain(`APPLIED ${own}`);
        expect(trial.resolved).toBe(true);
      },
      240_000,
    );

    it("looking for the fix in git history finds one commit and no fix", async () => {
      const result = await lab.run("git-history.sh");
      const trial = result.results[0]!;
      const report = toolReport(result.runDir, trial);
      expect(report).toContain("commits: 1");
      expect(report.filter((line) => line.startsWith("FOUND"))).toEqual([]);
      expect(trial).toMatchObject({ resolved: false, patchEmpty: true });
    }, 120_000);
  },
);
