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
import { readFileSync } from "node:fs";
import { z } from "zod";
import { median } from "../src/report/index.js";
import { suiteLayout } from "../src/suite/index.js";

const suiteDir = process.argv[2];
if (suiteDir === undefined) {
  process.stderr.write("usage: npx tsx bench/proof-times.ts EVALS_DIR/SUITE\n");
  process.exit(2);
}

const gradeSchema = z.looseObject({ phaseMs: z.record(z.string(), z.number()) });
const proofSchema = z.object({
  instances: z.record(
    z.string(),
    z.looseObject({
      kept: z.boolean(),
      runs: z.array(z.looseObject({ gold: gradeSchema.nullish(), empty: gradeSchema.nullish() })),
    }),
  ),
});
const proof = proofSchema.parse(JSON.parse(readFileSync(suiteLayout(suiteDir).proofFile, "utf8")));

const seconds = (ms: number): string => (ms / 1000).toFixed(1);
const sum = (values: readonly number[]): number =>
  values.reduce((total, value) => total + value, 0);
const phases = new Map<string, number[]>();
let allGrades = 0;
let allTests = 0;
process.stdout.write(
  "| instance | kept | grades | proof s | tests s | overhead s |\n|---|---|---|---|---|---|\n",
);
for (const [id, instance] of Object.entries(proof.instances).sort(([a], [b]) =>
  a.localeCompare(b),
)) {
  const grades = instance.runs
    .flatMap((run) => [run.gold, run.empty])
    .flatMap((grade) => grade ?? []);
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
    `instances: ${String(Object.keys(proof.instances).length)}`,
    `sum of proof grades: ${seconds(allGrades)} s; sum of their test processes: ${seconds(allTests)} s; ratio ${(allGrades / allTests).toFixed(3)}`,
    `median per grade phase (s): ${[...phases].map(([phase, times]) => `${phase} ${seconds(median(times) ?? 0)}`).join(", ")}`,
    "",
  ].join("\n"),
);
