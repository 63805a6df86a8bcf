import { describe, expect, it } from "vitest";
import { ensureDebianPackages, missingDebianPackages } from "../../src/environment/index.js";
import { findOnPath } from "../../src/process/index.js";

const pathEnv = process.env.PATH ?? "/usr/bin:/bin";
const hasDpkg = findOnPath("dpkg-query", pathEnv) !== null;

describe.skipIf(!hasDpkg)("a task's Debian packages", () => {
  it("are asked of dpkg: installed ones pass, unknown ones are missing", async () => {
    expect(await missingDebianPackages(["bash", "coreutils"], pathEnv)).toEqual([]);
    expect(await missingDebianPackages(["bash", "lab-no-such-package"], pathEnv)).toEqual([
      "lab-no-such-package",
    ]);
  });

  it("stop lab before anything is built when missing and lab may not install them, naming them and the command", async () => {
    await expect(
      ensureDebianPackages(["bash", "lab-no-such-package"], { pathEnv, isRoot: false }),
    ).rejects.toMatchObject({
      code: "SYSTEM_PACKAGES_MISSING",
      message: "These tasks need Debian packages that are not installed: lab-no-such-package.",
      hint: "Install them (`sudo apt-get install -y lab-no-such-package`), or run lab as root to let it install them.",
    });
  });

  it("need nothing done when every one is installed, even without root", async () => {
    expect(await ensureDebianPackages(["bash", "bash"], { pathEnv, isRoot: false })).toEqual([]);
  });
});

describe("on a host without dpkg", () => {
  it("nothing is checked: the build then fails on its own if something is missing", async () => {
    expect(await missingDebianPackages(["lab-never-asked"], "/nonexistent")).toBeNull();
    expect(
      await ensureDebianPackages(["lab-no-such-package"], {
        pathEnv: "/nonexistent",
        isRoot: false,
      }),
    ).toEqual([]);
  });
});
