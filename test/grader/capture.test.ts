import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { captureWorkTree } from "../../src/grader/capture.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

/** A base commit, a clean clone of it, and a work tree (another clone) for the tool's mess. */
function setUp(): { clean: string; work: string; scratch: string; base: string } {
  const root = tempDir();
  const origin = path.join(root, "origin");
  mkdirSync(path.join(origin, "src"), { recursive: true });
  writeFileSync(path.join(origin, "src", "m.py"), "x = 1\n");
  writeFileSync(path.join(origin, ".gitignore"), "venv/\n");
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });
  git(origin, "init", "-q");
  git(origin, "add", "-A");
  git(origin, "commit", "-qm", "base");
  const base = git(origin, "rev-parse", "HEAD").trim();
  const clean = path.join(root, "clean");
  const work = path.join(root, "work");
  git(root, "clone", "-q", origin, clean);
  git(root, "clone", "-q", origin, work);
  writeFileSync(path.join(work, "src", "m.py"), "x = 2\n");
  const scratch = path.join(root, "scratch");
  mkdirSync(scratch);
  return { clean, work, scratch, base };
}

const capture = (
  places: ReturnType<typeof setUp>,
  limits?: { fileBytes: number; diffBytes: number },
) =>
  captureWorkTree({
    workTree: places.work,
    gitDir: path.join(places.clean, ".git"),
    baseCommit: places.base,
    scratchDir: places.scratch,
    limits,
  });

describe("taking a work tree as a diff", () => {
  it("leaves out nested repositories, refused names and huge files, and takes the rest", async () => {
    const places = setUp();
    const { work } = places;
    execFileSync("git", ["init", "-q", path.join(work, "vendor", "empty")]);
    writeFileSync(path.join(work, "GIT~1"), "1\n");
    mkdirSync(path.join(work, "d", ".Git"), { recursive: true });
    writeFileSync(path.join(work, "d", ".Git", "x"), "2\n");
    execFileSync("truncate", ["-s", "60M", path.join(work, "big.bin")]);
    // A big file git ignores anyway is passed over without a word.
    mkdirSync(path.join(work, "venv"));
    execFileSync("truncate", ["-s", "60M", path.join(work, "venv", "lib.so")]);
    writeFileSync(path.join(work, "new.py"), "y = 1\n");
    const captured = await capture(places);
    expect(captured.leftOut).toEqual([
      "big.bin: 60 MB, over lab's limit of 50 MB for one file",
      "d/.Git: a name git refuses",
      "GIT~1: a name git refuses",
      "vendor/empty: a git repository of its own",
    ]);
    expect("patch" in captured ? captured.patch : captured.refused).toMatch(
      /^diff --git a\/new\.py b\/new\.py\n[\s\S]*diff --git a\/src\/m\.py b\/src\/m\.py\n[\s\S]*\+x = 2\n$/,
    );
  });

  it("leaves a submodule of the base commit out without a word, as git's own diff does", async () => {
    const places = setUp();
    const { clean, work } = places;
    const git = (cwd: string, ...args: string[]): string =>
      execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();
    // The base commit pins helpers/ (a gitlink); the work tree has it checked out, and changed.
    const helpers = path.join(work, "helpers");
    git(work, "init", "-q", helpers);
    writeFileSync(path.join(helpers, "h.py"), "v = 1\n");
    git(helpers, "add", "-A");
    git(helpers, "commit", "-qm", "h");
    const pinned = git(helpers, "rev-parse", "HEAD");
    writeFileSync(path.join(helpers, "h.py"), "v = 2\n");
    git(clean, "update-index", "--add", "--cacheinfo", `160000,${pinned},helpers`);
    git(clean, "commit", "-qm", "pin helpers");
    const base = git(clean, "rev-parse", "HEAD");
    // A nested repository the base commit does not pin is still named.
    git(work, "init", "-q", path.join(work, "vendor", "other"));
    const captured = await capture({ ...places, base });
    expect(captured.leftOut).toEqual(["vendor/other: a git repository of its own"]);
    expect("patch" in captured ? captured.patch : captured.refused).toMatch(
      /^diff --git a\/src\/m\.py b\/src\/m\.py\n[\s\S]*\+x = 2\n$/,
    );
  });

  it("refuses a diff over the limit: the tool's outcome, with the reason", async () => {
    const places = setUp();
    writeFileSync(path.join(places.work, "data.txt"), "z".repeat(4000).replace(/z/g, "zq\n"));
    const captured = await capture(places, { fileBytes: 1 << 20, diffBytes: 2048 });
    expect("refused" in captured ? captured.refused : "").toMatch(
      /^the change is \d+ KB as a diff, over lab's limit of 2 KB$/,
    );
  });

  it("leaves out what lab's user cannot read (run as an unprivileged user when lab is root)", () => {
    const places = setUp();
    const { work } = places;
    writeFileSync(path.join(work, "locked.txt"), "secret\n");
    mkdirSync(path.join(work, "closed"));
    writeFileSync(path.join(work, "closed", "inside.txt"), "x\n");
    const script = `
      import { captureWorkTree } from ${JSON.stringify(path.join(repoRoot, "src", "grader", "capture.ts"))};
      const captured = await captureWorkTree(${JSON.stringify({
        workTree: work,
        gitDir: path.join(places.clean, ".git"),
        baseCommit: places.base,
        scratchDir: places.scratch,
      })});
      process.stdout.write(JSON.stringify(captured));
    `;
    const tsx = path.join(repoRoot, "node_modules", ".bin", "tsx");
    const file = path.join(path.dirname(work), "capture.mts");
    writeFileSync(file, script);
    let argv = [tsx, file];
    if (process.getuid?.() === 0) {
      // Root reads everything: the capture runs as nobody, over files nobody owns.
      const root = path.dirname(work);
      execFileSync("chown", ["-R", "nobody:nogroup", root]);
      chownSync(root, 65534, 65534);
      argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ...argv];
    }
    chmodSync(path.join(work, "locked.txt"), 0);
    chmodSync(path.join(work, "closed"), 0);
    const [program = "", ...args] = argv;
    const child = spawnSync(program, args, {
      encoding: "utf8",
      env: {
        ...process.env,
        HOME: path.dirname(work),
        TSX_TSCONFIG_PATH: path.join(repoRoot, "tsconfig.json"),
      },
    });
    expect(child.status, child.stderr).toBe(0);
    const captured = JSON.parse(child.stdout) as { patch?: string; leftOut: string[] };
    expect(captured.leftOut).toEqual([
      "closed: a folder lab cannot read",
      "locked.txt: a file lab cannot read",
    ]);
    expect(captured.patch).toContain("+x = 2");
  });
});
