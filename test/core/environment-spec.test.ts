import { describe, expect, it } from "vitest";
import { describeSchemaError, environmentSpecSchema } from "../../src/core/index.js";

describe("environment.json's schema", () => {
  it("reads a spec without a kind as Python's, as every spec before Node's was written", () => {
    const spec = environmentSpecSchema.parse({ python: "3.11", install: "pip install -e ." });
    expect(spec).toMatchObject({ python: "3.11", pins: [], testCommand: "pytest -rA" });
    expect(spec.kind).toBeUndefined();
  });

  it("reads a Node spec by its kind, with its defaults", () => {
    expect(
      environmentSpecSchema.parse({ kind: "node", node: "20.11.1", runner: "node:test" }),
    ).toEqual({ kind: "node", node: "20.11.1", runner: "node:test", env: {} });
  });

  it("names the Node spec's own fields when one is wrong, not Python's", () => {
    const parsed = environmentSpecSchema.safeParse({
      kind: "node",
      node: "20",
      runner: "karma",
      packageManager: "bun@1",
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(describeSchemaError(parsed.error)).toBe(
      'node: an exact Node version such as 20.11.1; packageManager: npm, pnpm or yarn, with @version or without; runner: Invalid option: expected one of "jest"|"vitest"|"mocha"|"node:test"',
    );
  });

  it("reads a Node spec with upstream's commands, its build empty by default", () => {
    const spec = environmentSpecSchema.parse({
      kind: "node",
      node: "20.20.2",
      runner: "mocha",
      upstream: {
        install: ["npm install"],
        testCommands: ["npx mocha -R tap test/unit/regression/bugs.js"],
        logParser: "tap",
      },
    });
    expect(spec).toEqual({
      kind: "node",
      node: "20.20.2",
      runner: "mocha",
      env: {},
      upstream: {
        install: ["npm install"],
        build: [],
        testCommands: ["npx mocha -R tap test/unit/regression/bugs.js"],
        logParser: "tap",
      },
    });
  });

  it("refuses upstream commands with a key it does not read, no test command, or immutable_js unresolved", () => {
    const parsed = environmentSpecSchema.safeParse({
      kind: "node",
      node: "20.20.2",
      runner: "jest",
      upstream: {
        install: ["npm install"],
        preInstall: ["apt-get install jq"],
        testCommands: [],
        logParser: "immutable_js",
      },
    });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(describeSchemaError(parsed.error)).toBe(
      'upstream.testCommands: at least one test command; upstream.logParser: Invalid option: expected one of "jest"|"jest_json"|"vitest"|"karma"|"tap"; upstream: Unrecognized key: "preInstall"',
    );
  });
});
