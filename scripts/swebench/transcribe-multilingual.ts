/**
 * Transcribes SWE-bench Multilingual's JavaScript/TypeScript specs from a mirror of
 * SWE-bench/SWE-bench into data/swebench/multilingual/ (maintainer tool, run by hand; see that
 * folder's README). Nothing of the mirror is kept: the parquet goes to a temp file, upstream's
 * Python is read, never copied.
 *
 *   npx tsx scripts/swebench/transcribe-multilingual.ts [--mirror GIT_DIR]
 *
 * It stops on anything it cannot place: a JS/TS row whose version has no spec, an instance id
 * that is not `<owner>__<name>-<version>`, a row whose log_parser or eval_type differs from the
 * harness's, or an eval_script whose build or test lines differ from the spec's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readRowsFile } from "../../src/datasets/index.js";
import { runCommand } from "../../src/process/index.js";
import {
  DOCKERFILE_MUST_HOLD,
  MULTILINGUAL,
  PY_READER,
  SUPPORT,
  TEST_FRAMEWORK,
  VERSION_NOTES,
} from "./multilingual-upstream.js";

const { values } = parseArgs({
  options: {
    mirror: { type: "string", default: "/work/.mirror/SWE-bench+SWE-bench/repo" },
    out: { type: "string", default: path.join("data", "swebench", "multilingual") },
  },
});
const mirror = values.mirror;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };

/** `git show COMMIT:PATH` from the mirror, as bytes. */
async function show(commit: string, file: string): Promise<Buffer> {
  const result = await runCommand(["git", `--git-dir=${mirror}`, "show", `${commit}:${file}`], {
    env,
    timeoutMs: 120_000,
    captureStdout: true,
  });
  if (result.exitCode !== 0 || result.stdoutBuffer === undefined) {
    throw new Error(`git show ${commit}:${file} failed: ${result.stderrTail}`);
  }
  return result.stdoutBuffer;
}

function fail(message: string): never {
  process.stderr.write(`transcribe-multilingual: ${message}\n`);
  process.exit(1);
}

const { specs: C, dataset: D } = MULTILINGUAL;

// 1. Upstream's Python, read by python3 (the spec table is executed with no builtins, the rest
// read with ast): the JS specs, the repo-to-parser map, the defaults and each language's repos.
const sources: Record<string, string> = {};
for (const [name, file] of Object.entries(C.files)) {
  sources[name] = (await show(C.commit, file)).toString("utf8");
}
for (const [language, file] of Object.entries(C.languages)) {
  sources[`language:${language}`] = (await show(C.commit, file)).toString("utf8");
}
for (const line of DOCKERFILE_MUST_HOLD) {
  if (!(sources.dockerfile ?? "").includes(line))
    fail(`${C.files.dockerfile} no longer holds ${line}`);
}
const py = await runCommand(["python3", "-c", PY_READER], {
  env,
  timeoutMs: 60_000,
  captureStdout: true,
  input: JSON.stringify(sources),
});
if (py.exitCode !== 0 || py.stdout === undefined)
  fail(`python3 could not read upstream: ${py.stderrTail}`);
const upstream = JSON.parse(py.stdout) as {
  specs: Record<string, Record<string, Record<string, unknown>>>;
  tables: Record<string, string>;
  parsers: Record<string, string>;
  defaults: Record<string, string>;
  failOnly: string[];
  languages: Record<string, string[]>;
};

// 2. The dataset, with lab's own parquet reader.
const scratch = mkdtempSync(path.join(tmpdir(), "lab-multilingual-"));
let rows: Record<string, unknown>[];
try {
  const file = path.join(scratch, "test.parquet");
  writeFileSync(file, await show(D.commit, D.path));
  rows = (await readRowsFile(file)) as Record<string, unknown>[];
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const text = (row: Record<string, unknown>, key: string): string => String(row[key]);

const languageOf = new Map<string, string>();
for (const [language, repos] of Object.entries(upstream.languages)) {
  for (const repo of repos) languageOf.set(repo, language);
}

// 3. Counts per language and repository, every language.
const languages: Record<
  string,
  { repos: Record<string, { instances: number; versions: string[] }> }
> = {};
for (const row of rows) {
  const repo = text(row, "repo");
  const language = languageOf.get(repo) ?? fail(`${repo} is in no constants file at ${C.commit}`);
  const repos = (languages[language] ??= { repos: {} }).repos;
  const entry = (repos[repo] ??= { instances: 0, versions: [] });
  entry.instances += 1;
  entry.versions.push(text(row, "version"));
}

// 4. The JS/TS rows, checked against the harness and turned into spec entries.
const jsRows = rows.filter((row) => languageOf.get(text(row, "repo")) === "javascript");
const repos: Record<string, Record<string, unknown>> = {};
for (const row of [...jsRows].sort((a, b) =>
  text(a, "instance_id").localeCompare(text(b, "instance_id")),
)) {
  const repo = text(row, "repo");
  const version = text(row, "version");
  const id = text(row, "instance_id");
  const spec = upstream.specs[repo]?.[version] ?? fail(`${id}: no spec for ${repo} ${version}`);
  if (id !== `${repo.replace("/", "__")}-${version}`) fail(`${id} is not ${repo} ${version}'s id`);
  const parser = upstream.parsers[repo] ?? fail(`${repo} has no log parser`);
  if (text(row, "log_parser") !== parser)
    fail(`${id}: the row's parser ${text(row, "log_parser")} is not ${parser}`);
  const evalType = upstream.failOnly.includes(repo) ? "fail_only" : "pass_and_fail";
  if (text(row, "eval_type") !== evalType)
    fail(`${id}: eval_type ${text(row, "eval_type")}, not ${evalType}`);
  checkEvalScript(id, text(row, "eval_script"), spec);
  const entry = (repos[repo] ??= {
    language: "javascript",
    upstreamTable: upstream.tables[repo],
    log_parser: parser,
    eval_type: evalType,
    testFramework: TEST_FRAMEWORK[repo] ?? fail(`no test framework written down for ${repo}`),
    versions: {},
  });
  const notes = VERSION_NOTES[id];
  (entry.versions as Record<string, unknown>)[version] = {
    instance_id: id,
    ...spec,
    ...(notes === undefined ? {} : { notes }),
  };
}

/** The eval script's lines after the test patch: the spec's build lines, then each test command as `(cmd) | cat`. */
function checkEvalScript(id: string, script: string, spec: Record<string, unknown>): void {
  const lines = script
    .replace(/<<'EOF_114329324912'\n[\s\S]*?\nEOF_114329324912/g, "<<EOF")
    .split("\n");
  const apply = lines.findIndex((line) => line.startsWith("git apply"));
  const start = lines.indexOf(": '>>>>> Start Test Output'");
  const end = lines.indexOf(": '>>>>> End Test Output'");
  if (apply < 0 || start < apply || end < start)
    fail(`${id}: eval_script has no test patch or markers`);
  const build = lines.slice(apply + 1, start);
  const tests = lines.slice(start + 1, end);
  const expectedTests = (spec.test_cmd as string[]).map((command) => `(${command}) | cat`);
  if (JSON.stringify(build) !== JSON.stringify(spec.build ?? []))
    fail(`${id}: build lines ${JSON.stringify(build)}`);
  if (JSON.stringify(tests) !== JSON.stringify(expectedTests))
    fail(`${id}: test lines ${JSON.stringify(tests)}`);
}

const provenance = {
  upstream: "SWE-bench/SWE-bench",
  ...Object.fromEntries(
    Object.entries(C.files).map(([name, file]) => [name, `${C.commit}:${file}`]),
  ),
  dataset: `${D.commit}:${D.path}`,
  writtenBy: "scripts/swebench/transcribe-multilingual.ts",
};
const specsFile = {
  provenance,
  defaultDockerSpecs: upstream.defaults,
  dockerVariants: MULTILINGUAL.dockerVariants,
  repos,
};
const languagesFile = {
  provenance: {
    dataset: provenance.dataset,
    languages: `${C.commit}:swebench/harness/constants/<language>.py`,
  },
  instances: rows.length,
  languages: Object.fromEntries(
    Object.entries(languages)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([language, { repos: counts }]) => [
        language,
        {
          ...(SUPPORT[language] ?? fail(`no support note for ${language}`)),
          instances: Object.values(counts).reduce((sum, repo) => sum + repo.instances, 0),
          repos: Object.fromEntries(
            Object.entries(counts)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([repo, { instances, versions }]) => [
                repo,
                {
                  instances,
                  versions: [...new Set(versions)].sort((a, b) => Number(a) - Number(b)),
                },
              ]),
          ),
        },
      ]),
  ),
};
/** JSON with a 2-space indent, arrays of scalars on one line where they fit in 100 columns (prettier's layout). */
function formatJson(value: unknown, indent = "", lead = 0): string {
  if (Array.isArray(value)) {
    const inline = `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    const scalars = value.every((item) => typeof item !== "object" || item === null);
    if (scalars && indent.length + lead + inline.length <= 100) return inline;
    if (value.length === 0) return "[]";
    const inner = `${indent}  `;
    return `[\n${value.map((item) => inner + formatJson(item, inner)).join(",\n")}\n${indent}]`;
  }
  if (typeof value === "object" && value !== null) {
    const inner = `${indent}  `;
    const entries = Object.entries(value).map(([key, item]) => {
      const head = `${JSON.stringify(key)}: `;
      return inner + head + formatJson(item, inner, head.length + 1);
    });
    return entries.length === 0 ? "{}" : `{\n${entries.join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value);
}

writeFileSync(path.join(values.out, "specs-javascript.json"), `${formatJson(specsFile)}\n`);
writeFileSync(path.join(values.out, "languages.json"), `${formatJson(languagesFile)}\n`);
for (const [language, { instances, repos: counts }] of Object.entries(languagesFile.languages)) {
  process.stdout.write(`${language}: ${String(instances)} instances\n`);
  for (const [repo, { instances: n, versions }] of Object.entries(counts)) {
    process.stdout.write(`  ${repo}: ${String(n)} (${versions.join(", ")})\n`);
  }
}
process.stdout.write(
  `${String(jsRows.length)} JS/TS instances checked against their eval scripts\n`,
);
