/**
 * Compares lab's verdicts on a predictions run with official per-instance verdicts of the same
 * predictions (maintainer tool, run by hand): agreement over the instances both graded, and
 * every disagreement with lab's reason, for the README's fidelity table.
 *
 *   npx tsx scripts/swebench/compare-verdicts.ts --runs-dir DIR --run-id ID --verdicts FILE
 *
 * FILE: {"resolved": [ids], "unresolved": [ids], "source": "..."}; instances outside lab's run
 * (not kept here, or not predicted) are counted apart.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { readTrialResults, runPaths } from "../../src/store/index.js";

const { values } = parseArgs({
  options: {
    "runs-dir": { type: "string", default: "runs" },
    "run-id": { type: "string" },
    verdicts: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
if (values["run-id"] === undefined || values.verdicts === undefined) {
  process.stderr.write(
    "usage: npx tsx scripts/swebench/compare-verdicts.ts --runs-dir DIR --run-id ID --verdicts FILE [--json]\n",
  );
  process.exit(2);
}
const official = z
  .object({
    source: z.string().default(""),
    resolved: z.array(z.string()),
    unresolved: z.array(z.string()).default([]),
  })
  .parse(JSON.parse(readFileSync(values.verdicts, "utf8")));
const resolvedThere = new Set(official.resolved);
const gradedThere = new Set([...official.resolved, ...official.unresolved]);

const results = await readTrialResults(runPaths(values["runs-dir"], values["run-id"]));
const here = new Map(results.map((result) => [result.taskId, result]));
const both = [...here.keys()].filter((id) => gradedThere.has(id)).sort();
const disagreements = both
  .filter((id) => (here.get(id)?.resolved === true) !== resolvedThere.has(id))
  .map((id) => {
    const result = here.get(id);
    return {
      instance: id,
      official: resolvedThere.has(id) ? "resolved" : "unresolved",
      lab: result?.resolved === true ? "resolved" : "unresolved",
      labReason:
        result?.outcome.kind === "infra_error"
          ? `infra error: ${result.outcome.message}`
          : (result?.grade?.reason ?? null),
      applyMethod: result?.grade?.applyMethod ?? null,
    };
  });
const agreed = both.length - disagreements.length;
const summary = {
  source: official.source,
  runId: values["run-id"],
  gradedByBoth: both.length,
  agreed,
  agreement: both.length === 0 ? null : Number((agreed / both.length).toFixed(4)),
  resolvedHere: both.filter((id) => here.get(id)?.resolved === true).length,
  resolvedThere: both.filter((id) => resolvedThere.has(id)).length,
  notInRun: [...gradedThere].filter((id) => !here.has(id)).length,
  disagreements,
};
if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
else {
  process.stdout.write(
    `${summary.runId} vs ${summary.source}: ${String(agreed)}/${String(both.length)} agree (${((summary.agreement ?? 0) * 100).toFixed(1)}%); resolved here ${String(summary.resolvedHere)}, there ${String(summary.resolvedThere)}; ${String(summary.notInRun)} official verdict(s) on instances outside the run\n`,
  );
  for (const entry of disagreements)
    process.stdout.write(
      `  ${entry.instance}: official ${entry.official}, lab ${entry.lab}${entry.labReason === null ? "" : ` (${entry.labReason})`}${entry.applyMethod === null ? "" : ` [applied with ${entry.applyMethod}]`}\n`,
    );
}
