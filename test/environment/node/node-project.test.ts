import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  describeNodeVersionChoice,
  ensureNodeRuntime,
  ensurePackageManager,
  loadNodeReleases,
  nodeInstallKey,
  nodePassEnvFrom,
  nodeProjectEnvironment,
  nodeVersionFor,
  packageManagerFor,
  readNodeProjectFiles,
} from "../../../src/environment/index.js";
import { runCommand } from "../../../src/process/index.js";
import { git } from "../../helpers/git.js";
import { sharedCacheDir, tempDir } from "../../helpers/temp.js";

const root = tempDir();
const host = {
  pathEnv: process.env.PATH ?? "/usr/bin:/bin",
  home: os.homedir(),
  passEnv: nodePassEnvFrom(process.env),
};

const isNumber = {
  version: "7.0.0",
  resolved: "https://registry.npmjs.org/is-number/-/is-number-7.0.0.tgz",
  integrity:
    "sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==",
};

/** A tiny npm project as its authors committed it: package.json, package-lock.json, .nvmrc. */
function writeProject(dir: string): void {
  git(path.dirname(dir), "init", "-q", dir);
  const manifest = { name: "tiny", version: "1.0.0", dependencies: { "is-number": "7.0.0" } };
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const lock = {
    name: "tiny",
    version: "1.0.0",
    lockfileVersion: 2,
    requires: true,
    packages: {
      "": manifest,
      "node_modules/is-number": { ...isNumber, engines: { node: ">=0.12.0" } },
    },
    dependencies: { "is-number": isNumber },
  };
  writeFileSync(path.join(dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
  writeFileSync(path.join(dir, ".nvmrc"), "16\n");
  writeFileSync(path.join(dir, ".gitignore"), "node_modules/\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "tiny npm project");
}

describe("a JS project at a commit, end to end", () => {
  it("gets the Node of its .nvmrc from the registry and installs frozen with that Node's npm", async () => {
    const dir = path.join(root, "tiny");
    writeProject(dir);
    const commitDate = new Date(git(dir, "log", "-1", "--format=%cI", "HEAD"));
    const files = await readNodeProjectFiles(dir);

    const { releases } = await loadNodeReleases(sharedCacheDir, host);
    const choice = nodeVersionFor(files, commitDate, releases);
    // Node 16 reached its end of life in 2023: its newest release, whatever the day.
    expect(choice).toEqual({ version: "16.20.2", source: ".nvmrc", spec: "16", note: null });
    expect(describeNodeVersionChoice(choice)).toBe("Node 16.20.2 (.nvmrc: 16)");
    const runtime = await ensureNodeRuntime(choice.version, sharedCacheDir, host);

    const manager = packageManagerFor(files);
    expect(manager).toMatchObject({ name: "npm", lockfile: "package-lock.json", frozen: true });
    const npm = await ensurePackageManager(manager, runtime.version, sharedCacheDir, host);
    expect(npm.spec).toBe("npm@8");
    expect(npm.version).toMatch(/^8\.\d+\.\d+$/);

    const home = path.join(root, "home");
    const env = nodeProjectEnvironment({
      runtime,
      manager: npm,
      pathEnv: "/usr/bin:/bin",
      home,
      passEnv: host.passEnv,
    });
    const run = (argv: readonly string[]) =>
      runCommand(argv, { cwd: dir, env, timeoutMs: 5 * 60_000, captureStdout: true });
    const install = await run(manager.install);
    expect(install.command).toBe("npm ci");
    expect(install.exitCode, install.stderrTail).toBe(0);
    expect(existsSync(path.join(dir, "node_modules", "is-number", "index.js"))).toBe(true);
    const used = await run([
      "node",
      "-p",
      "process.version + ' ' + require('is-number')(5) + ' ' + require('child_process').execSync('npm --version')",
    ]);
    expect(used.stdout?.trim()).toBe(`v16.20.2 true ${npm.version}`);
    // The lockfile is left as it was: a frozen install.
    expect(git(dir, "status", "--porcelain")).toBe("");

    const key = nodeInstallKey(
      runtime.version,
      npm,
      readFileSync(path.join(dir, "package-lock.json")),
      readFileSync(path.join(dir, "package.json")),
    );
    expect(key).toMatch(
      new RegExp(`^node16\\.20\\.2-npm${npm.version.replace(/\./g, "\\.")}-[0-9a-f]{16}$`),
    );
  });
});
