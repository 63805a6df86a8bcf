/**
 * Proof time per instance from a suite's proof.json (written by `lab gen`). What it prints, and
 * its arguments: USAGE.
 */
import { statSync } from "node:fs";
import { median } from "../src/report/index.js";
import { readProofFile, suiteLayout } from "../src/suite/index.js";
import { fail, parseScriptArgs } from "../scripts/args.js";

const USAGE = `usage: npm run bench:proof-times -- EVALS_DIR/SUITE

Proof time per instance from a suite's proof.json (written by \`lab gen\`): each proof run
grades the gold patch and the empty change, and this prints the time of those grades beside
the time of their test processes, per instance and in all, with the median of each phase.

Grades reused from an earlier gen ("proven earlier") carry the times of the gen that made
them; run it after a gen from an empty cache to time a cold gen's proofs. A table per
repository follows: its instances, the sum of their grades and tests, and its builds: the
\`layer\` phase of a grade, where the base commit's install is made (compiled projects build
their extensions there) or found, and the \`install\` phase.

  EVALS_DIR/SUITE   the suite's folder, e.g. evals/swebench
`;

const { positionals } = parseScriptArgs({
  name: "proof-times",
  usage: USAGE,
  options: {},
  allowPositionals: true,
});
const [suiteDir, ...extra] = positionals;
if (suiteDir === undefined) fail("give the suite's folder, EVALS_DIR/SUITE");
if (extra.length > 0) fail(`takes one suite folder; also got ${extra.join(" ")}`);
if (!(statSync(suiteDir, { throwIfNoEntry: false })?.isDirectory() ?? false))
  fail(`no folder at ${suiteDir}`);

const instances = (await readProofFile(suiteDir))?.instances;
if (instances === undefined) {
  process.stderr.write(
    `proof-times: ${suiteLayout(suiteDir).proofFile} holds no SWE-bench proofs (written by \`lab gen --suite swebench\`).\n`,
  );
  process.exit(1);
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);
const sum = (values: readonly number[]): number =>
  values.reduce((total, value) => total + value, 0);
const phases = new Map<string, number[]>();
let allGrades = 0;
let allTests = 0;
process.stdout.write(
  "| instance | kept | grades | proof s | tests s | overhead s |\n|---|---|---|---|---|---|\n",
);
for (const [id, instance] of Object.entries(instances).sort(([a], [b]) => a.localeCompare(b))) {
  const grades = instance.runs.flatMap((run) => [run.gold, run.empty]);
  for (const grade of grades) {
    for (const [phase, ms] of Object.entries(grade.phaseMs))
      phases.set(phase, [...(phases.get(phase) ?? []), ms]);
  }
  const total = sum(grades.map((grade) => sum(Object.values(grade.phaseMs))));
  const tests = sum(grades.map((grade) => grade.phaseMs.tests ?? 0));
  allGrades += total;
  allTests += tests;
  process.stdout.write(
    `| ${id} | ${String(instance.kept)} | ${String(grades.length)} | ${seconds(total)} | ${seconds(tests)} | ${seconds(total - tests)} |\n`,
  );
}
const byRepo = new Map<
  string,
  { ids: string[]; kept: number; grades: number; tests: number; layer: number[]; install: number[] }
>();
for (const [id, instance] of Object.entries(instances)) {
  // <owner>__<name>-<number>
  const repo = id.replace(/-\d+$/, "").replace("__", "/");
  const entry = byRepo.get(repo) ?? {
    ids: [],
    kept: 0,
    grades: 0,
    tests: 0,
    layer: [],
    install: [],
  };
  entry.ids.push(id);
  if (instance.kept) entry.kept++;
  for (const grade of instance.runs.flatMap((run) => [run.gold, run.empty])) {
    entry.grades += sum(Object.values(grade.phaseMs));
    entry.tests += grade.phaseMs.tests ?? 0;
    if (grade.phaseMs.layer !== undefined) entry.layer.push(grade.phaseMs.layer);
    if (grade.phaseMs.install !== undefined) entry.install.push(grade.phaseMs.install);
  }
  byRepo.set(repo, entry);
}
process.stdout.write(
  "\n| repository | instances | kept | proof s | tests s | layer s (median, max) | install s (median, max) |\n|---|---|---|---|---|---|---|\n",
);
for (const [repo, entry] of [...byRepo].sort(([a], [b]) => a.localeCompare(b))) {
  const spread = (times: number[]): string =>
    times.length === 0 ? "–" : `${seconds(median(times) ?? 0)}, ${seconds(Math.max(...times))}`;
  process.stdout.write(
    `| ${repo} | ${String(entry.ids.length)} | ${String(entry.kept)} | ${seconds(entry.grades)} | ${seconds(entry.tests)} | ${spread(entry.layer)} | ${spread(entry.install)} |\n`,
  );
}
process.stdout.write(
  [
    "",
    `instances: ${String(Object.keys(instances).length)}`,
    `sum of proof grades: ${seconds(allGrades)} s; sum of their test processes: ${seconds(allTests)} s; ratio ${(allGrades / allTests).toFixed(3)}`,
    `median per grade phase (s): ${[...phases].map(([phase, times]) => `${phase} ${seconds(median(times) ?? 0)}`).join(", ")}`,
    "",
  ].join("\n"),
);
