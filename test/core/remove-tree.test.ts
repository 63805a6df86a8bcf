import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp.js";

describe("removeTree", () => {
  it("removes a folder left without permissions, which a plain removal cannot (as an unprivileged user)", () => {
    const root = tempDir();
    const target = path.join(root, "scratch");
    mkdirSync(path.join(target, "closed", "deeper"), { recursive: true });
    writeFileSync(path.join(target, "closed", "deeper", "file.txt"), "x\n");
    execFileSync("ln", ["-s", "/etc", path.join(target, "closed", "host-link")]);
    const script = path.join(root, "remove.mts");
    writeFileSync(
      script,
      `import { rm } from "node:fs/promises";
import { removeTree } from ${JSON.stringify(path.join(repoRoot, "src", "core", "remove-tree.ts"))};
const plain = await rm(${JSON.stringify(target)}, { recursive: true, force: true }).then(() => "removed", (error) => error.code);
const left = await removeTree(${JSON.stringify(target)});
process.stdout.write(JSON.stringify({ plain, left: left?.message ?? null }));
`,
    );
    let argv = [path.join(repoRoot, "node_modules", ".bin", "tsx"), script];
    if (process.getuid?.() === 0) {
      // Root removes anything: the removal runs as nobody, over files nobody owns.
      execFileSync("chown", ["-R", "-h", "nobody:nogroup", root]);
      argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv];
    }
    chmodSync(path.join(target, "closed", "deeper"), 0);
    chmodSync(path.join(target, "closed"), 0o500);
    const [program = "", ...args] = argv;
    const child = spawnSync(program, args, {
      encoding: "utf8",
      env: { ...process.env, HOME: root },
    });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ plain: "EACCES", left: null });
    expect(existsSync(target)).toBe(false);
    expect(existsSync("/etc/passwd")).toBe(true);
  });
});
