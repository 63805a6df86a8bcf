/**
 * A tool lab installed runs in docker from an image layer of its own: its files copied into the
 * image at their host paths, once per installation, instead of bound from the host. A layer is
 * listed and removed by `lab cache list|clear`, and an installation a bind would hide (under
 * /tmp) is bound as before.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxSpec, ToolInstallation } from "../../src/core/index.js";
import { createDockerProvider } from "../../src/sandbox/index.js";
import { bakeable } from "../../src/sandbox/docker.js";
import { withDockerReclaimLock } from "../helpers/docker-reclaim-lock.js";
import { runLab } from "../helpers/lab.js";
import { outsideTmpRoot, tempDir } from "../helpers/temp.js";
import { bareSpec, dockerLines, dockerUnavailable, testDockerSettings } from "./helpers.js";

const unavailable = dockerUnavailable();

/** An installation folder: `bin/hello` prints its `message` file. */
function makeInstallation(dir: string, message: string): void {
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  writeFileSync(path.join(dir, "message"), message);
  writeFileSync(path.join(dir, "bin", "hello"), '#!/bin/sh\ncat "${0%/bin/hello}/message"\n');
  chmodSync(path.join(dir, "bin", "hello"), 0o755);
}

function toolImages(cacheDir: string): string[] {
  return dockerLines([
    "images",
    "--filter",
    "label=lab.image=tool",
    "--filter",
    `label=lab.cache=${cacheDir}`,
    "--format",
    "{{.Repository}}:{{.Tag}}",
  ]);
}

describe.runIf(unavailable === null)("a tool lab installed, in docker", () => {
  // Outside /tmp, which the container binds over its image: where tools are installed.
  const installRoot = mkdtempSync(path.join(outsideTmpRoot, "test-tool-layer-"));
  const cacheDir = tempDir("lab-tool-layer-cache-");
  const settings = { ...testDockerSettings(), cacheDir };
  const provider = createDockerProvider({ settings });
  const root = tempDir("lab-tool-layer-");

  beforeAll(() => provider.checkReady(), 1_800_000);
  afterAll(() => {
    rmSync(installRoot, { recursive: true, force: true });
    for (const image of toolImages(cacheDir))
      execFileSync("docker", ["rmi", "--force", image], { stdio: "ignore" });
  });

  const specFor = (installation: ToolInstallation): SandboxSpec => {
    const workTree = mkdtempSync(path.join(root, "work-"));
    return bareSpec(workTree, { toolPaths: installation.paths, toolInstallation: installation });
  };
  const hello = async (installation: ToolInstallation): Promise<string> => {
    const spec = specFor(installation);
    const sandbox = await provider.create(spec);
    try {
      const result = await sandbox.exec([path.join(installation.paths[0] ?? "", "bin", "hello")], {
        cwd: spec.workTree,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 60_000,
      });
      expect(result.exitCode, result.stderrTail).toBe(0);
      return result.stdoutTail;
    } finally {
      await sandbox.dispose();
    }
  };

  it("runs from a layer made once per installation, not from the host's files", async () => {
    const dir = path.join(installRoot, "hello", "1.0");
    makeInstallation(dir, "first install\n");
    const installation = { name: "hello", version: "1.0", paths: [dir], key: "installed at 1" };
    expect(await hello(installation)).toBe("first install\n");
    const layers = toolImages(cacheDir);
    expect(layers).toHaveLength(1);
    const labels = JSON.parse(
      execFileSync(
        "docker",
        ["image", "inspect", "--format", "{{json .Config.Labels}}", layers[0] ?? ""],
        { encoding: "utf8" },
      ),
    ) as Record<string, string>;
    expect(labels).toMatchObject({ lab: "image", "lab.tool": "hello@1.0", "lab.cache": cacheDir });

    // The host's copy changes, the installation's key does not: the layer is the same, and
    // the container sees what the layer holds, so nothing of the host's folder is bound.
    writeFileSync(path.join(dir, "message"), "changed on the host\n");
    expect(await hello(installation)).toBe("first install\n");
    expect(toolImages(cacheDir)).toEqual(layers);

    // A reinstall (a new key) is a new layer, with the new files.
    expect(await hello({ ...installation, key: "installed at 2" })).toBe("changed on the host\n");
    expect(toolImages(cacheDir)).toHaveLength(2);
  }, 300_000);

  it("binds an installation under /tmp, which the container's own /tmp would hide", async () => {
    const dir = path.join(tempDir("lab-tool-in-tmp-"), "hello");
    makeInstallation(dir, "from /tmp\n");
    const installation = { name: "hello-tmp", version: "1.0", paths: [dir], key: "k" };
    expect(bakeable(specFor(installation))).toBeUndefined();
    const before = toolImages(cacheDir);
    expect(await hello(installation)).toBe("from /tmp\n");
    writeFileSync(path.join(dir, "message"), "still the host's\n");
    expect(await hello(installation)).toBe("still the host's\n");
    expect(toolImages(cacheDir)).toEqual(before);
  }, 300_000);

  it("lab cache list shows the layers of its cache folder, and lab cache clear removes them", async () => {
    const dir = path.join(installRoot, "hello", "2.0");
    makeInstallation(dir, "listed\n");
    await hello({ name: "hello", version: "2.0", paths: [dir], key: "k" });
    const layers = toolImages(cacheDir);
    expect(layers.length).toBeGreaterThan(0);
    const env = { LAB_CACHE_DIR: cacheDir };
    const list = await runLab(["cache", "list"], { cwd: root, env });
    for (const layer of layers)
      expect(list.stdout).toMatch(new RegExp(`^docker image +${layer} `, "m"));
    const clear = await withDockerReclaimLock(() => runLab(["cache", "clear"], { cwd: root, env }));
    expect(clear.code, clear.stderr).toBe(0);
    expect(toolImages(cacheDir)).toEqual([]);
  }, 300_000);
});

if (unavailable !== null) {
  describe(`a tool lab installed, in docker (skipped: ${unavailable})`, () => {
    it.todo("needs a Docker engine: scripts/test.sh installs docker.io and starts dockerd as root");
  });
}
