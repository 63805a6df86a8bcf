/**
 * The docker sandbox's pure parts: how images are named, where debootstrap fetches from, how
 * `--mount` fields are escaped, and how the init's status is read. No engine needed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mountField } from "../../src/sandbox/docker-cli.js";
import {
  BASE_PACKAGES,
  debianMirror,
  imageTags,
  SANDBOX_NODE_VERSION,
} from "../../src/sandbox/docker-image.js";
import { CONTAINER_INIT, parseInitStatus } from "../../src/sandbox/docker-init.js";
import { removeTree } from "../../src/sandbox/rootfs.js";

describe("lab's docker images", () => {
  it("are named by what goes into them: the same inputs, the same tags; another input, another tag", () => {
    const x64 = imageTags("x64");
    expect(x64.base).toMatch(/^lab-base:[0-9a-f]{12}$/);
    expect(x64.sandbox).toMatch(/^lab-sandbox:[0-9a-f]{12}$/);
    expect(imageTags("x64")).toEqual(x64);
    // The base has no Node: the architecture only names the Node layer.
    expect(imageTags("arm64").base).toBe(x64.base);
    expect(imageTags("arm64").sandbox).not.toBe(x64.sandbox);
    const withCompiler = imageTags("x64", ["build-essential"]);
    expect(withCompiler.base).not.toBe(x64.base);
    expect(withCompiler.sandbox).not.toBe(x64.sandbox);
    // Packages lab has anyway, or the same ones in another order, change nothing.
    expect(imageTags("x64", ["git"])).toEqual(x64);
    expect(imageTags("x64", ["libpq5", "build-essential"])).toEqual(
      imageTags("x64", ["build-essential", "libpq5"]),
    );
    expect(BASE_PACKAGES).toEqual(expect.arrayContaining(["bash", "git", "ca-certificates"]));
    expect(SANDBOX_NODE_VERSION).toMatch(/^22\./);
  });

  it("are built from the Debian mirror apt uses, else deb.debian.org", () => {
    const mirror = debianMirror();
    expect(mirror).toMatch(/^https?:\/\/\S+\/debian$/);
  });
});

describe("docker's --mount fields", () => {
  it("are quoted as CSV when a path holds a comma or a quote", () => {
    expect(mountField("source", "/work/a b")).toBe("source=/work/a b");
    expect(mountField("source", "/work/a,b")).toBe('"source=/work/a,b"');
    expect(mountField("target", '/work/say "hi"')).toBe('"target=/work/say ""hi"""');
  });
});

describe("the container's init", () => {
  it("writes its status as three numbers, and anything else reads as no status", () => {
    expect(parseInitStatus("137 3 1\n")).toEqual({ exitCode: 137, forkRefusals: 3, oomKills: 1 });
    expect(parseInitStatus("0 0 0\n")).toEqual({ exitCode: 0, forkRefusals: 0, oomKills: 0 });
    for (const forged of ["", "0 0\n", "0 0 0", "x 0 0\n", "0 0 0\n0 0 0\n"])
      expect(parseInitStatus(forged)).toBeNull();
  });

  it("is a bash script that parses", () => {
    expect(() => execFileSync("bash", ["-n", "-c", CONTAINER_INIT])).not.toThrow();
  });
});

describe("removing a root file system", () => {
  it("removes an ordinary tree", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "lab-rootfs-"));
    writeFileSync(path.join(root, "file"), "x");
    await removeTree(root);
    expect(existsSync(root)).toBe(false);
  });

  // What a failed debootstrap leaves: a folder of the host mounted inside the tree.
  it.runIf(process.platform === "linux" && os.userInfo().uid === 0)(
    "unmounts what is mounted inside it first, and leaves the mounted folder's files alone",
    async () => {
      const host = mkdtempSync(path.join(os.tmpdir(), "lab-rootfs-host-"));
      const root = mkdtempSync(path.join(os.tmpdir(), "lab-rootfs-"));
      writeFileSync(path.join(host, "precious"), "keep me");
      const inside = path.join(root, "proc");
      mkdirSync(inside);
      execFileSync("mount", ["--bind", host, inside]);
      try {
        await removeTree(root);
        expect(existsSync(root)).toBe(false);
        expect(readFileSync(path.join(host, "precious"), "utf8")).toBe("keep me");
      } finally {
        execFileSync("sh", ["-c", `umount -l "$1" 2>/dev/null; rm -rf "$2"`, "sh", inside, host]);
      }
    },
  );
});
