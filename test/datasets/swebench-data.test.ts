import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { environmentSpecSchema } from "../../src/core/index.js";
import {
  environmentFor,
  SWEBENCH_DATA_DIR,
  isLiteInstance,
  testListsFor,
  type EnvironmentEntry,
} from "../../src/datasets/index.js";
import { parseTestLog } from "../../src/grader/parse-log.js";

/** The raw transcription, read as lab ships it, to list what it holds. */
const raw = JSON.parse(readFileSync(path.join(SWEBENCH_DATA_DIR, "environments.json"), "utf8")) as {
  envs: Record<string, { pins: string[] }>;
  specs: Record<string, { repo: string; version: string }>;
  instances: Record<
    string,
    { spec: string; envId: string; testDirectives: string[]; datasets: string[] }
  >;
};
const ids = Object.keys(raw.instances);

/** Every instance's entry, put together by the loader. */
const entries = new Map<string, EnvironmentEntry>(
  ids.map((id) => {
    const entry = environmentFor(id);
    if (entry === null) throw new Error(`no environment for ${id}`);
    return [id, entry];
  }),
);

describe("lab's SWE-bench transcription", () => {
  it("gives every instance an environment that is a valid task environment, and Lite's instances test lists", () => {
    for (const [id, entry] of entries) {
      expect(environmentSpecSchema.safeParse(entry).success, id).toBe(true);
      // Only Lite's lists are kept; a Verified-only instance's come from its row.
      expect(testListsFor(id) !== null, id).toBe(isLiteInstance(id));
    }
  });

  it("names each instance's repository in its id and its spec", () => {
    for (const [id, entry] of entries) {
      expect(id.startsWith(`${entry.repo.replace("/", "__")}-`), id).toBe(true);
      expect(raw.instances[id]?.spec).toBe(`${entry.repo}@${entry.version}`);
    }
  });

  it("has no environment for an instance it does not hold", () => {
    expect(environmentFor("nobody__nothing-1")).toBeNull();
    expect(testListsFor("nobody__nothing-1")).toBeNull();
  });

  it("gives every instance a log parser that parseTestLog knows", () => {
    const parsers = new Set([...entries.values()].map((entry) => entry.logParser));
    for (const parser of parsers) {
      expect(parseTestLog("PASSED t.py::test_a\ntest_b ok\ntest_c (m.T) ... ok", parser)).toEqual(
        expect.any(Object),
      );
    }
  });

  it("gives Django its labels rule, parser, locale and Debian packages, and no one else the rule", () => {
    for (const [id, entry] of entries) {
      if (entry.repo === "django/django") {
        expect(entry.testDirectiveRule, id).toBe("django");
        expect(entry.logParser, id).toBe("django");
        expect(entry.testCommand, id).toMatch(/^\.\/tests\/runtests\.py --verbosity 2/);
        expect(entry.debianPackages, id).toContain("locales-all");
        for (const label of raw.instances[id]?.testDirectives ?? []) {
          expect(label, id).not.toMatch(/\/|\.py$|^tests\./);
        }
      } else {
        expect(entry.testDirectiveRule, id).toBeUndefined();
      }
    }
  });

  it("puts an instance's own notes after its repository's, and its pre-test steps in", () => {
    const entry = entries.get("astropy__astropy-8707");
    expect(entry?.preTest).toEqual(["pip install -q 'pytest<7.2'"]);
    const notes = entry?.notes ?? [];
    expect(notes[0]).toMatch(/astropy builds C and Cython extensions/);
    expect(notes.some((note) => note.includes("`python -m pip install -q 'pytest<7.2'`"))).toBe(
      true,
    );
  });

  it("shares one pin set among the instances of one envId", () => {
    for (const [id, entry] of entries) {
      expect(entry.pins, id).toEqual(raw.envs[raw.instances[id]?.envId ?? ""]?.pins);
    }
  });

  it("never pins a project in its own environment", () => {
    for (const [id, entry] of entries) {
      const own = entry.repo.split("/")[1]?.toLowerCase() ?? "";
      expect(
        entry.pins.map((pin) => pin.split(/[=<>;]/)[0]?.toLowerCase()),
        id,
      ).not.toContain(own);
    }
  });
});
