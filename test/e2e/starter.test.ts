import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readProofFile } from "../../src/suite/index.js";
import { runLab } from "../helpers/lab.js";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const labBin = path.join(repoRoot, "bin", "lab.js");

beforeAll(() => {
  // A copy, so `gen` writes its proof beside the copy and not into the checkout.
  cpSync(path.join(repoRoot, "evals", "starter"), path.join(evalsDir, "starter"), {
    recursive: true,
  });
});

const at = (...args: string[]) => [
  ...args,
  "--evals-dir",
  evalsDir,
  "--runs-dir",
  path.join(root, "runs"),
];

describe("the starter suite, end to end", () => {
  it("lists at least 8 tasks that span the kinds, scopes and description styles", async () => {
    const result = await runLab(at("scenarios", "--suite", "starter", "--json"), { cwd: root });
    expect(result.code).toBe(0);
    const tasks = JSON.parse(result.stdout) as {
      id: string;
      metadata: Record<string, string | number>;
    }[];
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    const values = (field: string) => new Set(tasks.map((task) => task.metadata[field]));
    expect(values("kind")).toEqual(new Set(["logic", "edge-case", "type-mismatch"]));
    expect(values("scope")).toEqual(new Set(["single-function", "cross-module"]));
    expect(values("description")).toEqual(new Set(["reproduction", "stack-trace", "prose"]));
    expect(tasks.some((task) => task.metadata.goldLines === 2)).toBe(true);
    expect(tasks.some((task) => Number(task.metadata.goldFiles) > 1)).toBe(true);
    const table = await runLab(at("scenarios", "--suite", "starter"), { cwd: root });
    expect(table.stdout).toMatch(/\| textkit-slugify-max-length +\| textkit +\| 5a5c2261bf +\|/);
  });

  it("proves every task: gold resolves it and with no change its FAIL_TO_PASS tests fail", async () => {
    const result = await runLab(at("gen", "--suite", "starter"), { cwd: root });
    expect(result.stderr).not.toContain("NOT proven");
    expect(result.code).toBe(0);
    const proofs = (await readProofFile(path.join(evalsDir, "starter")))?.proofs ?? [];
    expect(proofs.length).toBeGreaterThanOrEqual(8);
    expect(proofs.every((entry) => entry.valid)).toBe(true);
  }, 300_000);

  it("resolves every task with gold, none with noop, and reports both rows", async () => {
    const gold = await runLab(at("run", "gold", "--suite", "starter", "--concurrency", "2"), {
      cwd: root,
    });
    expect(gold.stderr).toMatch(/run starter-gold completed: (\d+)\/\1 resolved/);
    expect(gold.code).toBe(0);
    const noop = await runLab(at("run", "noop", "--suite", "starter", "--concurrency", "2"), {
      cwd: root,
    });
    expect(noop.stderr).toMatch(/run starter-noop completed: 0\/\d+ resolved/);

    const json = await runLab(at("report", "--suite", "starter", "--json"), { cwd: root });
    const rows = JSON.parse(json.stdout) as {
      tool: string;
      tasks: number;
      resolved: number;
      resolve_rate: number;
      apply_rate: number | null;
      empty_changes: number;
      infra_errors: number;
    }[];
    expect(rows.map((row) => row.tool)).toEqual(["gold", "noop"]);
    const [goldRow, noopRow] = rows;
    expect(goldRow).toMatchObject({ resolve_rate: 1, apply_rate: 1, infra_errors: 0 });
    expect(goldRow?.resolved).toBe(goldRow?.tasks);
    // noop's changes are all empty: nothing to apply, counted apart, never a failed apply.
    expect(noopRow).toMatchObject({
      resolved: 0,
      resolve_rate: 0,
      apply_rate: null,
      empty_changes: noopRow?.tasks,
      infra_errors: 0,
    });
    const markdown = await runLab(at("report", "--suite", "starter"), { cwd: root });
    expect(markdown.stdout).toMatch(
      /^\| gold +\| 1 +\| +10 \| +10\/10 \| +100\.0% \| +100\.0% \|/m,
    );
    expect(markdown.stdout).toMatch(/^\| noop +\| 1 +\| +10 \| +0\/10 \| +0\.0% \| +– \| +10 \|/m);
  }, 300_000);

  it("grades through a task's own check.sh, with the built lab binary", () => {
    const taskDir = path.join(evalsDir, "starter", "tasks", "ledger-allocate-negative");
    const env = { ...process.env, LAB_BIN: labBin, LAB_CACHE_DIR: sharedCacheDir };
    const gold = path.join(evalsDir, "starter", "oracle", "ledger-allocate-negative", "gold.patch");
    const resolved = spawnSync("bash", [path.join(taskDir, "check.sh"), "--patch", gold], {
      env,
      encoding: "utf8",
    });
    expect(resolved.stdout).toBe("ledger-allocate-negative: resolved\n");
    expect(resolved.status).toBe(0);

    const tree = path.join(root, "untouched");
    execFileSync("bash", [path.join(taskDir, "setup.sh"), tree]);
    const unresolved = spawnSync("bash", [path.join(taskDir, "check.sh"), tree, "--json"], {
      env,
      encoding: "utf8",
    });
    expect(unresolved.status).toBe(1);
    expect(JSON.parse(unresolved.stdout)).toMatchObject({
      taskId: "ledger-allocate-negative",
      resolved: false,
      patchEmpty: true,
    });
  }, 120_000);

  it("the built binary answers --version and --help", () => {
    expect(existsSync(path.join(repoRoot, "dist", "cli", "bin.js"))).toBe(true);
    const version = spawnSync(process.execPath, [labBin, "--version"], { encoding: "utf8" });
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string })
        .version,
    );
    const help = spawnSync(process.execPath, [labBin, "run", "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: lab run TOOL --suite S [options]");
  });
});
