import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { JS_LOG_PARSERS, LabError, type JsLogParser } from "../../core/index.js";
import { SWEBENCH_DATA_DIR } from "./data.js";

/** lab's transcription of SWE-bench Multilingual's JS/TS specs (see its README). */
export const MULTILINGUAL_DATA_DIR = path.join(SWEBENCH_DATA_DIR, "multilingual");

const README = "data/swebench/multilingual/README.md";

/** `parse_log_<name>` for a parser lab has ported: upstream's name, as MAP_REPO_TO_PARSER_JS has it. */
const upstreamParserSchema = z
  .string()
  .refine(
    (name) =>
      name.startsWith("parse_log_") &&
      (JS_LOG_PARSERS as readonly string[]).includes(name.slice("parse_log_".length)),
    {
      error: `not parse_log_ followed by one of ${JS_LOG_PARSERS.join(", ")}`,
    },
  );

/**
 * One entry of upstream's MAP_REPO_VERSION_TO_SPECS_JS, its keys as upstream spells them. Strict,
 * so a key lab does not read (an `apt-pkgs` the host would lack, say) stops the read instead of
 * being dropped.
 */
const upstreamSpecSchema = z.strictObject({
  instance_id: z.string(),
  docker_specs: z.record(z.string(), z.string()).default({}),
  pre_install: z.array(z.string()).default([]),
  install: z.array(z.string()).default([]),
  build: z.array(z.string()).default([]),
  test_cmd: z.union([z.string(), z.array(z.string())]),
  notes: z.array(z.string()).default([]),
});

/** specs-javascript.json. */
const specsFileSchema = z.object({
  provenance: z.record(z.string(), z.string()),
  defaultDockerSpecs: z.record(z.string(), z.string()),
  dockerVariants: z.record(z.string(), z.object({ from: z.string() }).loose()),
  repos: z.record(
    z.string(),
    z.object({
      language: z.literal("javascript"),
      upstreamTable: z.string(),
      log_parser: upstreamParserSchema,
      eval_type: z.enum(["pass_and_fail", "fail_only"]),
      testFramework: z.string(),
      versions: z.record(z.string(), upstreamSpecSchema),
    }),
  ),
});

/** languages.json: every repository of the dataset by language, and which languages lab supports. */
const languagesFileSchema = z.object({
  provenance: z.record(z.string(), z.string()),
  instances: z.number(),
  languages: z.record(
    z.string(),
    z.object({
      label: z.string(),
      supported: z.boolean(),
      why: z.string(),
      instances: z.number(),
      repos: z.record(
        z.string(),
        z.object({ instances: z.number(), versions: z.array(z.string()) }),
      ),
    }),
  ),
});

/** A SWE-bench Multilingual instance's spec: how upstream builds its image and runs its tests. */
export interface MultilingualSpec {
  readonly repo: string;
  /** The dataset's version: for these repositories, the instance's pull-request number. */
  readonly version: string;
  readonly instanceId: string;
  /** Node as upstream states it: a major line ("20") for the js_2 image, which takes its newest release. */
  readonly nodeVersion: string;
  /** Upstream's `_variant` (the image its Dockerfile builds), or null for the default JS image. */
  readonly dockerVariant: string | null;
  /** The Ubuntu release of upstream's image. */
  readonly ubuntuVersion: string;
  /** Run in the checkout before the install (upstream's `pre_install`); none of these has any. */
  readonly preInstall: readonly string[];
  /** Run in the checkout when the image is built (upstream's `install`). */
  readonly install: readonly string[];
  /** Run after the install when the image is built, and again after the hidden test patch, before the tests. */
  readonly build: readonly string[];
  /** The test commands, each run as `(command) | cat` between the output markers. */
  readonly testCommands: readonly string[];
  /** lab's parser name; "immutable_js" needs the instance id to pick its runner (parseTestLog's option). */
  readonly logParser: JsLogParser;
  /** Upstream's parser function, as the dataset's `log_parser` column names it. */
  readonly upstreamLogParser: string;
  /** How the test lists are graded: both lists (pass_and_fail), or only failures (fail_only). */
  readonly evalType: "pass_and_fail" | "fail_only";
  /** lab's reading of the test command: the runner and the output its parser reads. */
  readonly testFramework: string;
  /** What a grader must know (upstream's comments, the parser picked). */
  readonly notes: readonly string[];
}

/** lab's own specs file. */
export const MULTILINGUAL_SPECS_FILE = path.join(MULTILINGUAL_DATA_DIR, "specs-javascript.json");

const specsFiles = new Map<string, z.output<typeof specsFileSchema>>();
let languagesFile: z.output<typeof languagesFileSchema> | null = null;

/** Reads and checks one of the folder's files (or a specs file in its format). */
function readDataFile<T extends z.ZodType>(file: string, schema: T): z.output<T> {
  if (!existsSync(file)) {
    throw new LabError(
      "DATASET_NOT_FOUND",
      `lab's SWE-bench Multilingual data ${file} is missing.`,
      {
        hint: "Reinstall lab; the data folder ships with it.",
      },
    );
  }
  const parsed = schema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    throw new LabError("DATASET_INVALID", `${file} is malformed: ${parsed.error.message}`, {
      hint: `Regenerate it with scripts/swebench/transcribe-multilingual.ts (${README}).`,
    });
  }
  return parsed.data;
}

/**
 * The spec of a SWE-bench Multilingual instance, by its repository and version (a dataset row
 * fits). Throws a LabError naming what is missing: a repository of a language lab does not
 * support here (and why), a repository not in the dataset, or a version lab has no spec for.
 * `file`: another specs file in the same format (lab's own by default; tests give their own).
 */
export function multilingualSpecFor(
  instance: { readonly repo: string; readonly version: string },
  file: string = MULTILINGUAL_SPECS_FILE,
): MultilingualSpec {
  const specsFile = specsFiles.get(file) ?? readDataFile(file, specsFileSchema);
  specsFiles.set(file, specsFile);
  const { repo, version } = instance;
  const entry = specsFile.repos[repo];
  if (entry === undefined) throw missingRepo(repo, Object.keys(specsFile.repos));
  const spec = entry.versions[version];
  if (spec === undefined) {
    throw new LabError(
      "TASK_NOT_FOUND",
      `lab has no SWE-bench Multilingual spec for ${repo} version ${version}.`,
      {
        hint: `Upstream's specs for ${repo} are per instance, keyed by pull-request number; lab has ${Object.keys(entry.versions).join(", ")} (${README}).`,
      },
    );
  }
  const docker = { ...specsFile.defaultDockerSpecs, ...spec.docker_specs };
  return {
    repo,
    version,
    instanceId: spec.instance_id,
    nodeVersion: docker.node_version ?? "",
    dockerVariant: docker._variant ?? null,
    ubuntuVersion: docker.ubuntu_version ?? "",
    preInstall: spec.pre_install,
    install: spec.install,
    build: spec.build,
    testCommands: typeof spec.test_cmd === "string" ? [spec.test_cmd] : spec.test_cmd,
    logParser: entry.log_parser.replace(/^parse_log_/, "") as JsLogParser,
    upstreamLogParser: entry.log_parser,
    evalType: entry.eval_type,
    testFramework: entry.testFramework,
    notes: spec.notes,
  };
}

/** The error for a repository without specs: another language's (and why), or none of the dataset's. */
function missingRepo(repo: string, supported: readonly string[]): LabError {
  languagesFile ??= readDataFile(
    path.join(MULTILINGUAL_DATA_DIR, "languages.json"),
    languagesFileSchema,
  );
  const language = Object.values(languagesFile.languages).find((entry) => repo in entry.repos);
  const hint = `lab's SWE-bench Multilingual repositories are ${supported.join(", ")} (${README}).`;
  if (language === undefined) {
    return new LabError(
      "TASK_NOT_FOUND",
      `${repo} is not a repository of SWE-bench Multilingual, so lab has no spec for it.`,
      { hint },
    );
  }
  return new LabError(
    "TASK_NOT_FOUND",
    `SWE-bench Multilingual's ${repo} is ${language.label}, which lab does not support on this machine: ${language.why}`,
    { hint },
  );
}
