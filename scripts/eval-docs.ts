/**
 * Writes each tier's results table into its README, from real runs and the same code as
 * `lab report`.
 *
 *   npm run eval-docs -- [--tools gold,noop] [--tiers starter] [--trials 1] [--concurrency 2]
 *                        [--runs-dir DIR] [--evals-dir DIR]
 *
 * A tier is a folder evals/<tier>/ whose README.md has the markers
 * <!-- results:start --> and <!-- results:end -->. For each, the tools are run over the tier
 * (in a fresh temporary runs folder unless --runs-dir names one, which is then resumed) and
 * the report's summary, rates and comparisons replace what is between the markers.
 * Latencies are this machine's, so rerunning changes them a little.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  commandToolSpec,
  loadConfigFile,
  resolveRunConfig,
  resolveSettings,
} from "../src/config/index.js";
import { buildReport, loadReport, renderReportMarkdown } from "../src/report/index.js";
import { runSuite } from "../src/runner/index.js";
import { packageRoot, suiteLayout } from "../src/suite/index.js";
import { resolveTool } from "../src/tools/index.js";
import { createReporter } from "../src/ui/index.js";

const START = "<!-- results:start -->";
const END = "<!-- results:end -->";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "gold,noop" },
    tiers: { type: "string" },
    trials: { type: "string", default: "1" },
    concurrency: { type: "string", default: "2" },
    "runs-dir": { type: "string" },
    "evals-dir": { type: "string", default: path.join(packageRoot, "evals") },
  },
});
const toolNames = values.tools
  .split(",")
  .map((name) => name.trim())
  .filter((name) => name !== "");
const evalsDir = path.resolve(values["evals-dir"]);
const wanted = values.tiers?.split(",").map((tier) => tier.trim());
const tiers = readdirSync(evalsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && (wanted === undefined || wanted.includes(entry.name)))
  .map((entry) => entry.name)
  .filter((tier) => {
    const layout = suiteLayout(path.join(evalsDir, tier));
    if (!existsSync(layout.readmeFile) || !readFileSync(layout.readmeFile, "utf8").includes(START))
      return false;
    // Generated tiers (swebench) are not in the checkout until `lab gen` makes them here.
    if (existsSync(layout.tasksDir)) return true;
    process.stderr.write(
      `eval-docs: skipping ${tier}: it has no tasks here (make them with \`lab gen --suite ${tier}\`).\n`,
    );
    return false;
  })
  .sort();
if (tiers.length === 0) {
  process.stderr.write(`eval-docs: no README under ${evalsDir}/*/ has the ${START} marker.\n`);
  process.exit(1);
}

/** The text between the markers: what the tools were, then the report's main sections. */
async function renderResults(
  tier: string,
  runsDir: string,
  runIds: readonly string[],
): Promise<string> {
  const loaded = await loadReport(runsDir, tier, runIds);
  const report = buildReport(tier, loaded.runs, loaded.tasks);
  const trials = Math.max(...report.tools.map((tool) => tool.summary.trials_per_task));
  const tools = report.tools.map((tool) => `\`${tool.label}\``).join(", ");
  const intro = `Written by \`npm run eval-docs\` (tools ${tools}, ${String(trials)} trial${trials === 1 ? "" : "s"} per task), from the same code as \`lab report --suite ${tier}\`.`;
  const body = renderReportMarkdown(report, ["summary", "rates", "repeated", "comparisons"], {
    heading: false,
  });
  return `${START}\n\n${intro}\n\n${body.trimEnd()}\n\n${END}`;
}

const cwd = process.cwd();
const controller = new AbortController();
process.on("SIGINT", () => {
  controller.abort();
});
const file = loadConfigFile({ explicit: process.env.LAB_CONFIG, cwd }).config;
const configured = Object.fromEntries(
  Object.entries(file.tools).map(([name, entry]) => [
    name,
    commandToolSpec(name, entry, process.env),
  ]),
);
for (const tier of tiers) {
  const runsDir = values["runs-dir"] ?? mkdtempSync(path.join(os.tmpdir(), "lab-eval-docs-"));
  const settings = resolveSettings({ evalsDir, runsDir }, process.env, cwd);
  const runIds: string[] = [];
  try {
    for (const name of toolNames) {
      const tool = resolveTool(name, { configured });
      const config = resolveRunConfig({
        flags: { suite: tier, trials: values.trials, concurrency: values.concurrency },
        env: process.env,
        file,
        settings,
        source: { kind: "tool", tool },
        toolTimeoutMs: configured[name]?.timeoutMs,
        labVersion: "eval-docs",
        signal: controller.signal,
      });
      const result = await runSuite(
        config,
        createReporter("plain", process.stderr, process.env),
        controller.signal,
      );
      if (result.status !== "completed")
        throw new Error(`the ${name} run of ${tier} ended ${result.status}`);
      runIds.push(result.runId);
    }
    const readme = suiteLayout(path.join(evalsDir, tier)).readmeFile;
    const text = readFileSync(readme, "utf8");
    const start = text.indexOf(START);
    const end = text.indexOf(END, start);
    if (end === -1) throw new Error(`${readme} has ${START} but no ${END} after it`);
    const updated = `${text.slice(0, start)}${await renderResults(tier, runsDir, runIds)}${text.slice(end + END.length)}`;
    writeFileSync(readme, updated);
    process.stdout.write(
      `eval-docs: wrote the results of ${toolNames.join(", ")} into ${readme}\n`,
    );
  } finally {
    if (values["runs-dir"] === undefined) rmSync(runsDir, { recursive: true, force: true });
  }
}
