/**
 * Proof time per instance from a suite's proof.json (written by `lab gen`): each proof run
 * grades the gold patch and the empty change, and this prints the time of those grades beside
 * the time of their test processes, per instance and in all, with the median of each phase.
 *
 *   npx tsx bench/proof-times.ts EVALS_DIR/SUITE
 *
 * Grades reused from an earlier gen ("proven earlier") carry the times of the gen that made
 * them; run it after a gen from an empty cache to time a cold gen's proofs.
 */
import { median } from "../src/report/index.js";
import { readProofFile, suiteLayout } from "../src/suite/index.js";

const suiteDir = process.argv[2];
if (suiteDir === undefined) {
  process.stderr.write("usage: npx tsx bench/proof-times.ts EVALS_DIR/SUITE\n");
  process.exit(2);
}

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
process.stdout.write(
  [
    "",
    `instances: ${String(Object.keys(instances).length)}`,
    `sum of proof grades: ${seconds(allGrades)} s; sum of their test processes: ${seconds(allTests)} s; ratio ${(allGrades / allTests).toFixed(3)}`,
    `median per grade phase (s): ${[...phases].map(([phase, times]) => `${phase} ${seconds(median(times) ?? 0)}`).join(", ")}`,
    "",
  ].join("\n"),
);
