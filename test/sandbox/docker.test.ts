import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { clearDockerCache, createDockerProvider, imageTagsFor } from "../../src/sandbox/index.js";
import { requireDockerCli } from "../../src/sandbox/docker-cli.js";
import { BASE_PACKAGES, buildBaseFromImage } from "../../src/sandbox/docker-image.js";
import { defineSandboxContract } from "../contracts/sandbox.js";
import { withDockerReclaimLock } from "../helpers/docker-reclaim-lock.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";
import {
  bareSpec,
  dockerEndToEndUnavailable,
  dockerUnavailable,
  testDockerSettings,
} from "./helpers.js";

const unavailable = dockerUnavailable();

/**
 * An image of `cacheDir`'s own, labelled as lab labels its package layers: only labels over
 * lab's image, so building it is instant and removing it leaves lab's image. Its tag.
 */
async function cacheFolderImage(cacheDir: string, prefix: string): Promise<string> {
  const { sandbox } = await imageTagsFor(testDockerSettings());
  const name = `lab-packages:${prefix}-${path
    .basename(cacheDir)
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()}`;
  execFileSync("docker", ["build", "--quiet", "--tag", name, "-"], {
    input: `FROM ${sandbox}\nLABEL lab=image lab.image=packages lab.cache=${JSON.stringify(cacheDir)}\n`,
    stdio: ["pipe", "ignore", "pipe"],
  });
  return name;
}

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

  it("adds a task's Debian packages to its image, a layer built once per set", async () => {
    const provider = createDockerProvider({ settings: testDockerSettings() });
    const root = tempDir();
    const workTree = path.join(root, "work");
    mkdirSync(workTree);
    const spec = bareSpec(workTree);
    const run = async (debianPackages: string[]) => {
      const sandbox = await provider.create({ ...spec, debianPackages });
      try {
        return await sandbox.exec(["bash", "-c", "command -v file && file --brief /bin/bash"], {
          cwd: workTree,
          env: { PATH: "/usr/bin:/bin" },
          timeoutMs: 30_000,
        });
      } finally {
        await sandbox.dispose();
      }
    };
    expect((await run([])).exitCode).not.toBe(0);
    const withFile = await run(["file"]);
    expect(withFile.stdoutTail).toMatch(/^\/usr\/bin\/file\nELF 64-bit/);
    const layers = () =>
      execFileSync("docker", ["images", "--quiet", "--filter", "label=lab.image=packages"], {
        encoding: "utf8",
      });
    const before = layers();
    // The same set (in another spelling) is the same layer: nothing new is built.
    expect((await run(["file", "file"])).exitCode).toBe(0);
    expect(layers()).toBe(before);
  }, 600_000);

  // Where Docker Hub answers, the base is debian:bookworm-slim with apt-get installing lab's
  // packages. No registry answers here: lab's own base (Debian with apt) stands in for it.
  // Not on the second Node leg (LAB_TEST_DOCKER=contract): the same code, and apt takes a while.
  it.runIf(dockerEndToEndUnavailable() === null)(
    "builds its base from a Debian image with apt, as from Docker Hub's, labelled as lab's",
    async () => {
      // `file` is not in lab's base: finding it proves apt-get ran.
      const settings = { ...testDockerSettings(), extraPackages: ["file"] };
      const cli = requireDockerCli(settings);
      const { base } = await imageTagsFor(testDockerSettings());
      const root = tempDir();
      const tag = `lab-base:test-from-image-${String(process.pid)}`;
      try {
        // A clear beside it (another lab's `lab cache clear`) removes leftovers of labs that
        // are gone, never a build of a lab still running: before build containers carried
        // their owner, this build died with an empty error.
        await withDockerReclaimLock(async () => {
          const state = { built: false };
          const building = buildBaseFromImage(cli, tag, base, path.join(root, "build.log"));
          void building
            .finally(() => {
              state.built = true;
            })
            .catch(() => undefined);
          const other = { ...testDockerSettings(), cacheDir: tempDir() };
          while (!state.built) {
            await clearDockerCache(other);
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
          await building;
        });
        const labels = JSON.parse(
          execFileSync("docker", ["image", "inspect", "--format", "{{json .Config.Labels}}", tag], {
            encoding: "utf8",
          }),
        ) as Record<string, string>;
        expect(labels).toMatchObject({ lab: "image", "lab.image": "base" });
        expect(labels["lab.cache"]).toBe(settings.cacheDir);
        const installed = execFileSync(
          "docker",
          [
            "run",
            "--rm",
            "--network",
            "none",
            "--entrypoint",
            "dpkg-query",
            tag,
            "-W",
            "-f",
            "${Package}\\n",
          ],
          { encoding: "utf8" },
        ).split("\n");
        for (const name of [...BASE_PACKAGES, "file"]) expect(installed).toContain(name);
      } finally {
        execFileSync("docker", ["rmi", "--force", tag], { stdio: "ignore" });
      }
    },
    600_000,
  );

  it("lab cache list shows the images of its cache folder; clearing another folder's leaves them", async () => {
    const root = tempDir();
    const other = tempDir();
    // The images lab's image tests built may belong to another checkout's cache on a machine
    // that ran lab before: this test makes one of its own cache folder's.
    const name = await cacheFolderImage(root, "list");
    try {
      const env = { LAB_CACHE_DIR: root };
      const list = await runLab(["cache", "list"], { cwd: root, env });
      expect(list.code).toBe(0);
      // A row of the table: kind, key (the image), python, pins, files, size, built.
      const row = list.stdout.split("\n").find((line) => line.includes(` ${name} `));
      expect(row).toMatch(
        /^docker image +lab-packages:\S+ +- +- +- +\d+(\.\d)? [KMG]B +\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
      );
      const json = await runLab(["cache", "list", "--json"], { cwd: root, env });
      expect(
        json.stdout
          .split("\n")
          .filter((line) => line.includes(name))
          .map((line) => JSON.parse(line) as unknown),
      ).toEqual([expect.objectContaining({ kind: "docker image", key: name, dir: null })]);
      expect(list.stderr).toMatch(/docker: 1 image\(s\)/);
      // (It also removes any container whose lab is gone: see withDockerReclaimLock.)
      const clear = await withDockerReclaimLock(() =>
        runLab(["cache", "clear"], { cwd: other, env: { LAB_CACHE_DIR: other } }),
      );
      expect(clear.stderr).toContain("docker: removed 0 image(s)");
      expect(
        execFileSync("docker", ["images", "--quiet", name], { encoding: "utf8" }).trim(),
      ).not.toBe("");
    } finally {
      execFileSync("docker", ["rmi", "--force", name], { stdio: "ignore" });
    }
  });

  it("lab cache clear removes the images of its own cache folder, and lab cache list then shows none", async () => {
    const root = tempDir();
    const name = await cacheFolderImage(root, "test");
    const { sandbox } = await imageTagsFor(testDockerSettings());
    const inspect = () =>
      execFileSync("docker", ["images", "--quiet", name], { encoding: "utf8" }).trim();
    expect(inspect()).not.toBe("");
    const env = { LAB_CACHE_DIR: root };
    const list = await runLab(["cache", "list"], { cwd: root, env });
    expect(list.stdout).toMatch(new RegExp(`^docker image +${name} `, "m"));
    const clear = await withDockerReclaimLock(() => runLab(["cache", "clear"], { cwd: root, env }));
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stderr).toContain("docker: removed 1 image(s)");
    expect(inspect()).toBe("");
    expect(
      execFileSync("docker", ["images", "--quiet", sandbox], { encoding: "utf8" }).trim(),
    ).not.toBe("");
    const after = await runLab(["cache", "list"], { cwd: root, env });
    expect(after.stdout).not.toContain(name);
  });
});

if (unavailable !== null) {
  describe(`docker provider (skipped: ${unavailable})`, () => {
    it.todo("needs a Docker engine: scripts/test.sh installs docker.io and starts dockerd as root");
  });
}
