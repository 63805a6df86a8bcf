import path from "node:path";
import { commandToolSpec, parsePositiveInt, resolveRunConfig } from "../config/index.js";
import { UsageError, type ChangeSource } from "../core/index.js";
import { predictionChanges, readPredictions } from "../datasets/index.js";
import { createQueueExecutor, parseQueueAddress, type ToolRequest } from "../queue/index.js";
import { runSuite } from "../runner/index.js";
import { createReporter } from "../ui/index.js";
import { agentOptions } from "./agent-options.js";
import {
  defineCommand,
  flagOption,
  listOption,
  stringOption,
  type CliIO,
  type ParsedArgs,
} from "./command.js";
import { queueOptions } from "./queue-options.js";
import { toolFromRequest, toolRequestFrom } from "./source.js";
import {
  commonOptions,
  configFrom,
  configOption,
  displayFrom,
  displayOption,
  LAB_VERSION,
  settingsFrom,
  suiteFrom,
} from "./shared.js";

/** `lab run TOOL --suite S`. */
export const runCommand = defineCommand({
  name: "run",
  summary:
    "Run a tool over a suite: each trial gets a fresh work tree, the tool's change is graded by hidden tests in the same sandbox (--sandbox), and every trial's record is kept under runs/<run-id>/. Rerunning the same command resumes.",
  usage: "run TOOL --suite S [options]",
  positionals: { min: 1, max: 1 },
  options: {
    suite: { type: "string", value: "S", description: "The suite to run (e.g. starter)" },
    tasks: {
      type: "string",
      value: "IDS",
      multiple: true,
      description: "Only these task ids (comma-separated or repeated)",
    },
    "valid-only": {
      type: "boolean",
      description:
        "Only the tasks reviewed as valid: every reviewer's latest review says clear and adequate (`lab review`)",
    },
    "strong-only": {
      type: "boolean",
      description:
        "Only the tasks whose hidden tests passed the oracle audit: every wrong variant of the gold patch was caught (`lab audit`)",
    },
    trials: {
      type: "string",
      value: "K",
      description: "Trials per task (default 1, at most 1000)",
      env: "LAB_TRIALS",
    },
    concurrency: {
      type: "string",
      value: "N",
      description: "Trials at once (default 1)",
      env: "LAB_CONCURRENCY",
    },
    timeout: {
      type: "string",
      value: "DUR",
      description: "The tool's time limit per trial, e.g. 30m (default 30m)",
      env: "LAB_TIMEOUT",
    },
    "test-timeout": {
      type: "string",
      value: "DUR",
      description: "The hidden tests' time limit per grade (default 30m)",
      env: "LAB_TEST_TIMEOUT",
    },
    "run-id": {
      type: "string",
      value: "ID",
      description: "Name of the run folder (default: SUITE-TOOL); an existing run is resumed",
    },
    label: {
      type: "string",
      value: "NAME",
      description:
        "The name reports give this run's tool (default: the tool's name; two command lines are two tools either way)",
    },
    predictions: {
      type: "string",
      value: "FILE",
      description:
        "For the `predictions` tool: a SWE-bench predictions file (.json or .jsonl of instance_id, model_name_or_path, model_patch)",
    },
    command: {
      type: "string",
      value: "CMD",
      description:
        "For the `command` tool: the command line, with {prompt_file}, {workdir} and {prompt}",
    },
    "command-env": {
      type: "string",
      value: "NAMES",
      multiple: true,
      description: "For the `command` tool: environment variables passed through by name",
    },
    path: {
      type: "string",
      value: "DIR",
      multiple: true,
      description:
        'For the `command` tool: a host folder (or file) its command reads, shown read-only in the sandbox (repeatable; as "paths" in lab.config.json)',
    },
    sandbox: {
      type: "string",
      value: "NAME",
      description:
        "Where the tool runs, and its change is graded: bwrap (bubblewrap: sees only its work tree; default), docker (the same, one container per command; builds lab's image once) or none (on the host, no isolation)",
      env: "LAB_SANDBOX",
    },
    "no-network": {
      type: "boolean",
      description: 'Run the tool without network (its tool entry may say "network": false)',
    },
    memory: {
      type: "string",
      value: "SIZE",
      description: "Memory limit of each trial's tool, e.g. 4g (default: none)",
      env: "LAB_MEMORY",
    },
    disk: {
      type: "string",
      value: "SIZE",
      description: "Disk each trial's tool may write, e.g. 10g (default 10g)",
      env: "LAB_DISK",
    },
    keep: { type: "boolean", description: "Keep work trees and grading checkouts (for debugging)" },
    "max-cost-total": {
      type: "string",
      value: "USD",
      description:
        "The run's spending cap: no trial starts once the cost its finished trials reported reaches it (a trial that reports none counts $0); the run then ends stopped, exit 3",
    },
    ...queueOptions,
    ...agentOptions,
    ...displayOption,
    ...configOption,
    ...commonOptions,
  },
  details: `Tools: gold (the reference fix), noop (no change), predictions (--predictions FILE), command (--command '...'), the agent CLIs lab installs (\`lab tools list\`: claude-code, codex, gemini, opencode, qwen-code, ...), and any tool declared in lab.config.json.

Examples:
  lab run gold --suite starter
  lab run noop --suite starter --trials 3
  lab run command --suite starter --command 'my-agent --prompt-file {prompt_file}'
  lab run command --suite starter --command '/opt/agents/fix.sh {prompt_file}' --path /opt/agents
  lab run predictions --suite swebench --predictions preds.jsonl
  lab run claude-code --suite starter --model claude-sonnet-4-5 --max-cost 2
  lab run mytool --suite starter --sandbox docker (in Docker containers)
  lab run mytool --suite starter --sandbox none   (no isolation: the run says so)
  lab run gold --suite starter --queue redis://:PASSWORD@queue-host:6379   (on workers: lab worker)

With --queue, trials go to a Redis job queue and each runs on a worker (\`lab worker --queue URL\`)
in that worker's sandbox; this process collects every result into the same run folder.
--concurrency, --sandbox and --keep are then the workers' business. Ctrl-C or SIGTERM removes
the run's waiting jobs and stops within 5 s even when Redis does not answer; rerunning collects the rest.

--max-cost-total USD caps the whole run (--max-cost caps each trial of an agent CLI): trials
under way finish, so the run may end a little over it. A run stopped by it says what it spent
and how many trials it did not start, and exits 3; rerunning the same command with a higher cap
continues it, with the same cap says the cap is reached. Not with --queue yet.

Exit codes: 0 the run completed (whatever its trials resolved), 2 a usage error, 3 stopped by
--max-cost-total, 130 interrupted, 1 any other error.`,
  async run(args, io) {
    const toolName = args.positionals[0] ?? "";
    const settings = settingsFrom(args, io);
    const file = configFrom(args, io);
    const request = toolRequestFrom(toolName, args, io.cwd);
    const predictionsFile = stringOption(args, "predictions");
    if (predictionsFile !== undefined && toolName !== "predictions")
      throw new UsageError(
        `--predictions only goes with the \`predictions\` tool, not "${toolName}".`,
      );
    const suiteName = suiteFrom(args, "run");
    const executor = queueExecutorFrom(args, io, request);
    if (executor !== undefined && stringOption(args, "max-cost-total") !== undefined)
      throw new UsageError(
        "--max-cost-total does not go with --queue yet: the workers start trials, not this process.",
        "Run without --queue, or cap each trial with --max-cost.",
      );
    let source: ChangeSource;
    if (toolName === "predictions") {
      if (predictionsFile === undefined)
        throw new UsageError("The predictions tool needs --predictions FILE.");
      const predictions = readPredictions(path.resolve(io.cwd, predictionsFile));
      source = predictionChanges(predictions, predictionsFile);
    } else {
      source = { kind: "tool", tool: toolFromRequest(request, file, settings, io.env) };
    }
    const configured = file.tools[toolName];
    const config = resolveRunConfig({
      flags: {
        suite: suiteName,
        tasks: listOption(args, "tasks"),
        validOnly: flagOption(args, "valid-only"),
        strongOnly: flagOption(args, "strong-only"),
        trials: stringOption(args, "trials"),
        concurrency: stringOption(args, "concurrency"),
        timeout: stringOption(args, "timeout"),
        testTimeout: stringOption(args, "test-timeout"),
        runId: stringOption(args, "run-id"),
        label: stringOption(args, "label"),
        keep: flagOption(args, "keep"),
        sandbox: stringOption(args, "sandbox"),
        noNetwork: flagOption(args, "no-network"),
        memory: stringOption(args, "memory"),
        disk: stringOption(args, "disk"),
        maxCostTotal: stringOption(args, "max-cost-total"),
      },
      env: io.env,
      file,
      settings,
      source,
      toolTimeoutMs:
        configured === undefined
          ? undefined
          : commandToolSpec(toolName, configured, io.env).timeoutMs,
      labVersion: LAB_VERSION,
      signal: io.signal,
    });
    const reporter = createReporter(displayFrom(args), io.stderr, io.env);
    const result = await runSuite(config, reporter, io.signal, { executor }).finally(() =>
      reporter.close?.(),
    );
    return result.status === "cancelled" ? 130 : result.status === "stopped" ? 3 : 0;
  },
});

/** The queue executor `--queue` (or LAB_QUEUE) asks for; undefined for a local run. */
function queueExecutorFrom(args: ParsedArgs, io: CliIO, request: ToolRequest) {
  const url = stringOption(args, "queue") ?? io.env.LAB_QUEUE;
  const attempts = stringOption(args, "attempts");
  if (url === undefined || url === "") {
    if (attempts !== undefined) throw new UsageError("--attempts only goes with --queue.");
    return undefined;
  }
  return createQueueExecutor({
    address: parseQueueAddress(url, { insecure: flagOption(args, "insecure") }),
    toolRequest: request,
    attempts: attempts === undefined ? 3 : parsePositiveInt(attempts, "--attempts"),
  });
}
