/**
 * Writes a slice of the swebench tier's proof into lab's ledger (data/swebench/ledger/), and
 * the tier README's section from the ledger. Maintainer tool, run by hand after a slice's gen
 * and runs; see data/swebench/README.md (The ledger).
 *
 *   npm run ledger -- --suite-dir DIR --dataset FILE --out LEDGER.jsonl --lab-commit SHA
 *       (--start-facts FILE | --started ISO --cores N --load-average X)
 *       [--runs-dir DIR] [--gold RUN] [--noop RUN] [--gold-predictions RUN]
 *       [--family NAME=RUN:VERDICTS.json ...] [--instances IDS | --instances-file FILE]
 *   npm run ledger -- --carry-from LEDGER.jsonl --carry-dataset FILE --dataset FILE --out LEDGER.jsonl
 *   npm run ledger -- --readme evals/swebench/README.md [--ledger-dir DIR]
 *
 * Both can be given at once: the slice is written first, then the section.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isLabError } from "../../src/core/index.js";
import { LEDGER_DIR } from "../../src/datasets/index.js";
import {
  carryLedgerLines,
  parseStartFacts,
  readLedgerFile,
  writeLedgerSlice,
} from "../../src/gen/index.js";
import { renderLedgerSection, replaceLedgerSection } from "../../src/report/index.js";
import { fail, parseScriptArgs } from "../args.js";

const USAGE = `usage: npm run ledger -- --suite-dir DIR --dataset FILE --out FILE --lab-commit SHA
         (--start-facts FILE | --started ISO --cores N --load-average X)
         [--runs-dir DIR] [--gold RUN] [--noop RUN] [--gold-predictions RUN]
         [--family NAME=RUN:VERDICTS.json ...] [--instances IDS | --instances-file FILE]
       npm run ledger -- --carry-from LEDGER --carry-dataset FILE --dataset FILE --out FILE
       npm run ledger -- --readme FILE [--ledger-dir DIR]
`;

const { values } = parseScriptArgs({
  name: "ledger",
  usage: USAGE,
  options: {
    "suite-dir": { type: "string" },
    dataset: { type: "string" },
    out: { type: "string" },
    "runs-dir": { type: "string", default: "runs" },
    gold: { type: "string" },
    noop: { type: "string" },
    "gold-predictions": { type: "string" },
    family: { type: "string", multiple: true, default: [] as string[] },
    instances: { type: "string" },
    "instances-file": { type: "string" },
    "lab-commit": { type: "string" },
    "start-facts": { type: "string" },
    started: { type: "string" },
    cores: { type: "string" },
    "load-average": { type: "string" },
    readme: { type: "string" },
    "carry-from": { type: "string" },
    "carry-dataset": { type: "string" },
    "ledger-dir": { type: "string", default: LEDGER_DIR },
  },
});

/** NAME=RUN:VERDICTS -> its parts. */
function parseFamily(spec: string): { name: string; runId: string; verdictsFile: string } {
  const match = /^([^=]+)=([^:]+):(.+)$/.exec(spec);
  if (match === null) fail(`--family expects NAME=RUN:VERDICTS.json; got "${spec}"`);
  return {
    name: match[1] ?? "",
    runId: match[2] ?? "",
    verdictsFile: path.resolve(match[3] ?? ""),
  };
}

function sliceOf(): string[] | undefined {
  const text =
    values["instances-file"] !== undefined
      ? readFileSync(values["instances-file"], "utf8")
      : values.instances;
  return text
    ?.split(/[\s,]+/)
    .map((id) => id.trim())
    .filter((id) => id !== "");
}

async function writeSlice(): Promise<void> {
  const suiteDir = values["suite-dir"];
  const dataset = values.dataset;
  const out = values.out;
  const labCommit = values["lab-commit"];
  if (dataset === undefined || out === undefined || suiteDir === undefined)
    fail("a slice needs --suite-dir, --dataset and --out");
  if (labCommit === undefined)
    fail("a slice needs --lab-commit: the commit of the lab that proved it");
  const facts =
    values["start-facts"] !== undefined
      ? parseStartFacts(readFileSync(values["start-facts"], "utf8"))
      : values.started !== undefined &&
          values.cores !== undefined &&
          values["load-average"] !== undefined
        ? {
            date: values.started,
            cores: Number(values.cores),
            loadAverage: Number(values["load-average"]),
          }
        : fail("a slice needs --start-facts FILE, or --started, --cores and --load-average");
  const records = await writeLedgerSlice({
    suiteDir: path.resolve(suiteDir),
    datasetFile: path.resolve(dataset),
    runsDir: path.resolve(values["runs-dir"]),
    goldRun: values.gold,
    noopRun: values.noop,
    goldPredictionsRun: values["gold-predictions"],
    families: values.family.map(parseFamily),
    slice: sliceOf(),
    provenance: { labCommit, ...facts },
    out: path.resolve(out),
  });
  const count = (status: string): number =>
    records.filter((record) => record.status === status).length;
  process.stdout.write(
    `ledger: ${out}: ${String(records.length)} lines: ${String(count("kept"))} kept, ${String(count("dropped"))} dropped, ${String(count("unproven"))} unproven\n`,
  );
}

/** Copies the proven lines of the same instances from another dataset's ledger. */
async function carryLines(): Promise<void> {
  const from = values["carry-from"] ?? fail("--carry-dataset needs --carry-from");
  const fromDataset = values["carry-dataset"] ?? fail("--carry-from needs --carry-dataset");
  const dataset = values.dataset ?? fail("--carry-from needs --dataset (this ledger's dataset)");
  const out = values.out ?? fail("--carry-from needs --out (this dataset's ledger)");
  const summary = await carryLedgerLines({
    datasetFile: path.resolve(dataset),
    out: path.resolve(out),
    fromDatasetFile: path.resolve(fromDataset),
    fromLedger: path.resolve(from),
    fromName: path.basename(from, ".jsonl"),
  });
  process.stdout.write(
    `ledger: ${out}: ${String(summary.carried)} line(s) carried from ${from} (the same instance in both datasets)${summary.differing.length === 0 ? "" : `; ${String(summary.differing.length)} shared instance(s) differ and are not: ${summary.differing.join(", ")}`}\n`,
  );
}

async function writeReadme(readme: string): Promise<void> {
  const dir = values["ledger-dir"];
  const datasets = [
    { title: "Lite", records: await readLedgerFile(path.join(dir, "lite.jsonl")) },
    { title: "Verified", records: await readLedgerFile(path.join(dir, "verified.jsonl")) },
  ].filter((entry) => entry.records.length > 0);
  // A mistyped path would otherwise leave a stray file holding only the section.
  if (!existsSync(readme))
    fail(`no README at ${readme}: give the tier's, evals/swebench/README.md`);
  const text = readFileSync(readme, "utf8");
  writeFileSync(readme, replaceLedgerSection(text, renderLedgerSection(datasets)));
  process.stdout.write(`ledger: wrote the ledger section of ${readme} from ${dir}\n`);
}

try {
  const carry = values["carry-from"] !== undefined || values["carry-dataset"] !== undefined;
  if (values["suite-dir"] === undefined && values.readme === undefined && !carry)
    fail(
      "give a slice to write (--suite-dir ...), lines to carry (--carry-from ...) or a README to regenerate (--readme)",
    );
  if (values["suite-dir"] !== undefined) await writeSlice();
  if (carry) await carryLines();
  if (values.readme !== undefined) await writeReadme(values.readme);
} catch (error) {
  if (!isLabError(error)) throw error;
  process.stderr.write(
    `ledger: ${error.message}\n${error.hint === undefined ? "" : `  ${error.hint}\n`}`,
  );
  process.exitCode = 1;
}
