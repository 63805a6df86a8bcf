import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { createHash } from "node:crypto";
import {
  createLimiter,
  errorMessage,
  isLabError,
  runPool,
  type DropCategory,
  type EnvironmentSpec,
  type Oracle,
  type Reporter,
  type SwebenchProof,
  type Task,
  type ValidationProof,
} from "../core/index.js";
import { ensureDebianPackages, type EnvironmentOptions } from "../environment/index.js";
import {
  ensureBaseRepo,
  environmentFor,
  MODULES_DIR,
  hasSource,
  isLiteInstance,
  loadDataset,
  renderTask,
  selectRows,
  taskInfoOf,
  testListsFor,
  type DatasetSource,
  type EnvironmentEntry,
  type RepoSource,
  type Selection,
  type SwebenchRow,
} from "../datasets/index.js";
import { loadOracle, loadSuite, loadTask, readProofFile, suiteLayout } from "../suite/index.js";
import { classifyProofs } from "./drop-reasons.js";
import { judgeProof, writeProofFile } from "./prove.js";
import { expectedProofMs, leaveOutKnownDrops, type LedgerUse } from "./ledger-use.js";
import { localProver, type TaskProver } from "./prover.js";

/** Options of `lab gen --suite swebench`. */
export interface SwebenchGenOptions {
  readonly suiteDir: string;
  readonly dataset: DatasetSource;
  readonly selection: Selection;
  readonly repos: RepoSource;
  readonly environment: EnvironmentOptions;
  readonly validate: boolean;
  readonly proofRuns: number;
  readonly hints: boolean;
  readonly concurrency: number;
  readonly testTimeoutMs: number;
  readonly labVersion: string;
  readonly signal: AbortSignal;
  /** Where proofs run; default: here. */
  readonly prover?: TaskProver | undefined;
  /** Base repositories fetched at once (default: `concurrency`); less when proofs run elsewhere. */
  readonly repoConcurrency?: number | undefined;
  /** Where environments come from; default: lab's transcription of upstream's specs. */
  readonly environmentOf?: (row: SwebenchRow) => EnvironmentEntry | null;
  /**
   * A row's whole environment spec, in place of `environmentOf` (SWE-bench Multilingual's Node
   * specs: `multilingualEnvironmentOf`); null or a thrown error drops the row as no_environment.
   */
  readonly specOf?: ((row: SwebenchRow) => Promise<EnvironmentSpec | null>) | undefined;
  /** What the gen takes from lab's ledger: instances to leave out, reference proof times. */
  readonly ledger?: LedgerUse | undefined;
}

/** An instance gen did not keep, and why. */
export interface DroppedInstance {
  readonly instance_id: string;
  readonly repo: string;
  readonly category: DropCategory | "out_of_scope" | "invalid_row" | "no_mirror" | "known_drop";
  readonly reason: string;
}

/** What gen did. */
export interface SwebenchGenResult {
  readonly kept: string[];
  /** Kept instances whose listed FAIL_TO_PASS tests partly pass without the fix: those tests. */
  readonly passWithoutFix: Record<string, string[]>;
  readonly dropped: DroppedInstance[];
  /** Requested ids the dataset does not have. */
  readonly unknown: string[];
}

/** Whether a task's base repository holds submodules for setup.sh to check out. */
async function hasSubmodules(baseRepo: string): Promise<boolean> {
  const list = await readFile(path.join(baseRepo, MODULES_DIR, "list"), "utf8").catch(() => "");
  return list.trim() !== "";
}

/** What a proof depends on: a stored proof is reused only while this is unchanged. */
function fingerprintOf(
  row: SwebenchRow,
  environment: unknown,
  lists: unknown,
  labVersion: string,
  proofRuns: number,
  submodules: boolean,
): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        row.base_commit,
        row.patch,
        row.test_patch,
        environment,
        lists,
        labVersion,
        proofRuns,
        // Since the checkout has the base commit's submodules (only these tasks' proofs change).
        ...(submodules ? ["submodules"] : []),
      ]),
    )
    .digest("hex")
    .slice(0, 16);
}

/**
 * Rebuilds SWE-bench instances as lab tasks and proves each with its own gold patch, keeping
 * only those that pass the proof every time; every other instance is listed with its reason.
 * Rerunning resumes: an instance proven before with the same inputs is not proven again.
 */
export async function generateSwebench(
  options: SwebenchGenOptions,
  reporter: Reporter,
): Promise<SwebenchGenResult> {
  const dataset = await loadDataset(options.dataset);
  const dropped: DroppedInstance[] = dataset.rejected.map((row) => ({
    instance_id: row.instanceId,
    repo: "",
    category: "invalid_row",
    reason: `invalid row: ${row.reason}`,
  }));
  for (const row of dataset.rejected)
    reporter.emit({
      type: "log",
      level: "warn",
      message: `skipping ${row.instanceId}: invalid row: ${row.reason}`,
    });
  const selected = selectRows(dataset.rows, options.selection);
  const { skipped, unknown } = selected;
  const { rows: chosen, left } = leaveOutKnownDrops(
    selected.chosen,
    options.ledger ?? {},
    reporter,
  );
  dropped.push(...left);
  const repoOf = new Map(dataset.rows.map((row) => [row.instance_id, row.repo]));
  dropped.push(
    ...skipped.map((entry) => ({
      instance_id: entry.instanceId,
      repo: repoOf.get(entry.instanceId) ?? "",
      category: entry.category,
      reason: entry.reason,
    })),
  );
  reporter.emit({
    type: "log",
    level: "info",
    message: `${dataset.source}: ${String(dataset.rows.length)} rows; generating ${String(chosen.length)} instance(s)${skipped.length > 0 ? `, ${String(skipped.length)} out of scope` : ""}`,
  });

  // Lite's rows take upstream's v5 lists, kept in lab's data; any other dataset's its own columns.
  const isLite =
    dataset.rows.length > 0 && dataset.rows.every((row) => isLiteInstance(row.instance_id));
  const environmentOf =
    options.environmentOf ?? ((of: SwebenchRow) => environmentFor(of.instance_id));
  if (options.validate && options.specOf === undefined) {
    // Before any proof: the builds need these on the host (lab installs them as root).
    const packages = chosen.flatMap(
      (row) => (hasSource(options.repos, row.repo) ? environmentOf(row)?.debianPackages : []) ?? [],
    );
    const installed = await ensureDebianPackages(packages, {
      pathEnv: options.environment.pathEnv,
      isRoot: process.getuid?.() === 0,
      signal: options.signal,
      onInstall: (message) => {
        reporter.emit({ type: "log", level: "info", message });
      },
    });
    if (installed.length > 0)
      reporter.emit({
        type: "log",
        level: "info",
        message: `installed Debian packages: ${installed.join(", ")}`,
      });
  }

  const layout = suiteLayout(options.suiteDir);
  const stored: Record<string, SwebenchProof> = {
    ...(await readProofFile(options.suiteDir))?.instances,
  };
  const kept: string[] = [];
  const passWithoutFix: Record<string, string[]> = {};
  const keep = (id: string, runs: readonly ValidationProof[]): void => {
    kept.push(id);
    const passing = [...new Set(runs.flatMap((run) => run.passWithoutFix ?? []))].sort();
    if (passing.length > 0) passWithoutFix[id] = passing;
  };
  let done = 0;
  const prove =
    options.prover ??
    localProver({
      environment: options.environment,
      labVersion: options.labVersion,
      testTimeoutMs: options.testTimeoutMs,
      signal: options.signal,
    });
  const fetching = createLimiter(options.repoConcurrency ?? options.concurrency);
  /** One instance is done: the line plain logs always showed, and the live display's count. */
  const finish = (id: string, kept: boolean, message: string): void => {
    reporter.emit({
      type: "proof:task:end",
      taskId: id,
      kept,
      message,
      done: ++done,
      total: chosen.length,
    });
  };
  const work = async (row: SwebenchRow): Promise<void> => {
    const id = row.instance_id;
    reporter.emit({ type: "proof:task:start", taskId: id });
    const drop = async (category: DropInstanceCategory, reason: string): Promise<void> => {
      dropped.push({ instance_id: id, repo: row.repo, category, reason });
      await rm(layout.taskDir(id), { recursive: true, force: true });
      await rm(layout.oracleDir(id), { recursive: true, force: true });
      finish(id, false, `${id}: dropped: ${reason}`);
    };
    let environment: EnvironmentSpec;
    if (options.specOf !== undefined) {
      let spec: EnvironmentSpec | null;
      try {
        spec = await options.specOf(row);
      } catch (error) {
        if (options.signal.aborted) throw error;
        return drop("no_environment", errorMessage(error));
      }
      if (spec === null)
        return drop("no_environment", `lab has no environment spec for ${row.repo} ${row.version}`);
      environment = spec;
    } else {
      const entry = environmentOf(row);
      if (entry === null)
        return drop("no_environment", `lab has no environment spec for ${row.repo} ${row.version}`);
      environment = pythonEnvironmentOf(entry);
    }
    if (!hasSource(options.repos, row.repo))
      return drop(
        "no_mirror",
        `not proven on this machine: no mirror of ${row.repo} in ${String(options.repos.mirrorsDir)}`,
      );
    const lists = (isLite ? testListsFor(id) : null) ?? {
      FAIL_TO_PASS: row.FAIL_TO_PASS,
      PASS_TO_PASS: row.PASS_TO_PASS,
    };
    reporter.emit({ type: "proof:task:phase", taskId: id, phase: "fetch" });
    let baseRepo: string;
    try {
      baseRepo = await fetching(() =>
        ensureBaseRepo(
          {
            ...options.repos,
            onFetch: (message) => {
              reporter.emit({ type: "log", level: "info", message });
            },
          },
          row.repo,
          id,
          row.base_commit,
        ),
      );
    } catch (error) {
      if (options.signal.aborted) throw error;
      return drop(
        "repository",
        `the repository could not be fetched at ${row.base_commit.slice(0, 10)}: ${errorMessage(error)}`,
      );
    }
    await renderTask(
      options.suiteDir,
      row,
      {
        info: taskInfoOf(row, dataset.source),
        environment,
        failToPass: lists.FAIL_TO_PASS,
        passToPass: lists.PASS_TO_PASS,
      },
      { hints: options.hints },
    );
    if (!options.validate) {
      kept.push(id);
      finish(id, true, `${id}: rendered (not proven: --no-validate)`);
      return;
    }
    const fingerprint = fingerprintOf(
      row,
      environment,
      lists,
      options.labVersion,
      options.proofRuns,
      await hasSubmodules(baseRepo),
    );
    const earlier = stored[id];
    // Environment and infrastructure failures may be passing: only verdicts on the tests are reused.
    const reusable =
      earlier !== undefined &&
      (earlier.kept ||
        (earlier.category !== "environment" && earlier.category !== "infrastructure"));
    if (earlier?.fingerprint === fingerprint && reusable) {
      // The stored grades are the evidence; the verdict is made again, by today's rules.
      const rejudged =
        earlier.runs.length === 0
          ? null
          : earlier.runs.map((run) => ({ ...run, ...judgeProof(run.gold, run.empty) }));
      const verdict =
        rejudged === null
          ? { category: earlier.category ?? "gold_fails", reason: earlier.reason ?? "" }
          : classifyProofs(rejudged, await readGoldLogs(options.suiteDir, id, rejudged.length));
      if (rejudged !== null) {
        stored[id] = {
          ...earlier,
          kept: verdict === null,
          reason: verdict?.reason ?? null,
          category: verdict?.category ?? null,
          runs: rejudged,
        };
      }
      if (verdict === null) {
        keep(id, rejudged ?? []);
        finish(id, true, `${id}: proven earlier, kept`);
        return;
      }
      return drop(verdict.category, verdict.reason || "failed its proof earlier");
    }
    const suite = await loadSuite(path.basename(options.suiteDir), {
      evalsDir: path.dirname(options.suiteDir),
      cwd: options.suiteDir,
    });
    const task: Task = await loadTask(suite, id);
    const oracle: Oracle = await loadOracle(task);
    let runs: ValidationProof[];
    try {
      runs = await prove({
        task,
        oracle,
        runs: options.proofRuns,
        logDirOf: (run) => layout.proofLogDir(run),
        baseRepo: { repo: row.repo, baseCommit: row.base_commit },
        onPhase: (phase) => {
          reporter.emit({ type: "proof:task:phase", taskId: id, phase });
        },
      });
    } catch (error) {
      if (options.signal.aborted) throw error;
      const category: DropCategory =
        isLabError(error) && error.code === "ENVIRONMENT_FAILED" ? "environment" : "infrastructure";
      stored[id] = { fingerprint, kept: false, reason: errorMessage(error), category, runs: [] };
      await writeProofFile(options.suiteDir, { instances: stored });
      return drop(category, errorMessage(error));
    }
    const verdict = classifyProofs(runs, await readGoldLogs(options.suiteDir, id, runs.length));
    stored[id] = {
      fingerprint,
      kept: verdict === null,
      reason: verdict?.reason ?? null,
      category: verdict?.category ?? null,
      runs,
    };
    await writeProofFile(options.suiteDir, { instances: stored });
    if (verdict !== null) return drop(verdict.category, verdict.reason);
    keep(id, runs);
    finish(id, true, `${id}: proven ${String(options.proofRuns)}x, kept`);
  };

  reporter.emit({
    type: "proof:start",
    suite: path.basename(options.suiteDir),
    total: chosen.length,
    expectedMs: expectedProofMs(chosen, options.ledger ?? {}, options.concurrency, reporter),
    concurrency: options.concurrency,
  });
  await runPool(chosen, options.concurrency, work, options.signal);
  reporter.emit({ type: "proof:end", kept: kept.length, dropped: chosen.length - kept.length });
  return {
    kept: kept.sort(),
    passWithoutFix,
    dropped: dropped.sort((a, b) => a.instance_id.localeCompare(b.instance_id)),
    unknown,
  };
}

type DropInstanceCategory = DroppedInstance["category"];

/** A Python row's environment.json, from its transcribed entry. */
function pythonEnvironmentOf(entry: EnvironmentEntry): EnvironmentSpec {
  return {
    python: entry.python,
    pins: entry.pins,
    pinsInstallArgs: entry.pinsInstallArgs,
    ...(entry.pinsBuildConstraints === undefined
      ? {}
      : { pinsBuildConstraints: entry.pinsBuildConstraints }),
    preInstall: entry.preInstall,
    install: [entry.install, ...entry.installArgs].join(" "),
    testCommand: entry.testCommand,
    env: entry.env,
    logParser: entry.logParser,
    services: entry.services,
    ...(entry.testDirectiveRule === undefined
      ? {}
      : { testDirectiveRule: entry.testDirectiveRule }),
    ...(entry.debianPackages === undefined || entry.debianPackages.length === 0
      ? {}
      : { debianPackages: entry.debianPackages }),
    ...(entry.preTest === undefined || entry.preTest.length === 0
      ? {}
      : { preTest: entry.preTest }),
  };
}

async function readGoldLogs(suiteDir: string, id: string, runs: number): Promise<string[]> {
  const logs: string[] = [];
  for (let run = 1; run <= runs; run++) {
    const file = path.join(suiteLayout(suiteDir).proofLogDir(run), `${id}.gold.log`);
    logs.push(existsSync(file) ? await readFile(file, "utf8") : "");
  }
  return logs;
}
