/**
 * `lab report` as a CI gate: --fail-under RATE [--ci] [--tool T] and --no-worse-than B set the
 * exit code (0 held, 1 failed, 2 a usage error) and print the report as usual.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";
import { writeSyntheticRuns, type SyntheticOutcome } from "../helpers/synthetic-runs.js";

const root = tempDir();
const runsDir = path.join(root, "runs");
const IDS = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, "0")}`);
const outcomes = (pick: (i: number) => boolean) =>
  Object.fromEntries(IDS.map((id, i) => [id, [pick(i)] as SyntheticOutcome[]]));

beforeAll(() => {
  // strong 90%, weak 20% (worse than strong: 14 tasks only strong resolves, p < 0.001), and
  // close 80% (not significantly different from strong).
  writeSyntheticRuns(runsDir, [
    { tool: "strong", suite: "s", outcomes: outcomes((i) => i < 18) },
    { tool: "weak", suite: "s", outcomes: outcomes((i) => i < 4) },
    { tool: "close", suite: "s", outcomes: outcomes((i) => i < 16) },
  ]);
});

const report = (...args: string[]) =>
  runLab(["report", "--suite", "s", "--runs-dir", runsDir, ...args], { cwd: root });

describe("lab report --fail-under", () => {
  it("exits 0 when every tool checked is at or over the rate, and prints the report as usual", async () => {
    const result = await report("--fail-under", "0.5", "--tool", "strong", "--tool", "close");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("### Paired comparisons");
    expect(result.stderr).toContain("lab: gate held (strong: 90.0%; close: 80.0%).");
  });

  it("exits 1 when a tool's resolve rate is under the rate, naming it", async () => {
    const result = await report("--fail-under", "50%");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("lab: gate failed: weak's resolve rate 20.0% is under 50.0%.");
    expect(result.stderr).not.toContain("strong's");
    expect(result.stdout).toContain("### Paired comparisons");
  });

  it("with --ci compares the lower end of the interval: 80% clears 0.7, its interval does not", async () => {
    expect((await report("--fail-under", "0.7", "--tool", "close")).code).toBe(0);
    const result = await report("--fail-under", "0.7", "--ci", "--tool", "close");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /lab: gate failed: close's 95% Wilson interval starts at 58\.4%, under 70\.0% \(resolve rate 80\.0%\)\./,
    );
  });
});

describe("lab report --no-worse-than", () => {
  it("exits 1 when a tool is worse than the baseline with significance", async () => {
    const result = await report("--no-worse-than", "strong", "--tool", "weak", "--json");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "lab: gate failed: weak is worse than strong with significance: strong is better than weak:",
    );
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });

  it("exits 0 when the difference is not significant", async () => {
    const result = await report("--no-worse-than", "strong", "--tool", "close");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/lab: gate held \(close against strong: p = /);
  });

  it("says what is wrong with the gate's options (exit 2)", async () => {
    const unknown = await report("--no-worse-than", "nobody");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      '--no-worse-than "nobody": no tool of that name in the report.',
    );
    expect(unknown.stderr).toContain("Tools in the report: close, strong, weak.");
    const ci = await report("--ci");
    expect(ci.code).toBe(2);
    expect(ci.stderr).toContain("--ci goes with --fail-under RATE");
    const rate = await report("--fail-under", "lots");
    expect(rate.code).toBe(2);
    expect(rate.stderr).toContain("--fail-under expects a rate between 0 and 1");
  });

  it("documents its exit codes in --help", async () => {
    const help = await runLab(["report", "--help"], { cwd: root });
    expect(help.stdout).toContain(
      "Exit codes: 0 the report was made and every gate held; 1 a gate failed",
    );
  });
});
