import { describe, expect, it } from "vitest";
import {
  changeTouchesNodeInstall,
  nodeInstallInputs,
  nodeInstallKey,
} from "../../../src/environment/index.js";

const npm = { name: "npm", version: "8.19.4" };

describe("nodeInstallKey", () => {
  it("is the same for the same runtime, manager and bytes, and differs when any differs", () => {
    const lock = '{"lockfileVersion":2}';
    const key = nodeInstallKey("16.20.2", npm, lock);
    expect(key).toMatch(/^node16\.20\.2-npm8\.19\.4-[0-9a-f]{16}$/);
    expect(nodeInstallKey("16.20.2", npm, Buffer.from(lock))).toBe(key);
    const others = [
      nodeInstallKey("16.20.1", npm, lock),
      nodeInstallKey("16.20.2", { name: "npm", version: "8.19.3" }, lock),
      nodeInstallKey("16.20.2", { name: "pnpm", version: "8.19.4" }, lock),
      nodeInstallKey("16.20.2", npm, `${lock}\n`),
      nodeInstallKey("16.20.2", npm, null),
      nodeInstallKey("16.20.2", npm, lock, '{"name":"x"}'),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it("never gives two splits of the same bytes between lockfile and package.json one key", () => {
    expect(nodeInstallKey("18.19.0", npm, "ab", "c")).not.toBe(
      nodeInstallKey("18.19.0", npm, "a", "bc"),
    );
    expect(nodeInstallKey("18.19.0", npm, "", null)).not.toBe(nodeInstallKey("18.19.0", npm, null));
  });
});

describe("what a change makes install again", () => {
  it("is package.json at any depth, a lockfile, a manager's settings, the Node version files", () => {
    const changed = [
      "src/index.ts",
      "package.json",
      "packages/a/package.json",
      "yarn.lock",
      "./pnpm-lock.yaml",
      ".yarn/releases/yarn-4.1.0.cjs",
      "patches/left-pad+1.3.0.patch",
      ".nvmrc",
      ".npmrc",
      "docs/package-json.md",
      "test/fixtures/yarn.lock.txt",
    ];
    expect(nodeInstallInputs(changed)).toEqual([
      "package.json",
      "packages/a/package.json",
      "yarn.lock",
      "./pnpm-lock.yaml",
      ".yarn/releases/yarn-4.1.0.cjs",
      "patches/left-pad+1.3.0.patch",
      ".nvmrc",
      ".npmrc",
    ]);
    expect(changeTouchesNodeInstall(["src/index.ts", "test/a.test.ts"])).toBe(false);
    expect(changeTouchesNodeInstall(["src/index.ts", "package-lock.json"])).toBe(true);
  });
});
