import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

beforeAll(() => {
  writeFixtureSuite(path.join(root, "evals"), "fixture", [addTask("alpha")]);
});

describe("tools declared in lab.config.json", () => {
  it("run with their placeholders filled, only the variables they name passed through, and their own limit", async () => {
    // Written to the trial's artifacts folder, the only place outside its work tree a sandboxed tool may write.
    const seen = path.join(root, "runs/fixture-fixer/trials/alpha/1/artifacts/seen.txt");
    writeFileSync(
      path.join(root, "lab.config.json"),
      JSON.stringify({
        tools: {
          fixer: {
            command: `seen="$(dirname "$LAB_TELEMETRY_FILE")/seen.txt"; cat {prompt_file} > "$seen"; echo "workdir={workdir} key=$FIXER_KEY secret=\${LAB_TEST_SECRET:-none}" >> "$seen"; sed -i 's/a - b/a + b/' src/*/__init__.py`,
            env: ["FIXER_KEY"],
            version: "2.1.0",
          },
          sleeper: { command: "sleep 30", timeout: "1s" },
        },
      }),
    );
    const env = { FIXER_KEY: "k-123", LAB_TEST_SECRET: "must-not-leak" };
    const result = await runLab(["run", "fixer", "--suite", "fixture"], { cwd: root, env });
    expect(result.stderr).toContain("lab: starting run fixture-fixer: fixer 2.1.0 on fixture");
    expect(result.stderr).toMatch(/alpha #1: resolved/);
    const text = readFileSync(seen, "utf8");
    expect(text).toContain("Fix the bug in alpha.");
    expect(text).toMatch(/workdir=\/.*\/work key=k-123 secret=none/);

    const slow = await runLab(["run", "sleeper", "--suite", "fixture"], { cwd: root });
    expect(slow.stderr).toMatch(/alpha #1: unresolved \(tool timed out\)/);
    const record = JSON.parse(
      readFileSync(path.join(root, "runs/fixture-sleeper/trials/alpha/1/result.json"), "utf8"),
    ) as { phaseMs: { tool: number } };
    expect(record.phaseMs.tool).toBeLessThan(10_000);
  });

  it("report one row per tool, and JSON with the documented fields", async () => {
    const result = await runLab(["report", "--suite", "fixture", "--json"], { cwd: root });
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows.map((row) => row.tool)).toEqual(["fixer", "sleeper"]);
    for (const field of [
      "tool",
      "tasks",
      "resolved",
      "resolve_rate",
      "apply_rate",
      "cost_per_task",
      "latency_mean_s",
      "latency_median_s",
      "infra_errors",
    ]) {
      expect(rows[0]).toHaveProperty(field);
    }
    expect(rows[0]).toMatchObject({
      tool: "fixer",
      tool_version: "2.1.0",
      tasks: 1,
      resolved: 1,
      resolve_rate: 1,
      apply_rate: 1,
    });
    const only = await runLab(["report", "--suite", "fixture", "--run-id", "fixture-sleeper"], {
      cwd: root,
    });
    expect(only.stdout).toContain("| sleeper");
    expect(only.stdout).not.toContain("| fixer");
    const missing = await runLab(["report", "--suite", "fixture", "--run-id", "nope"], {
      cwd: root,
    });
    expect(missing.stderr).toContain('No run "nope" of suite "fixture"');
  });
});
