import { cpSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readProofFile } from "../../src/suite/index.js";
import { runLab } from "../helpers/lab.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");

beforeAll(() => {
  // A copy, so `gen` writes its proof beside the copy and not into the checkout.
  cpSync(path.join(repoRoot, "evals", "starter-js"), path.join(evalsDir, "starter-js"), {
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

// Through the shared test cache: Node 20.20.2, npm and routekit's install are fetched once, then
// reused, so after the first time this file costs a few grades of small JS projects.
describe("the starter-js suite (JS/TS), end to end", () => {
  it("proves all six tasks: gold resolves each, with no change its FAIL_TO_PASS tests fail", async () => {
    const result = await runLab(at("gen", "--suite", "starter-js"), { cwd: root });
    expect(result.stderr).not.toContain("NOT proven");
    expect(result.code).toBe(0);
    const proofs = (await readProofFile(path.join(evalsDir, "starter-js")))?.proofs ?? [];
    expect(proofs.map((entry) => entry.taskId).sort()).toEqual([
      "routekit-numeric-params",
      "routekit-optional-param",
      "routekit-reserved-characters",
      "semrange-caret-zero-major",
      "semrange-prerelease-numeric-order",
      "semrange-semver-objects",
    ]);
    expect(proofs.every((entry) => entry.valid)).toBe(true);
  }, 600_000);

  it("resolves 6/6 with gold and 0/6 with noop, and reports both rows", async () => {
    const gold = await runLab(at("run", "gold", "--suite", "starter-js", "--concurrency", "2"), {
      cwd: root,
    });
    expect(gold.stderr).toMatch(/run starter-js-gold completed: 6\/6 resolved/);
    expect(gold.code).toBe(0);
    const noop = await runLab(at("run", "noop", "--suite", "starter-js", "--concurrency", "2"), {
      cwd: root,
    });
    expect(noop.stderr).toMatch(/run starter-js-noop completed: 0\/6 resolved/);

    const json = await runLab(at("report", "--suite", "starter-js", "--json"), { cwd: root });
    const rows = JSON.parse(json.stdout) as {
      tool: string;
      tasks: number;
      resolved: number;
      apply_rate: number | null;
      empty_changes: number;
      infra_errors: number;
    }[];
    expect(rows.map((row) => row.tool)).toEqual(["gold", "noop"]);
    expect(rows[0]).toMatchObject({ tasks: 6, resolved: 6, apply_rate: 1, infra_errors: 0 });
    expect(rows[1]).toMatchObject({
      tasks: 6,
      resolved: 0,
      apply_rate: null,
      empty_changes: 6,
      infra_errors: 0,
    });
  }, 600_000);
});
