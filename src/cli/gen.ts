import path from "node:path";
import { environmentOptions, parseDuration, parsePositiveInt } from "../config/index.js";
import { LabError, UsageError } from "../core/index.js";
import {
  DATASET_NAMES,
  knownDrops,
  referenceProofMs,
  type DatasetName,
} from "../datasets/index.js";
import {
  generateSwebench,
  multilingualScopeOf,
  multilingualSpecOf,
  proveSuite,
  writeSwebenchSuiteFiles,
} from "../gen/index.js";
import { openQueueProver, parseQueueAddress, type QueueProver } from "../queue/index.js";
import { genRepo, rejectRepoOptions, repoGenOptions } from "./gen-repo.js";
import { queueOptions } from "./queue-options.js";
import { loadSuite, readSuiteInfo, suiteLayout } from "../suite/index.js";
import { createReporter } from "../ui/index.js";
import {
  defineCommand,
  flagOption,
  listOption,
  stringOption,
  type CliIO,
  type ParsedArgs,
} from "./command.js";
import {
  commonOptions,
  displayFrom,
  displayOption,
  LAB_VERSION,
  settingsFrom,
  suiteFrom,
} from "./shared.js";

/** `lab gen --suite S`. */
export const genCommand = defineCommand({
  name: "gen",
  summary:
    "Generate or prove a suite. `--suite swebench` rebuilds SWE-bench Lite's instances as tasks and keeps only those its gold patch proves (`--suite swebench-verified`: Verified; `--suite swebench-multilingual`: SWE-bench Multilingual's JS/TS instances, graded by upstream's own commands; any suite name with --dataset or --dataset-name); `--from-repo` mines a suite from a repository's merged changes; any other suite has its tasks proven (gold resolves, no change fails). Proofs are written to <suite>/proof.json; rerunning resumes.",
  usage: "gen --suite S [options]",
  options: {
    suite: {
      type: "string",
      value: "S",
      description: "The suite: swebench, or an existing suite to prove (e.g. starter)",
    },
    tasks: {
      type: "string",
      value: "IDS",
      multiple: true,
      description: "Only these task ids (swebench: these instances, as --instances)",
    },
    dataset: {
      type: "string",
      value: "FILE",
      description:
        "swebench: a local .json, .jsonl or .parquet file of rows (default: Hugging Face)",
    },
    "dataset-name": {
      type: "string",
      value: "NAME",
      description:
        "swebench: lite, verified, full or multilingual (default: lite; verified for --suite swebench-verified, multilingual for swebench-multilingual; a resumed suite keeps its own)",
    },
    split: {
      type: "string",
      value: "SPLIT",
      description: "swebench: the dataset split (default test)",
    },
    instances: {
      type: "string",
      value: "IDS",
      multiple: true,
      description: "swebench: exactly these instance ids",
    },
    limit: {
      type: "string",
      value: "N",
      description:
        "swebench: prove N in-scope instances, spread over the repositories (default 12, one per repository); --from-repo: walk the N newest merged changes",
    },
    all: {
      type: "boolean",
      description:
        "swebench: every instance, also of repositories lab has no environments for; the proof decides",
    },
    "no-validate": {
      type: "boolean",
      description:
        "swebench: render tasks without proving them (for inspecting output); --from-repo: mine and profile only",
    },
    "proof-runs": {
      type: "string",
      value: "N",
      description:
        "Proof runs per instance; one whose outcome flips is dropped (default 2; --from-repo: 3)",
    },
    hints: { type: "boolean", description: "swebench: add the dataset's hints to the prompt" },
    specs: {
      type: "string",
      value: "FILE",
      description:
        "swebench-multilingual: upstream's JS/TS specs in the format of lab's data/swebench/multilingual/specs-javascript.json (default: that file)",
    },
    "skip-known-drops": {
      type: "boolean",
      description:
        "swebench: leave out the instances lab's ledger drops whatever the machine (upstream shares the trouble), naming them",
    },
    mirrors: {
      type: "string",
      value: "DIR",
      description: "swebench: clone from DIR/<owner>/<name> instead of GitHub",
      env: "LAB_MIRRORS",
    },
    concurrency: {
      type: "string",
      value: "N",
      description: "Instances proven at once (default 1)",
    },
    "test-timeout": {
      type: "string",
      value: "DUR",
      description: "Limit of one test run (default 30m)",
    },
    ...queueOptions,
    ...repoGenOptions,
    ...displayOption,
    ...commonOptions,
  },
  details: `Examples:
  lab gen --suite starter
  lab gen --suite swebench                      # a quick sample: one instance per repository
  lab gen --suite swebench --limit 300 --mirrors ~/mirrors     # all of Lite, from local mirrors
  lab gen --suite swebench-verified --limit 500                # all of Verified, from GitHub
  lab gen --suite mine --dataset ./my-instances.jsonl           # any SWE-bench-format file
  lab gen --suite swebench --instances psf__requests-2317,pallets__flask-4045
  lab gen --suite swebench-multilingual --dataset multilingual.parquet --mirrors ~/mirrors   # its JS/TS instances, by upstream's commands
  lab gen --suite flask --from-repo ~/src/flask --limit 20
  lab gen --suite ours --from-repo https://github.com/org/repo.git --since 2024-01-01 --sample 30 --mix small=0.5,medium=0.3,large=0.2
  lab gen --suite swebench --limit 53 --queue redis://:PASSWORD@queue-host:6379

With --queue, proofs (and the environments they build) run on the queue's workers (\`lab worker\`)
and come back into this suite folder. Proving an existing suite needs the suite on every worker;
swebench ships each task it renders to the workers, which fetch its base repository themselves
(lab worker --mirrors DIR, or GitHub). --from-repo does not take --queue.`,
  async run(args, io) {
    const suite = suiteFrom(args, "gen");
    if (stringOption(args, "from-repo") !== undefined) {
      if (queueUrlFrom(args, io) !== undefined)
        throw new UsageError(
          "--from-repo does not take --queue: mining and validating a repository's changes runs on this machine.",
          "Drop --queue (and LAB_QUEUE), or prove an existing suite on the queue: lab gen --suite S --queue URL.",
        );
      return genRepo(suite, args, io);
    }
    rejectRepoOptions(args);
    const source = await swebenchSourceOf(suite, args, io);
    return source !== null
      ? genSwebench(suite, source, args, io)
      : proveExistingSuite(suite, args, io);
  },
});

/** The suite names documented for SWE-bench's datasets, and the dataset each takes by default. */
const SWEBENCH_SUITES: Readonly<Record<string, DatasetName>> = {
  swebench: "lite",
  "swebench-verified": "verified",
  "swebench-multilingual": "multilingual",
};

/**
 * Whether `lab gen --suite S` builds S from a SWE-bench dataset, and from which: a dataset
 * option given, a documented suite name (swebench: Lite, swebench-verified: Verified), or an
 * existing suite that a SWE-bench gen made (its suite.json says from what, so a rerun resumes
 * from the same dataset). Null: S is an existing suite to prove.
 */
async function swebenchSourceOf(
  suite: string,
  args: ParsedArgs,
  io: CliIO,
): Promise<{ file: string | undefined; name: DatasetName; split: string } | null> {
  const fileArg = stringOption(args, "dataset");
  const nameArg = stringOption(args, "dataset-name");
  if (nameArg !== undefined && !(nameArg in DATASET_NAMES))
    throw new UsageError(
      `--dataset-name expects lite, verified, full or multilingual; got "${nameArg}".`,
    );
  const settings = settingsFrom(args, io);
  const suiteDir = path.join(settings.evalsDir ?? path.join(io.cwd, "evals"), suite);
  const recorded = await readSuiteInfo(suiteLayout(suiteDir).suiteFile);
  const asked =
    fileArg !== undefined ||
    nameArg !== undefined ||
    listOption(args, "instances") !== undefined ||
    flagOption(args, "all");
  if (!asked && recorded?.source === undefined && !(suite in SWEBENCH_SUITES)) return null;
  const earlier = recorded?.source;
  const earlierName =
    earlier !== undefined && earlier.dataset in DATASET_NAMES ? earlier.dataset : undefined;
  return {
    file:
      fileArg !== undefined
        ? path.resolve(io.cwd, fileArg)
        : nameArg === undefined && earlier !== undefined && earlierName === undefined
          ? earlier.dataset
          : undefined,
    name: (nameArg ?? earlierName ?? SWEBENCH_SUITES[suite] ?? "lite") as DatasetName,
    split: stringOption(args, "split") ?? earlier?.split ?? "test",
  };
}

async function genSwebench(
  suite: string,
  source: { file: string | undefined; name: DatasetName; split: string },
  args: ParsedArgs,
  io: CliIO,
): Promise<number> {
  const settings = settingsFrom(args, io);
  const evalsRoot = settings.evalsDir ?? path.join(io.cwd, "evals");
  const suiteDir = path.join(evalsRoot, suite);
  const layout = suiteLayout(suiteDir);
  const limitArg = stringOption(args, "limit");
  // A swebench suite's task ids are its instance ids: --tasks selects them as --instances does.
  const named = { instances: listOption(args, "instances"), tasks: listOption(args, "tasks") };
  if (named.instances !== undefined && named.tasks !== undefined)
    throw new UsageError("--instances and --tasks name the same thing here; give one of them.");
  const instances = named.instances ?? named.tasks;
  if (instances !== undefined && (limitArg !== undefined || flagOption(args, "all")))
    throw new UsageError(
      `--${named.instances === undefined ? "tasks" : "instances"} selects exactly; it does not go with --limit or --all.`,
    );
  const reporter = createReporter(displayFrom(args), io.stderr, io.env);
  const mirrors = stringOption(args, "mirrors") ?? io.env.LAB_MIRRORS;
  const testTimeoutMs = parseDuration(
    stringOption(args, "test-timeout") ?? "30m",
    "--test-timeout",
  );
  const queue = await openProverFrom(args, io, {
    suite: { name: suite, dir: suiteDir },
    testTimeoutMs,
    onLog: (level, message) => {
      reporter.emit({ type: "log", level, message });
    },
  });
  const concurrency = stringOption(args, "concurrency");
  const environment = environmentOptions(settings, io.signal);
  // SWE-bench Multilingual: its JS/TS rows, each graded by upstream's own commands.
  const specsArg = stringOption(args, "specs");
  if (specsArg !== undefined && source.name !== "multilingual")
    throw new UsageError(
      "--specs goes with SWE-bench Multilingual (--suite swebench-multilingual).",
    );
  const multilingual =
    source.name === "multilingual"
      ? {
          scope: multilingualScopeOf(
            specsArg === undefined ? undefined : path.resolve(io.cwd, specsArg),
          ),
          specOf: multilingualSpecOf(
            environment,
            specsArg === undefined ? undefined : path.resolve(io.cwd, specsArg),
          ),
        }
      : undefined;
  const result = await generateSwebench(
    {
      suiteDir,
      dataset: {
        file: source.file,
        name: source.name,
        split: source.split,
        endpoint: io.env.LAB_HF_ENDPOINT ?? "https://datasets-server.huggingface.co",
        signal: io.signal,
      },
      selection: {
        instances,
        all: flagOption(args, "all"),
        limit: limitArg === undefined ? undefined : parsePositiveInt(limitArg, "--limit"),
        scope: multilingual?.scope,
      },
      repos: {
        cacheDir: layout.cacheDir,
        // Shared by every suite made from SWE-bench: a repository's history is fetched once.
        reposDir: path.join(settings.cacheDir, "swebench", "repos"),
        mirrorsDir: mirrors === undefined ? undefined : path.resolve(io.cwd, mirrors),
        signal: io.signal,
      },
      environment,
      specOf: multilingual?.specOf,
      validate: !flagOption(args, "no-validate"),
      proofRuns: parsePositiveInt(stringOption(args, "proof-runs") ?? "2", "--proof-runs"),
      hints: flagOption(args, "hints"),
      // On a queue, instances are fetched and rendered here and proven on the workers: many at once.
      concurrency:
        concurrency !== undefined
          ? parsePositiveInt(concurrency, "--concurrency")
          : queue === undefined
            ? 1
            : QUEUE_GEN_CONCURRENCY,
      testTimeoutMs,
      labVersion: LAB_VERSION,
      signal: io.signal,
      prover: queue?.prove,
      repoConcurrency: queue === undefined ? undefined : 2,
      ledger: {
        referenceMs: (instance) => referenceProofMs(instance),
        skip: flagOption(args, "skip-known-drops")
          ? new Map([...knownDrops()].map(([id, record]) => [id, record.reason ?? ""]))
          : undefined,
      },
    },
    reporter,
  ).finally(async () => {
    reporter.close?.();
    await queue?.close();
  });
  if (io.signal.aborted) return 130;
  await writeSwebenchSuiteFiles(suiteDir, result, {
    name: suite,
    dataset: source.file ?? source.name,
    split: source.split,
  });
  const tried = result.dropped.filter(
    (drop) =>
      drop.category !== "out_of_scope" &&
      drop.category !== "invalid_row" &&
      drop.category !== "no_mirror" &&
      drop.category !== "known_drop",
  );
  const notHere = result.dropped.filter((drop) => drop.category === "no_mirror").length;
  const known = result.dropped.filter((drop) => drop.category === "known_drop").length;
  io.stdout.write(
    `${suite}: ${String(result.kept.length)} kept, ${String(tried.length)} dropped${notHere > 0 ? `, ${String(notHere)} not proven on this machine (no mirror)` : ""}${known > 0 ? `, ${String(known)} left out as known drops` : ""} (reasons in ${layout.droppedFile})\n`,
  );
  if (result.unknown.length > 0) {
    throw new LabError("TASK_NOT_FOUND", `Not in the dataset: ${result.unknown.join(", ")}.`, {
      hint: "Check the ids, or --dataset-name.",
    });
  }
  return 0;
}

async function proveExistingSuite(name: string, args: ParsedArgs, io: CliIO): Promise<number> {
  const settings = settingsFrom(args, io);
  const reporter = createReporter(displayFrom(args), io.stderr, io.env);
  const suite = await loadSuite(name, { evalsDir: settings.evalsDir, cwd: io.cwd });
  const testTimeoutMs = parseDuration(
    stringOption(args, "test-timeout") ?? "30m",
    "--test-timeout",
  );
  const queue = await openProverFrom(args, io, {
    suite,
    testTimeoutMs,
    onLog: (level, message) => {
      reporter.emit({ type: "log", level, message });
    },
  });
  const concurrency = stringOption(args, "concurrency");
  const { proofs, proofFile } = await proveSuite(suite, {
    taskIds: listOption(args, "tasks"),
    environment: environmentOptions(settings, io.signal),
    logDir: path.join(settings.cacheDir, "proof-logs", suite.name),
    labVersion: LAB_VERSION,
    testTimeoutMs,
    signal: io.signal,
    prover: queue?.prove,
    concurrency:
      concurrency !== undefined
        ? parsePositiveInt(concurrency, "--concurrency")
        : queue === undefined
          ? 1
          : QUEUE_GEN_CONCURRENCY,
    reporter,
  }).finally(async () => {
    reporter.close?.();
    await queue?.close();
  });
  const failed = proofs.filter((proof) => !proof.valid);
  io.stdout.write(
    `${String(proofs.length - failed.length)}/${String(proofs.length)} task(s) of ${suite.name} proven; proof in ${proofFile}\n`,
  );
  if (failed.length > 0) {
    throw new LabError(
      "PROOF_FAILED",
      `${String(failed.length)} task(s) failed the proof: ${failed.map((proof) => proof.taskId).join(", ")}.`,
      {
        hint: "See each task's reason above and the grading logs under the cache's proof-logs folder.",
      },
    );
  }
  return 0;
}

/** Proofs in flight at once when they run on a queue (the workers' concurrency decides the rest). */
const QUEUE_GEN_CONCURRENCY = 256;

/** The queue URL of `--queue` or LAB_QUEUE, if any. */
function queueUrlFrom(args: ParsedArgs, io: CliIO): string | undefined {
  const url = stringOption(args, "queue") ?? io.env.LAB_QUEUE;
  return url === "" ? undefined : url;
}

/** A prover on the queue `--queue` names; undefined to prove here. */
async function openProverFrom(
  args: ParsedArgs,
  io: CliIO,
  options: {
    suite: { name: string; dir: string };
    testTimeoutMs: number;
    onLog: (level: "info" | "warn", message: string) => void;
  },
): Promise<QueueProver | undefined> {
  const url = queueUrlFrom(args, io);
  const attempts = stringOption(args, "attempts");
  if (url === undefined) {
    if (attempts !== undefined) throw new UsageError("--attempts only goes with --queue.");
    return undefined;
  }
  return openQueueProver({
    address: parseQueueAddress(url, { insecure: flagOption(args, "insecure") }),
    suite: options.suite,
    labVersion: LAB_VERSION,
    testTimeoutMs: options.testTimeoutMs,
    attempts: attempts === undefined ? 3 : parsePositiveInt(attempts, "--attempts"),
    signal: io.signal,
    onLog: options.onLog,
  });
}
