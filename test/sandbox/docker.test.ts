import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { createDockerProvider, imageTagsFor } from "../../src/sandbox/index.js";
import { defineSandboxContract } from "../contracts/sandbox.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";
import { dockerUnavailable, testDockerSettings } from "./helpers.js";

const unavailable = dockerUnavailable();

describe.runIf(unavailable === null)("docker provider", () => {
  // The first run on a machine builds lab's image (debootstrap where no registry answers).
  beforeAll(async () => {
    await createDockerProvider({ settings: testDockerSettings() }).checkReady({
      progress: (message) => {
        process.stderr.write(`docker: ${message}\n`);
      },
    });
  }, 1_800_000);
  defineSandboxContract(() => createDockerProvider({ settings: testDockerSettings() }));

  it("lab cache list shows the images of its cache folder; clearing another folder's leaves them", async () => {
    const root = tempDir();
    const { sandbox } = await imageTagsFor(testDockerSettings());
    const list = await runLab(["cache", "list"], { cwd: root });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${sandbox}\t`);
    expect(list.stdout).toMatch(/\tdocker-image \d/);
    expect(list.stderr).toMatch(/docker: [1-9]\d* image\(s\)/);
    const clear = await runLab(["cache", "clear"], { cwd: root, env: { LAB_CACHE_DIR: root } });
    expect(clear.stderr).toContain("docker: removed 0 image(s)");
    expect(
      execFileSync("docker", ["images", "--quiet", sandbox], { encoding: "utf8" }).trim(),
    ).not.toBe("");
  });
});

if (unavailable !== null) {
  describe(`docker provider (skipped: ${unavailable})`, () => {
    it.todo("needs a Docker engine: scripts/test.sh installs docker.io and starts dockerd as root");
  });
}
