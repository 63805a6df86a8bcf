import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isWithin, mountArgs, toolPathMounts } from "../../src/sandbox/mounts.js";
import { outsideTmpRoot } from "../helpers/temp.js";
const root = mkdtempSync(path.join(outsideTmpRoot, "mounts-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const dir = (...parts: string[]): string => {
  const full = path.join(root, ...parts);
  mkdirSync(full, { recursive: true });
  return full;
};

describe("which PATH folders a tool sees", () => {
  const home = dir("home");
  const hidden = [dir("evals"), dir("runs"), dir("cache")];
  const shown = (pathEnv: string[], extra: string[] = []) =>
    toolPathMounts({ pathEnv: pathEnv.join(":"), extra, hidden, hostHome: home });

  it("shows a folder outside home with its installation prefix, and skips the system's", () => {
    const bin = dir("opt-node", "bin");
    const { mounts } = shown([bin, "/usr/bin", "/bin", "relative/bin", path.join(root, "missing")]);
    expect(mounts).toEqual([
      { kind: "ro-bind-try", source: dir("opt-node"), dest: dir("opt-node") },
    ]);
  });

  it("inside home shows only the entry, except for known tool managers' roots", () => {
    const cargo = dir("home", ".cargo", "bin");
    const pyenvShims = dir("home", ".pyenv", "shims");
    const nvm = dir("home", ".nvm", "versions", "node", "v20", "bin");
    const { mounts } = shown([cargo, pyenvShims, nvm]);
    expect(mounts.map((mount) => (mount.kind === "symlink" ? "" : mount.source))).toEqual([
      cargo,
      dir("home", ".pyenv"),
      dir("home", ".nvm", "versions", "node", "v20"),
    ]);
  });

  it("refuses folders that hold, are, or lie inside a hidden folder or the home, even through a symlink", () => {
    const link = path.join(root, "innocent");
    symlinkSync(dir("runs", "bin"), link);
    const { mounts } = shown([root, dir("evals", "bin"), dir("cache", "tools", "bin"), link, home]);
    expect(mounts).toEqual([]);
  });

  it("reports the tool's own paths it refuses, and shows a single file", () => {
    const file = path.join(dir("agent"), "agent.bin");
    writeFileSync(file, "");
    chmodSync(file, 0o755);
    const result = shown([], [file, dir("cache", "agent"), root]);
    expect(result.mounts).toEqual([{ kind: "ro-bind-try", source: file, dest: file }]);
    expect(result.refusedExtra).toEqual([dir("cache", "agent"), root]);
  });
});

describe("mount helpers", () => {
  it("knows what lies within what", () => {
    expect(isWithin("/a/b", "/a")).toBe(true);
    expect(isWithin("/a", "/a")).toBe(true);
    expect(isWithin("/ab", "/a")).toBe(false);
    expect(isWithin("/a", "/")).toBe(true);
  });

  it("turns mounts into bwrap options in order", () => {
    expect(
      mountArgs([
        { kind: "symlink", target: "usr/bin", dest: "/bin" },
        { kind: "ro-bind", source: "/usr", dest: "/usr" },
        { kind: "bind", source: "/w", dest: "/w" },
      ]),
    ).toEqual(["--symlink", "usr/bin", "/bin", "--ro-bind", "/usr", "/usr", "--bind", "/w", "/w"]);
  });
});
