import { resolveWorkerConfig } from "../config/index.js";
import { UsageError } from "../core/index.js";
import { parseQueueAddress, runWorker } from "../queue/index.js";
import { defineCommand, flagOption, stringOption } from "./command.js";
import { configFrom, configOption, LAB_VERSION, settingsFrom } from "./shared.js";
import { toolFromRequest } from "./source.js";

/** `lab worker --queue URL`. */
export const workerCommand = defineCommand({
  name: "worker",
  summary:
    "Serve a job queue: take trials (`lab run --queue`) and proofs (`lab gen --queue`), run and grade each on this machine exactly as a local run would, in this machine's sandbox, and send the trial's record and files back. Runs until stopped (Ctrl-C or SIGTERM hands running jobs back to the queue; it stops within 10 s even when Redis does not answer).",
  usage: "worker --queue URL [options]",
  options: {
    queue: {
      type: "string",
      value: "URL",
      description:
        "The queue's Redis: redis://[user:pass@]HOST:PORT[/db] or rediss:// (TLS); a password is required outside loopback",
      env: "LAB_QUEUE",
    },
    concurrency: {
      type: "string",
      value: "N",
      description: "Jobs at once on this machine (default 1)",
      env: "LAB_CONCURRENCY",
    },
    sandbox: {
      type: "string",
      value: "NAME",
      description:
        "Where tools run and changes are graded: bwrap (default) or none (no isolation), as for `lab run`",
      env: "LAB_SANDBOX",
    },
    name: {
      type: "string",
      value: "NAME",
      description: "This worker's name in logs and results (default: HOST-PID)",
    },
    "lock-duration": {
      type: "string",
      value: "DUR",
      description:
        "How long a job stays with a worker that stopped answering before another takes it over (default 30s)",
    },
    "idle-exit": {
      type: "string",
      value: "DUR",
      description:
        "Stop after this long with nothing to do, e.g. 5m (for batch schedulers; default: never)",
    },
    mirrors: {
      type: "string",
      value: "DIR",
      description:
        "For swebench proofs: clone base repositories from DIR/<owner>/<name> instead of GitHub",
      env: "LAB_MIRRORS",
    },
    insecure: {
      type: "boolean",
      description: "Allow a Redis on another machine without a password (a network you trust)",
    },
    "evals-dir": {
      type: "string",
      value: "DIR",
      description:
        "Where this machine's suites live (default: ./evals, then lab's built-in suites)",
      env: "LAB_EVALS_DIR",
    },
    ...configOption,
  },
  details: `The worker needs lab (the coordinator's version), the suites the runs name (the same content:
a copy of the coordinator's evals folder), and the tools they run, installed and with their
credentials (lab.config.json, \`lab tools install\`, API keys in the environment). It checks each
run's suite, tool and lab version by content and version, and refuses a mismatch with a message
that the coordinator shows too. Caches (LAB_CACHE_DIR) and scratch (LAB_SCRATCH_DIR) are this
machine's own.

Examples:
  lab worker --queue redis://:PASSWORD@queue-host:6379 --concurrency 4
  LAB_QUEUE=redis://127.0.0.1:6379 lab worker --sandbox bwrap --idle-exit 10m`,
  async run(args, io) {
    const url = stringOption(args, "queue") ?? io.env.LAB_QUEUE;
    if (url === undefined || url === "")
      throw new UsageError(
        "lab worker needs --queue URL (or LAB_QUEUE).",
        "For a Redis on this machine: --queue redis://127.0.0.1:6379.",
      );
    const address = parseQueueAddress(url, { insecure: flagOption(args, "insecure") });
    const settings = settingsFrom(args, io);
    const file = configFrom(args, io);
    const worker = resolveWorkerConfig({
      flags: {
        concurrency: stringOption(args, "concurrency"),
        sandbox: stringOption(args, "sandbox"),
        name: stringOption(args, "name"),
        lockDuration: stringOption(args, "lock-duration"),
        idleExit: stringOption(args, "idle-exit"),
        mirrors: stringOption(args, "mirrors"),
      },
      env: io.env,
      file,
      settings,
      signal: io.signal,
    });
    const summary = await runWorker(
      {
        address,
        ...worker,
        hostHome: settings.home,
        cwd: io.cwd,
        evalsDir: settings.evalsDir,
        scratchRoot: settings.scratchRoot,
        labVersion: LAB_VERSION,
        resolveTool: (request) => toolFromRequest(request, file, settings, io.env),
        onLog: (level, message) => {
          io.stderr.write(`lab worker: ${level === "warn" ? "warning: " : ""}${message}\n`);
        },
      },
      io.signal,
    );
    io.stderr.write(
      `lab worker: ${worker.name} done: ${String(summary.trials)} trial(s), ${String(summary.proofs)} proof(s)\n`,
    );
    return io.signal.aborted ? 130 : 0;
  },
});
