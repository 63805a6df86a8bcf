import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { environmentSpecSchema, LabError } from "../../core/index.js";
import { packageRoot } from "../../suite/index.js";

/** lab's own transcription of upstream's environment specs and test lists (see data/swebench/README.md). */
export const SWEBENCH_DATA_DIR = path.join(packageRoot, "data", "swebench");

const environmentEntrySchema = environmentSpecSchema.extend({
  repo: z.string(),
  version: z.string(),
  notes: z.array(z.string()).default([]),
  unmapped: z.array(z.string()).default([]),
  services: z.array(z.string()).default([]),
  installArgs: z.array(z.string()).default([]),
});

/** One instance's environment as transcribed, with notes for the record. */
export type EnvironmentEntry = z.output<typeof environmentEntrySchema>;

const testListsSchema = z.record(
  z.string(),
  z.object({ FAIL_TO_PASS: z.array(z.string()), PASS_TO_PASS: z.array(z.string()) }),
);

let cache: {
  environments: Map<string, EnvironmentEntry>;
  testLists: z.output<typeof testListsSchema>;
} | null = null;

function load(): NonNullable<typeof cache> {
  if (cache !== null) return cache;
  const envFile = path.join(SWEBENCH_DATA_DIR, "environments.json");
  const listFile = path.join(SWEBENCH_DATA_DIR, "test-lists.json");
  if (!existsSync(envFile) || !existsSync(listFile)) {
    throw new LabError(
      "DATASET_NOT_FOUND",
      `lab's SWE-bench data is missing from ${SWEBENCH_DATA_DIR}.`,
      { hint: "Reinstall lab; the data folder ships with it." },
    );
  }
  const rawEnvs = JSON.parse(readFileSync(envFile, "utf8")) as Record<string, unknown>;
  const environments = new Map<string, EnvironmentEntry>();
  for (const [id, entry] of Object.entries(rawEnvs))
    environments.set(id, environmentEntrySchema.parse(entry));
  cache = {
    environments,
    testLists: testListsSchema.parse(JSON.parse(readFileSync(listFile, "utf8"))),
  };
  return cache;
}

/** The transcribed environment of an instance, or null when lab has none for it. */
export function environmentFor(instanceId: string): EnvironmentEntry | null {
  return load().environments.get(instanceId) ?? null;
}

/** Upstream's current (v5) test lists for an instance, or null when lab has none. */
export function testListsFor(
  instanceId: string,
): { FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] } | null {
  return load().testLists[instanceId] ?? null;
}
