import { auditSuite } from "../audit/index.js";
import { environmentOptions, parseDuration, parsePositiveInt } from "../config/index.js";
import type { TaskAudit } from "../core/index.js";
import { loadSuite } from "../suite/index.js";
import { defineCommand, flagOption, listOption, stringOption } from "./command.js";
import { commonOptions, LAB_VERSION, settingsFrom, suiteFrom } from "./shared.js";

/** One line per audited task for the terminal. */
function describeAudit(audit: TaskAudit): string {
  const { counts } = audit;
  const score = audit.score === null ? "–" : `${(audit.score * 100).toFixed(0)}%`;
  return `${audit.outcome}, mutation score ${score} (${String(counts.killed)} killed, ${String(counts.survived)} survived, ${String(counts.equivalent)} equivalent, ${String(counts.unviable)} unviable, ${String(counts.error)} errors; ${(audit.durationMs / 1000).toFixed(1)} s)`;
}

/** `lab audit --suite S`. */
export const auditCommand = defineCommand({
  name: "audit",
  summary:
    "Audit a suite's hidden tests: grade wrong variants of each task's gold patch (each hunk left out in turn, mutants of the Python, JavaScript or TypeScript lines it adds) and flag tasks whose tests let one through as weak_tests. Results go to <suite>/audit.json.",
  usage: "audit --suite S [--tasks ID ...] [--mutants N] [--concurrency N] [--force] [--json]",
  options: {
    suite: { type: "string", value: "S", description: "The suite to audit" },
    tasks: {
      type: "string",
      value: "IDS",
      multiple: true,
      description: "Only these task ids (default: every task)",
    },
    mutants: {
      type: "string",
      value: "N",
      description: "Mutants graded per task at most, hunks aside (default 10)",
    },
    concurrency: {
      type: "string",
      value: "N",
      description: "Variants graded at once (default 1)",
    },
    "test-timeout": {
      type: "string",
      value: "DUR",
      description: "Limit of one test run (default 30m)",
    },
    force: {
      type: "boolean",
      description: "Audit again tasks whose audit in audit.json is current",
    },
    json: { type: "boolean", description: "Print every task's audit as JSON" },
    ...commonOptions,
  },
  details: `For each task, the variants are graded exactly as a tool's change would be. A variant
that resolves the task survived: the hidden tests let a wrong change through. Mutants are made
with the task's own Python (its era's ast and tokenize) in the grade's sandbox: a swapped
comparison, a negated condition, a dropped statement, a changed constant, a different return
value, on the lines the gold patch adds. A variant whose syntax tree equals the gold's
(docstrings aside) is equivalent and not graded; any other survivor is reported for a person to
judge (\`lab review --suite S --task ID\` shows them), since some are equivalent in ways no tool
can prove. A task is strong when every graded variant was killed, weak_tests when one survived,
no_variants when there was nothing to vary. \`lab run --strong-only\` runs only strong tasks.
Rerunning skips tasks whose audit is current.

Examples:
  lab audit --suite starter
  lab audit --suite swebench --tasks psf__requests-2317 --mutants 20
  lab run gold --suite starter --strong-only`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const suite = await loadSuite(suiteFrom(args, "audit"), {
      evalsDir: settings.evalsDir,
      cwd: io.cwd,
    });
    const mutantsText = stringOption(args, "mutants");
    const concurrencyText = stringOption(args, "concurrency");
    const { audits, file } = await auditSuite(suite, {
      taskIds: listOption(args, "tasks"),
      environment: environmentOptions(settings, io.signal),
      mutants: mutantsText === undefined ? 10 : parsePositiveInt(mutantsText, "--mutants"),
      concurrency:
        concurrencyText === undefined ? 1 : parsePositiveInt(concurrencyText, "--concurrency"),
      testTimeoutMs: parseDuration(stringOption(args, "test-timeout") ?? "30m", "--test-timeout"),
      force: flagOption(args, "force"),
      labVersion: LAB_VERSION,
      signal: io.signal,
      onTask: ({ taskId, index, total, audit, reused }) => {
        const head = `[${String(index)}/${String(total)}] ${taskId}`;
        if (audit === undefined) io.stderr.write(`${head}: auditing\n`);
        else
          io.stderr.write(
            `${head}: ${reused === true ? "current, " : ""}${describeAudit(audit)}\n`,
          );
      },
      onVariant: (taskId, variant) => {
        if (variant.result === "survived")
          io.stderr.write(`  ${taskId}: SURVIVED ${variant.id}: ${variant.description}\n`);
      },
    });
    if (flagOption(args, "json")) {
      io.stdout.write(`${JSON.stringify(audits, null, 2)}\n`);
      return 0;
    }
    const weak = audits.filter((audit) => audit.outcome === "weak_tests");
    const strong = audits.filter((audit) => audit.outcome === "strong");
    io.stdout.write(
      `${String(strong.length)} strong, ${String(weak.length)} weak_tests, ${String(audits.length - strong.length - weak.length)} other, of ${String(audits.length)} task(s) of ${suite.name}; audit in ${file}\n`,
    );
    for (const audit of weak)
      io.stdout.write(
        `  ${audit.taskId}: ${audit.variants
          .filter((variant) => variant.result === "survived")
          .map((variant) => variant.description)
          .join("; ")}\n`,
      );
    return 0;
  },
});
