import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { pythonEnvironmentSpecSchema, LabError } from "../../core/index.js";
import { packageRoot } from "../../suite/index.js";

/** lab's own transcription of upstream's environment specs and test lists (see data/swebench/README.md). */
export const SWEBENCH_DATA_DIR = path.join(packageRoot, "data", "swebench");

const environmentEntrySchema = pythonEnvironmentSpecSchema.extend({
  repo: z.string(),
  version: z.string(),
  notes: z.array(z.string()).default([]),
  unmapped: z.array(z.string()).default([]),
  services: z.array(z.string()).default([]),
  installArgs: z.array(z.string()).default([]),
  /** Steps upstream ran as root on its image (apt-get, locale-gen), which lab does not run. */
  systemSetup: z.array(z.string()).optional(),
});

/** One instance's environment as transcribed, with notes for the record. */
export type EnvironmentEntry = z.output<typeof environmentEntrySchema>;

/**
 * environments.json: each pin set once per envId, what a repository version shares once per
 * spec, and per instance only its own part. An instance's entry is the three put together.
 */
const environmentsFileSchema = z.object({
  envs: z.record(
    z.string(),
    z
      .object({
        python: z.string(),
        pins: z.array(z.string()),
        pinsInstallArgs: z.array(z.string()),
        pinsBuildConstraints: z.array(z.string()).optional(),
        unmapped: z.array(z.string()),
      })
      .loose(),
  ),
  specs: z.record(z.string(), z.object({ notes: z.array(z.string()).default([]) }).loose()),
  instances: z.record(
    z.string(),
    z
      .object({
        spec: z.string(),
        envId: z.string(),
        notes: z.array(z.string()).default([]),
        preTest: z.array(z.string()).optional(),
        datasets: z.array(z.string()).default([]),
      })
      .loose(),
  ),
});

const testListsSchema = z.record(
  z.string(),
  z.object({ FAIL_TO_PASS: z.array(z.string()), PASS_TO_PASS: z.array(z.string()) }),
);

let cache: {
  file: z.output<typeof environmentsFileSchema>;
  environments: Map<string, EnvironmentEntry | null>;
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
  cache = {
    file: environmentsFileSchema.parse(JSON.parse(readFileSync(envFile, "utf8"))),
    environments: new Map(),
    testLists: testListsSchema.parse(JSON.parse(readFileSync(listFile, "utf8"))),
  };
  return cache;
}

/** Puts an instance's entry together from its env, its spec and its own part. */
function compose(
  file: z.output<typeof environmentsFileSchema>,
  instanceId: string,
): EnvironmentEntry | null {
  const instance = file.instances[instanceId];
  if (instance === undefined) return null;
  const spec = file.specs[instance.spec];
  const env = file.envs[instance.envId];
  if (spec === undefined || env === undefined) {
    throw new LabError(
      "DATASET_INVALID",
      `lab's SWE-bench data names a missing ${spec === undefined ? `spec ${instance.spec}` : `env ${instance.envId}`} for ${instanceId}.`,
      { hint: "Regenerate data/swebench with scripts/swebench/transcribe.py." },
    );
  }
  return environmentEntrySchema.parse({
    ...spec,
    python: env.python,
    pins: env.pins,
    pinsInstallArgs: env.pinsInstallArgs,
    ...(env.pinsBuildConstraints === undefined
      ? {}
      : { pinsBuildConstraints: env.pinsBuildConstraints }),
    unmapped: env.unmapped,
    notes: [...spec.notes, ...instance.notes],
    ...(instance.preTest === undefined ? {} : { preTest: instance.preTest }),
  });
}

/** The transcribed environment of an instance, or null when lab has none for it. */
export function environmentFor(instanceId: string): EnvironmentEntry | null {
  const data = load();
  if (!data.environments.has(instanceId))
    data.environments.set(instanceId, compose(data.file, instanceId));
  return data.environments.get(instanceId) ?? null;
}

/** Whether an instance is one of SWE-bench Lite's (by lab's transcription). */
export function isLiteInstance(instanceId: string): boolean {
  return load().file.instances[instanceId]?.datasets.includes("lite") ?? false;
}

/**
 * Upstream's current (v5) test lists of a SWE-bench Lite instance, or null when lab has none.
 * Other datasets' lists are their rows' own columns.
 */
export function testListsFor(
  instanceId: string,
): { FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] } | null {
  return load().testLists[instanceId] ?? null;
}

const upstreamIssuesSchema = z.object({
  instances: z.record(
    z.string(),
    z.object({ issue: z.string(), url: z.string(), says: z.string() }),
  ),
});

/** A public upstream issue that reports an instance's trouble in upstream's own harness. */
export type UpstreamIssue = z.output<typeof upstreamIssuesSchema>["instances"][string];

let upstreamIssues: z.output<typeof upstreamIssuesSchema> | null = null;

/** The upstream issue that reports an instance's trouble, or null when lab knows of none. */
export function upstreamIssueFor(instanceId: string): UpstreamIssue | null {
  if (upstreamIssues === null) {
    const file = path.join(SWEBENCH_DATA_DIR, "upstream-issues.json");
    upstreamIssues = existsSync(file)
      ? upstreamIssuesSchema.parse(JSON.parse(readFileSync(file, "utf8")))
      : { instances: {} };
  }
  return upstreamIssues.instances[instanceId] ?? null;
}
