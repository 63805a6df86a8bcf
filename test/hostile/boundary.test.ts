/**
 * Hostile tools against the sandbox's boundary: each runs through runSuite inside bwrap and
 * must fail, leaving the task unresolved as noop leaves it. See test/fixtures/hostile/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sharedCacheDir } from "../helpers/temp.js";
import { hasBwrap } from "../sandbox/helpers.js";
import { gradedPatch, makeLab, toolReport } from "./helpers.js";

describe.runIf(hasBwrap())("hostile tools against the sandbox boundary", () => {
  const lab = makeLab();

  it("searching the filesystem and processes for the oracle finds nothing", async () => {
    const result = await lab.run("search-oracle.sh", { tasks: ["alpha", "beta"] });
    expect(result.summary).toMatchObject({ trials: 2, resolved: 0, infraErrors: 0 });
    for (const trial of result.results) {
      expect(toolReport(result.runDir, trial), trial.taskId).toEqual([]);
      expect(trial.patchEmpty).toBe(true);
    }
  }, 240_000);

  it("the same search without the sandbox finds the oracle and resolves the task (the control)", async () => {
    const result = await lab.run("search-oracle.sh", { runId: "search-none", sandbox: "none" });
    const trial = result.results[0]!;
    const report = toolReport(result.runDir, trial);
    expect(report.some((line) => line.includes("/oracle/alpha/gold.patch"))).toBe(true);
    expect(report.some((line) => line.startsWith("APPLIED"))).toBe(true);
    expect(trial.resolved).toBe(true);
    expect(result.events).toContainEqual(
      expect.objectContaining({
        type: "log",
        level: "warn",
        message: expect.stringContaining("the trust boundary is NOT enforced") as string,
      }),
    );
  }, 240_000);

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

  // The tool's change runs when it is graded (setup.py at install, the package at import),
  // on the host and unconfined: it could write to lab's shared environment cache.
  it.todo("code in the change runs confined when it is graded (grading is not sandboxed yet)");
});

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
