import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { WaitingError, type Job } from "bullmq";
import {
  errorMessage,
  isLabError,
  type ChangeSource,
  type Reporter,
  type TrialResult,
} from "../core/index.js";
import {
  checkSandbox,
  hiddenPathsOf,
  runTrial,
  type RunConfig,
  type TrialJob,
} from "../runner/index.js";
import { runPaths, trialPaths } from "../store/index.js";
import { loadOracle, loadSuite, loadTask, taskContentHash, type Suite } from "../suite/index.js";
import { packFolder } from "./bundle.js";
import {
  PROTOCOL_VERSION,
  type RunManifest,
  type TrialJobData,
  type TrialReturn,
} from "./protocol.js";
import {
  markTriedHere,
  preferOtherWorkers,
  refuse,
  type WorkerContext,
  type WorkerSettings,
} from "./worker-context.js";

/** A run as this worker carries it out, or why it cannot. */
type PreparedRun =
  { readonly config: RunConfig; readonly suite: Suite } | { readonly refusal: string };

/** A run looked at by a worker: a refusal is looked at again after a while (it may be fixed). */
interface PreparedEntry {
  readonly at: number;
  readonly run: Promise<PreparedRun>;
  refused: boolean;
}
/** Each worker's runs, by manifest. */
const preparedRuns = new WeakMap<WorkerContext, Map<string, PreparedEntry>>();
const RECHECK_REFUSAL_MS = 30_000;

/** A message with its hint, for a refusal. */
function explain(error: unknown): string {
  const hint = isLabError(error) && error.hint !== undefined ? ` (${error.hint})` : "";
  return `${errorMessage(error)}${hint}`;
}

/**
 * Checks that this machine runs a run's trials as the coordinator would: the same lab, the
 * suite present, the same tool (fingerprint and version) ready, and the sandbox able to
 * enforce the run's limits; then makes the run's config from this machine's settings.
 */
async function prepareRun(
  manifest: RunManifest,
  settings: WorkerSettings,
  stagingRoot: string,
  onLog: (level: "info" | "warn", message: string) => void,
): Promise<PreparedRun> {
  if (manifest.labVersion !== settings.labVersion)
    return {
      refusal: `the run was started by lab ${manifest.labVersion} and this worker is lab ${settings.labVersion}; run the same lab version on the coordinator and the workers`,
    };
  let suite: Suite;
  try {
    suite = await loadSuite(manifest.suite, { evalsDir: settings.evalsDir, cwd: settings.cwd });
  } catch (error) {
    return { refusal: `this worker has no suite "${manifest.suite}": ${explain(error)}` };
  }
  let source: ChangeSource;
  const spec = manifest.source;
  if (spec.kind === "tool") {
    try {
      const tool = settings.resolveTool(spec.request);
      if (tool.fingerprint !== spec.fingerprint)
        return {
          refusal: `tool "${tool.name}" here is not the run's (fingerprint ${tool.fingerprint} here, ${spec.fingerprint} in the run): give workers the same lab.config.json entry, command line, settings and installed version`,
        };
      await tool.checkReady();
      const version = await tool.detectVersion();
      if (version !== manifest.toolVersion)
        return {
          refusal: `tool "${tool.name}" is version ${version} here and ${manifest.toolVersion} in the run: install the run's version on this worker`,
        };
      source = { kind: "tool", tool };
    } catch (error) {
      return { refusal: `tool "${spec.request.name}" cannot run here: ${explain(error)}` };
    }
  } else {
    // The patch comes with each job; this source only names the changes.
    source = { ...spec, kind: "stated", taskIds: [], patchFor: () => "" };
  }
  const sandbox = {
    provider: settings.sandbox,
    network: manifest.network,
    limits: manifest.sandboxLimits,
    hostHome: settings.hostHome,
  };
  try {
    for (const note of await checkSandbox({ sandbox }))
      onLog(note.level, `run ${manifest.runId}: ${note.message}`);
  } catch (error) {
    return { refusal: `this worker's sandbox cannot run it: ${explain(error)}` };
  }
  const config: RunConfig = {
    cwd: settings.cwd,
    suite: manifest.suite,
    evalsDir: settings.evalsDir,
    source,
    taskIds: undefined,
    validOnly: false,
    strongOnly: false,
    trials: 1,
    concurrency: 1,
    runId: manifest.runId,
    runsDir: stagingRoot,
    limits: manifest.limits,
    sandbox,
    environment: settings.environment,
    toolEnv: settings.toolEnv,
    labVersion: settings.labVersion,
    scratchRoot: settings.scratchRoot,
    keepScratch: false,
    recorded: {},
  };
  return { config, suite };
}

function preparedRun(manifest: RunManifest, context: WorkerContext): Promise<PreparedRun> {
  let runs = preparedRuns.get(context);
  if (runs === undefined) {
    runs = new Map();
    preparedRuns.set(context, runs);
  }
  const key = JSON.stringify(manifest);
  const cached = runs.get(key);
  if (cached !== undefined && !(cached.refused && Date.now() - cached.at > RECHECK_REFUSAL_MS))
    return cached.run;
  const entry: PreparedEntry = {
    at: Date.now(),
    refused: false,
    run: prepareRun(manifest, context.settings, context.stagingRoot, (level, message) => {
      context.logOnce(level, message);
    }),
  };
  entry.run.then(
    (run) => {
      entry.refused = "refusal" in run;
    },
    () => {
      entry.refused = true;
    },
  );
  runs.set(key, entry);
  return entry.run;
}

/**
 * Carries out a trial job exactly as a local run's trial (`runTrial`), in a staging folder of
 * this worker, and returns the trial's folder packed. An infrastructure failure with attempts
 * left is thrown, so BullMQ tries the job again, preferably on another worker; a stop of the
 * worker puts the job back without spending an attempt.
 */
export async function processTrial(
  job: Job,
  data: TrialJobData,
  token: string | undefined,
  signal: AbortSignal,
  context: WorkerContext,
): Promise<TrialReturn> {
  const { settings } = context;
  const manifest = data.run;
  const run = await preparedRun(manifest, context);
  if ("refusal" in run) return refuse(context, job, token, manifest.key, run.refusal);
  let task;
  try {
    task = await loadTask(run.suite, data.taskId);
  } catch (error) {
    return refuse(context, job, token, manifest.key, explain(error));
  }
  const hash = await taskContentHash(task);
  if (hash !== data.taskHash)
    return refuse(
      context,
      job,
      token,
      manifest.key,
      `task ${data.taskId} of suite "${manifest.suite}" differs here (content hash ${hash}, the run's ${data.taskHash}): give this worker the coordinator's copy of ${run.suite.dir}`,
    );
  await preferOtherWorkers(context, job, token, data.triedOn, data.deferrals);

  const source: ChangeSource =
    run.config.source.kind === "stated"
      ? { ...run.config.source, taskIds: [data.taskId], patchFor: () => data.patch ?? "" }
      : run.config.source;
  const config: RunConfig = { ...run.config, source };
  const staging = await mkdtemp(path.join(context.stagingRoot, `${data.taskId}-`));
  const paths = trialPaths(runPaths(staging, manifest.runId), data.taskId, data.trial);
  const trialJob: TrialJob = {
    task,
    oracle: await loadOracle(task),
    trial: data.trial,
    paths,
    hiddenPaths: [...hiddenPathsOf(config, run.suite), context.stagingRoot],
    // The trial's own scratch under the scratch root (hidden from sandboxes, as locally).
    scratchDir: path.join(config.scratchRoot, `queue-${path.basename(staging)}`),
  };
  // Phases go to the coordinator as the job's progress; a lost update only dims its display.
  const reporter: Reporter = {
    emit(event) {
      if (event.type === "trial:phase")
        void job.updateProgress({ phase: event.phase }).catch(() => undefined);
    },
  };
  const attempt = `${manifest.runId}: ${data.taskId} #${String(data.trial)}`;
  const attemptsLeft = (job.opts.attempts ?? 1) - job.attemptsMade - 1;
  settings.onLog("info", `${attempt}: started`);
  try {
    let result: TrialResult | null;
    try {
      result = await runTrial(trialJob, config, manifest.toolVersion, reporter, signal);
    } catch (error) {
      // A failure of lab itself here (its store, a bug): the attempt failed on this machine.
      settings.onLog("warn", `${attempt}: failed on this worker: ${errorMessage(error)}`);
      await markTriedHere(context, job, data.triedOn);
      throw error;
    }
    if (result === null) {
      await job.moveToWait(token);
      settings.onLog("info", `${attempt}: stopped; handed back to the queue`);
      throw new WaitingError();
    }
    if (result.outcome.kind === "infra_error" && attemptsLeft > 0) {
      const message = `infra error on worker ${settings.name} (${result.outcome.phase}): ${result.outcome.message}`;
      settings.onLog("warn", `${attempt}: ${message}; ${String(attemptsLeft)} attempt(s) left`);
      await markTriedHere(context, job, data.triedOn);
      throw new Error(message);
    }
    settings.onLog(
      "info",
      `${attempt}: ${result.outcome.kind === "infra_error" ? `infra error (${result.outcome.phase}), no attempt left` : result.resolved === true ? "resolved" : "unresolved"} (${(result.durationMs / 1000).toFixed(1)}s)`,
    );
    return {
      v: PROTOCOL_VERSION,
      worker: settings.name,
      bundle: await packFolder(paths.dir, {
        first: ["result.json", "patch.diff", "grader.log", "tool.log"],
        where: `worker ${settings.name}`,
      }),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(trialJob.scratchDir, { recursive: true, force: true });
  }
}
