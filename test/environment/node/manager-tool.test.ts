import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  bundledNpmMajor,
  ensureNodeRuntime,
  ensurePackageManager,
  nodePassEnvFrom,
  nodeProjectEnvironment,
  packageManagerFor,
  packageManagerSpec,
  readNodeProjectFiles,
  type PackageManagerChoice,
} from "../../../src/environment/index.js";
import { runCommand } from "../../../src/process/index.js";
import { sharedCacheDir, tempDir } from "../../helpers/temp.js";

const root = tempDir();
const host = {
  pathEnv: process.env.PATH ?? "/usr/bin:/bin",
  home: os.homedir(),
  passEnv: nodePassEnvFrom(process.env),
};
/** The Node of runtime.test.ts: fetched once into the shared cache for every test file. */
const TEST_NODE = "16.20.2";
const classicLock = "# yarn lockfile v1\n\n";
const berryLock = '__metadata:\n  version: 6\n  cacheKey: 8\n\n"is-number@npm:7.0.0":\n';

describe("the package manager's registry package", () => {
  it("is npm of the Node's own era unless the project states one", () => {
    expect(bundledNpmMajor("12.22.12")).toBe("6");
    expect(bundledNpmMajor("14.21.3")).toBe("6");
    expect(bundledNpmMajor("16.20.2")).toBe("8");
    expect(bundledNpmMajor("18.12.0")).toBe("8");
    expect(bundledNpmMajor("18.19.0")).toBe("10");
    expect(bundledNpmMajor("20.0.0")).toBe("9");
    expect(bundledNpmMajor("22.11.0")).toBe("10");
    expect(bundledNpmMajor("24.11.0")).toBe("11");
    const npm = packageManagerFor({ "package-lock.json": "{}" });
    expect(packageManagerSpec(npm, "16.20.2")).toBe("npm@8");
    expect(packageManagerSpec({ ...npm, version: "9.8.1" }, "16.20.2")).toBe("npm@9.8.1");
    expect(packageManagerSpec(packageManagerFor({ "yarn.lock": berryLock }), "18.19.0")).toBe(
      "@yarnpkg/cli-dist@3",
    );
    expect(packageManagerSpec(packageManagerFor({ "yarn.lock": classicLock }), "18.19.0")).toBe(
      "yarn@1",
    );
    expect(
      packageManagerSpec(
        packageManagerFor({ "pnpm-lock.yaml": "lockfileVersion: '6.0'\n" }),
        "18.19.0",
      ),
    ).toBe("pnpm@8");
  });
});

/**
 * In a fresh project depending on is-number: the manager's own install writes the lockfile
 * (the project's authors' step), then lab's choice of install runs frozen on it from scratch.
 */
async function frozenInstall(
  name: string,
  declared: Record<string, unknown>,
  extraFiles: Record<string, string> = {},
): Promise<{ choice: PackageManagerChoice; version: string; output: string }> {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({
      name,
      version: "1.0.0",
      private: true,
      dependencies: { "is-number": "7.0.0" },
      ...declared,
    }),
  );
  for (const [file, text] of Object.entries(extraFiles)) writeFileSync(path.join(dir, file), text);
  const runtime = await ensureNodeRuntime(TEST_NODE, sharedCacheDir, host);
  const first = packageManagerFor(await readNodeProjectFiles(dir));
  const manager = await ensurePackageManager(first, TEST_NODE, sharedCacheDir, host);
  const home = path.join(root, `${name}-home`);
  mkdirSync(home, { recursive: true });
  const env = nodeProjectEnvironment({
    runtime,
    manager,
    pathEnv: "/usr/bin:/bin",
    home,
    passEnv: host.passEnv,
  });
  const run = (argv: readonly string[]) =>
    runCommand(argv, { cwd: dir, env, timeoutMs: 5 * 60_000, captureStdout: true });
  const locked = await run(first.install);
  expect(locked.exitCode, locked.stderrTail).toBe(0);
  rmSync(path.join(dir, "node_modules"), { recursive: true, force: true });
  const choice = packageManagerFor(await readNodeProjectFiles(dir));
  expect(choice.frozen).toBe(true);
  const frozen = await run(choice.install);
  expect(frozen.exitCode, frozen.stderrTail).toBe(0);
  expect(existsSync(path.join(dir, "node_modules", "is-number", "package.json"))).toBe(true);
  const version = await run([choice.name, "--version"]);
  return { choice, version: version.stdout?.trim() ?? "", output: frozen.stdoutTail };
}

describe("package managers from the npm registry, on the project's Node", () => {
  it("pnpm at the packageManager's version installs frozen from its lockfile", async () => {
    const { choice, version } = await frozenInstall("pnpm-project", {
      packageManager: "pnpm@8.6.0",
    });
    expect(choice).toMatchObject({
      name: "pnpm",
      lockfile: "pnpm-lock.yaml",
      install: ["pnpm", "install", "--frozen-lockfile"],
    });
    expect(version).toBe("8.6.0");
  });

  it("yarn classic installs frozen from its lockfile", async () => {
    const { choice, version } = await frozenInstall("yarn-classic-project", {
      packageManager: "yarn@1.22.22",
    });
    expect(choice).toMatchObject({
      yarnFlavor: "classic",
      install: ["yarn", "install", "--frozen-lockfile"],
    });
    expect(version).toBe("1.22.22");
  });

  it("yarn berry installs immutably from its lockfile", async () => {
    const { choice, version } = await frozenInstall(
      "yarn-berry-project",
      { packageManager: "yarn@3.6.1" },
      { ".yarnrc.yml": "nodeLinker: node-modules\nenableGlobalCache: false\n" },
    );
    expect(choice).toMatchObject({
      yarnFlavor: "berry",
      lockfile: "yarn.lock",
      install: ["yarn", "install", "--immutable"],
    });
    expect(version).toBe("3.6.1");
  });
});
