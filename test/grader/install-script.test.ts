/** The script the install steps run as: upstream's lines in one shell, failures logged, not fatal. */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { installScript } from "../../src/grader/install-project.js";
import { tempDir } from "../helpers/temp.js";

describe("installScript", () => {
  it("runs the steps in one shell: a cd carries over, each step is shown, a failure is logged and the next step runs", () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "sub"));
    const result = spawnSync(
      "bash",
      ["-c", installScript(["cd sub", "pwd", "echo 'it''s quoted' && false", "echo after"])],
      { cwd: dir, encoding: "utf8" },
    );
    // Everything on one stream, so the log keeps its order.
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      [
        "+ cd sub",
        "+ pwd",
        path.join(dir, "sub"),
        "+ echo 'it''s quoted' && false",
        "its quoted",
        "lab: install step exited with 1",
        "+ echo after",
        "after",
        "",
      ].join("\n"),
    );
    expect(result.status).toBe(97);
  });

  it("exits 0 when every step succeeds", () => {
    const output = execFileSync("bash", ["-c", installScript(["true", "echo ok"])], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output).toBe("");
  });
});
