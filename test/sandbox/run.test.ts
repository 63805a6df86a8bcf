import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  configFileSchema,
  parseSizeMb,
  resolveRunConfig,
  resolveSettings,
  type RunFlags,
} from "../../src/config/index.js";
import type { RunEvent } from "../../src/core/index.js";
import { runSuite } from "../../src/runner/index.js";
import { createBwrapProvider } from "../../src/sandbox/index.js";
import { createNoopTool } from "../../src/tools/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { sharedCacheDir, tempDir } from "../helpers/temp.js";
import { hasBwrap } from "./helpers.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha")]);
});

function config(flags: Partial<RunFlags> = {}, file: unknown = {}, vars: NodeJS.ProcessEnv = {}) {
  const env = { ...process.env, LAB_CACHE_DIR: sharedCacheDir, ...vars };
  return resolveRunConfig({
    flags: { suite: "fixture", ...flags },
    env,
    file: configFileSchema.parse(file),
    settings: resolveSettings({ evalsDir, runsDir: path.join(root, "runs") }, env, root),
    source: { kind: "tool", tool: createNoopTool() },
    labVersion: "test",
    signal: new AbortController().signal,
  });
}

describe("sandbox settings", () => {
  it("default to bwrap with the network on, a disk and a process limit, and no memory limit, recorded in run.json's config", () => {
    const resolved = config();
    expect(resolved.sandbox).toMatchObject({
      network: true,
      limits: { memoryMb: null, diskMb: 10240, maxProcesses: 4096 },
    });
    expect(resolved.sandbox.provider.name).toBe("bwrap");
    expect(resolved.recorded.sandbox).toEqual({
      provider: "bwrap",
      isolatesFilesystem: true,
      network: true,
      memoryMb: null,
      diskMb: 10240,
      maxProcesses: 4096,
    });
  });

  it("take flags over LAB_* variables over lab.config.json", () => {
    const fromFile = config(
      {},
      { defaults: { sandbox: "none", memory: "2g", disk: "1g", maxProcesses: 99 } },
    );
    expect(fromFile.sandbox.provider.name).toBe("none");
    expect(fromFile.sandbox.limits).toEqual({ memoryMb: 2048, diskMb: 1024, maxProcesses: 99 });
    const fromFlags = config(
      { sandbox: "bwrap", memory: "512m", noNetwork: true },
      { defaults: { sandbox: "none" } },
    );
    expect(fromFlags.sandbox.provider.name).toBe("bwrap");
    expect(fromFlags.sandbox).toMatchObject({ network: false, limits: { memoryMb: 512 } });
  });

  it("reach docker as the user's environment says, and build its image in lab's cache", () => {
    const env = {
      PATH: "/opt/docker/bin:/usr/bin",
      HOME: "/home/someone",
      LAB_CACHE_DIR: "/var/cache/lab",
      DOCKER_HOST: "unix:///run/user/1000/docker.sock",
      DOCKER_CONTEXT: "",
      AWS_SECRET_ACCESS_KEY: "not for docker",
      LAB_DOCKER_PACKAGES: "build-essential, libpq5",
      LAB_DEBIAN_MIRROR: "http://mirror.example/debian",
    };
    const settings = resolveSettings({}, env, root);
    expect(settings.docker).toEqual({
      env: {
        PATH: "/opt/docker/bin:/usr/bin",
        HOME: "/home/someone",
        DOCKER_HOST: "unix:///run/user/1000/docker.sock",
      },
      cacheDir: "/var/cache/lab",
      image: undefined,
      debianMirror: "http://mirror.example/debian",
      extraPackages: ["build-essential", "libpq5"],
    });
    expect(config({ sandbox: "docker" }).sandbox.provider).toMatchObject({
      name: "docker",
      isolatesFilesystem: true,
      canIsolateNetwork: true,
    });
    expect(() => resolveSettings({}, { ...env, LAB_DOCKER_PACKAGES: "git $(id)" }, root)).toThrow(
      'LAB_DOCKER_PACKAGES names "$(id)", which is not a Debian package name.',
    );
  });

  it("take LAB_SANDBOX=docker as --sandbox docker, and a flag over it", () => {
    const fromEnv = config({}, { defaults: { sandbox: "none" } }, { LAB_SANDBOX: "docker" });
    expect(fromEnv.sandbox.provider.name).toBe("docker");
    expect(fromEnv.recorded.sandbox).toMatchObject({
      provider: "docker",
      isolatesFilesystem: true,
    });
    expect(config({ sandbox: "bwrap" }, {}, { LAB_SANDBOX: "docker" }).sandbox.provider.name).toBe(
      "bwrap",
    );
  });

  it("turn the network off for a tool whose entry says so", () => {
    const file = { tools: { noop: { command: "true", network: false } } };
    expect(config({}, file).sandbox.network).toBe(false);
  });

  it("name an unknown sandbox and list the real ones", () => {
    let thrown: unknown;
    try {
      config({ sandbox: "jail" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: "USAGE",
      message: 'Unknown sandbox "jail".',
      hint: "Sandboxes: bwrap, docker, none.",
    });
  });

  it("read sizes in MiB, with k, m, g or t", () => {
    expect([
      parseSizeMb("512m", "--memory"),
      parseSizeMb("4g", "x"),
      parseSizeMb("2048", "x"),
    ]).toEqual([512, 4096, 2048]);
    expect([parseSizeMb("1.5G", "x"), parseSizeMb("4GiB", "x"), parseSizeMb("1t", "x")]).toEqual([
      1536, 4096, 1048576,
    ]);
    for (const bad of ["0", "lots", "-1g", "4x"]) {
      expect(() => parseSizeMb(bad, "--memory")).toThrowError(
        `--memory expects a size such as 512m, 4g or 2048 (MiB); got "${bad}".`,
      );
    }
  });
});

describe("a missing bwrap", () => {
  it("is a clear error saying how to install it or run without it", async () => {
    await expect(
      createBwrapProvider({ pathEnv: path.join(root, "no-such-dir") }).checkReady(),
    ).rejects.toMatchObject({
      code: "SANDBOX_UNAVAILABLE",
      message: "bubblewrap (`bwrap`) is not installed, and lab runs tools inside it by default.",
      hint: "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`), or pass `--sandbox none` to run tools on the host without isolation.",
    });
  });
});

describe("a run", () => {
  const events = (): { list: RunEvent[]; reporter: { emit(event: RunEvent): void } } => {
    const list: RunEvent[] = [];
    return { list, reporter: { emit: (event) => list.push(event) } };
  };

  it("without isolation warns that the boundary is not enforced, and records it", async () => {
    const { list, reporter } = events();
    const result = await runSuite(
      config({ sandbox: "none", runId: "none" }),
      reporter,
      new AbortController().signal,
    );
    expect(list).toContainEqual({
      type: "log",
      level: "warn",
      message:
        'sandbox "none": tools run on the host as you and can read the oracle, other trials and your files; the trust boundary is NOT enforced.',
    });
    const record = JSON.parse(readFileSync(path.join(result.runDir, "run.json"), "utf8")) as {
      config: { sandbox: unknown };
    };
    expect(record.config.sandbox).toMatchObject({ provider: "none", isolatesFilesystem: false });
  });

  it.runIf(hasBwrap())(
    "in bwrap says so and how its limits are enforced, and warns of nothing",
    async () => {
      const { list, reporter } = events();
      await runSuite(
        config({ runId: "bwrap", noNetwork: true }),
        reporter,
        new AbortController().signal,
      );
      const logs = list.filter((event) => event.type === "log");
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        level: "info",
        message: expect.stringMatching(
          /^sandbox bwrap \(network off\); limits: .*disk 10240 MiB/,
        ) as string,
      });
    },
  );

  it("from the CLI takes --sandbox and prints the warning", async () => {
    const none = await runLab(
      ["run", "noop", "--suite", "fixture", "--sandbox", "none", "--run-id", "cli-none"],
      { cwd: root },
    );
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('lab: warning: sandbox "none": tools run on the host as you');
    const bad = await runLab(["run", "noop", "--suite", "fixture", "--sandbox", "jail"], {
      cwd: root,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('lab run: Unknown sandbox "jail".');
  });
});
