/**
 * How much longer a finished run took than its tests. What it prints, and its arguments: USAGE.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { median } from "../src/report/index.js";
import { trialResultSchema } from "../src/store/index.js";
import { fail, numberOption, parseScriptArgs } from "../scripts/args.js";

const USAGE = `usage: npm run bench:run-overhead -- RUN_DIR [--wall-ms MS]

How much longer a finished run took than its tests: per trial, the trial's wall time (setup,
tool, diff, grade) beside the wall time of its test process, and the ratio of the sums. Made
for \`lab run gold\` over a warm tier: the goals are a whole run within 1.2 times the sum of its
test processes, and a grade's time beyond its test process under 1 s.

  RUN_DIR       the run's folder, e.g. runs/swebench-gold
  --wall-ms MS  the run's own wall time (e.g. from \`time\`): also prints the ratio of that to
                the sum of test times, which counts what happens between trials
`;

const { values, positionals } = parseScriptArgs({
  name: "run-overhead",
  usage: USAGE,
  options: { "wall-ms": { type: "string" } },
  allowPositionals: true,
});
const [runDir, ...extra] = positionals;
if (runDir === undefined) fail("give the run's folder, RUN_DIR");
if (extra.length > 0) fail(`takes one run folder; also got ${extra.join(" ")}`);
const trialsDir = path.join(runDir, "trials");
if (!existsSync(trialsDir)) fail(`no run at ${runDir}: it has no trials/ folder`);
const wallMs =
  values["wall-ms"] === undefined ? undefined : numberOption("wall-ms", values["wall-ms"], 1);

interface Row {
  readonly task: string;
  readonly trialMs: number;
  readonly testsMs: number;
  /** The grade's wall time, in the trial. */
  readonly gradeMs: number;
  readonly resolved: boolean | null;
  /** The grade's phases (checkout, install, tests, ...), in ms. */
  readonly phases: Readonly<Record<string, number>>;
  /** How the project was installed: by its install command, or the base commit's reused. */
  readonly install: string | undefined;
}

const rows: Row[] = [];
for (const task of readdirSync(trialsDir).sort()) {
  for (const trial of readdirSync(path.join(trialsDir, task))) {
    const file = path.join(trialsDir, task, trial, "result.json");
    const result = trialResultSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    rows.push({
      task,
      trialMs: result.durationMs,
      testsMs: result.grade?.phaseMs.tests ?? 0,
      gradeMs: result.phaseMs.grade ?? 0,
      resolved: result.resolved,
      phases: result.grade?.phaseMs ?? {},
      install: result.grade?.install,
    });
  }
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);
const twoPlaces = (ms: number): string => (ms / 1000).toFixed(2);
process.stdout.write(
  "| task | trial s | tests s | overhead s | grade's checkout s | install s | resolved |\n|---|---|---|---|---|---|---|\n",
);
for (const row of rows) {
  process.stdout.write(
    `| ${row.task} | ${seconds(row.trialMs)} | ${seconds(row.testsMs)} | ${seconds(row.trialMs - row.testsMs)} | ${twoPlaces(row.phases.checkout ?? 0)} | ${twoPlaces(row.phases.install ?? 0)} (${row.install ?? "?"}) | ${String(row.resolved)} |\n`,
  );
}
const gradeOverheads = rows.map((row) => row.gradeMs - row.testsMs);
const trialSum = rows.reduce((sum, row) => sum + row.trialMs, 0);
const testsSum = rows.reduce((sum, row) => sum + row.testsMs, 0);
process.stdout.write(
  [
    "",
    `trials: ${String(rows.length)}, resolved: ${String(rows.filter((row) => row.resolved === true).length)}`,
    `sum of trial times: ${seconds(trialSum)} s; sum of test processes: ${seconds(testsSum)} s`,
    `ratio (trials / tests): ${(trialSum / testsSum).toFixed(3)}`,
    `installs: ${(["reused", "fresh"] as const).map((how) => `${String(rows.filter((row) => row.install === how).length)} ${how}`).join(", ")}`,
    `median overhead per trial: ${seconds(median(rows.map((row) => row.trialMs - row.testsMs)) ?? 0)} s`,
    `grade overhead beyond its test process: median ${twoPlaces(median(gradeOverheads) ?? 0)} s, max ${seconds(Math.max(...gradeOverheads))} s`,
    "grade phases, median / max (s): " +
      [...new Set(rows.flatMap((row) => Object.keys(row.phases)))]
        .map((phase) => {
          const times = rows.flatMap((row) => row.phases[phase] ?? []);
          return `${phase} ${twoPlaces(median(times) ?? 0)} / ${twoPlaces(Math.max(...times))}`;
        })
        .join(", "),
    ...(["reused", "fresh"] as const).map((how) => {
      const times = rows.filter((row) => row.install === how).map((row) => row.phases.install ?? 0);
      return `install phase of ${how} installs, median / max (s): ${twoPlaces(median(times) ?? 0)} / ${twoPlaces(Math.max(0, ...times))}`;
    }),
    ...(wallMs === undefined
      ? []
      : [`ratio (run wall time / tests): ${(wallMs / testsSum).toFixed(3)}`]),
    "",
  ].join("\n"),
);
