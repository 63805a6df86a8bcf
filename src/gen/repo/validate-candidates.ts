import { createHash } from "node:crypto";
import path from "node:path";
import {
  errorMessage,
  type EnvironmentSpec,
  type Reporter,
  type RepoTaskProof,
} from "../../core/index.js";
import type { EnvironmentOptions } from "../../environment/index.js";
import { describeMissingObjects, findMissingObjects } from "../../git/index.js";
import { writeJsonAtomic } from "../../store/index.js";
import { readProofFile, suiteLayout } from "../../suite/index.js";
import { writeProofFile } from "../prove.js";
import { addTaskBase, removeTaskBase } from "./base-repo.js";
import { inferEnvironment } from "./infer-env.js";
import { isSourcePath, type Candidate } from "./mining.js";
import { filterPatch } from "./patches.js";
import {
  draftOracle,
  removeRepoTask,
  renderRepoTask,
  writeTaskInfo,
  writeTestLists,
} from "./render.js";
import type { RepoDrop } from "./report.js";
import { profileTask, quotas, type Mix, type Profile } from "./sampling.js";
import { runWithQuotas } from "./quota-pool.js";
import type { IssueText } from "./text.js";
import { validateCandidate } from "./validate.js";

/** A candidate ready to validate: its text and profile. */
export interface PreparedCandidate {
  readonly candidate: Candidate;
  readonly issue: IssueText;
  readonly profile: Profile;
}

/** Where and how to validate. */
export interface ValidationPlan {
  /** evals/NAME; its cache holds the base repository and the proof logs. */
  readonly suiteDir: string;
  /** The repository mined (for the base repository and the environment). */
  readonly source: string;
  /** "owner/name" or the folder name. */
  readonly repo: string;
  readonly python?: string | undefined;
  readonly proofRuns: number;
  readonly concurrency: number;
  readonly testTimeoutMs: number;
  readonly environment: EnvironmentOptions;
  readonly labVersion: string;
  /** With a sample size: stop validating a class once its quota is kept. */
  readonly quota?: { readonly mix: Mix | undefined; readonly total: number } | undefined;
  readonly signal: AbortSignal;
}

/** A task gen kept. */
export interface KeptTask {
  readonly id: string;
  readonly commit: string;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  readonly profile: Profile;
  readonly textSource: string;
}

/** How long one candidate took, for bench/repo-gen.ts. */
export interface CandidateTiming {
  readonly id: string;
  /** Inferring the environment (resolving pins). */
  readonly environmentMs: number;
  /** Adding the base commit to the suite's base repository and rendering the task. */
  readonly renderMs: number;
  /** The proof runs. */
  readonly validateMs: number;
  readonly proofRuns: number;
  readonly reused: boolean;
}

/** Bumped when validation judges differently, so proofs made the old way are not reused. */
const VALIDATION_LAYOUT = 2;

/** The source part of a gold patch: what the fix changes in code. */
export function sourcePatchOf(candidate: Candidate): string {
  return filterPatch(candidate.goldPatch, isSourcePath);
}

/** Prepares a candidate: its profile over the gold patch's source files and the issue text. */
export function prepareCandidate(candidate: Candidate, issue: IssueText): PreparedCandidate {
  return { candidate, issue, profile: profileTask(sourcePatchOf(candidate), issue.text) };
}

function fingerprintOf(candidate: Candidate, plan: ValidationPlan, issue: IssueText): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        VALIDATION_LAYOUT,
        candidate.commit,
        candidate.base,
        candidate.testPatch,
        candidate.goldPatch,
        issue.text,
        plan.python ?? null,
        plan.proofRuns,
        plan.labVersion,
      ]),
    )
    .digest("hex")
    .slice(0, 16);
}

/**
 * Validates candidates in order (newest first), `concurrency` at a time: infers each one's
 * environment, renders it as a task and proves it; keeps it, or removes it with its reason.
 * Proofs are stored in proof.json and reused while their inputs are unchanged.
 */
export async function validateCandidates(
  prepared: readonly PreparedCandidate[],
  plan: ValidationPlan,
  reporter: Reporter,
): Promise<{ kept: KeptTask[]; dropped: RepoDrop[]; timings: CandidateTiming[] }> {
  const { cacheDir } = suiteLayout(plan.suiteDir);
  const stored: Record<string, RepoTaskProof> = { ...(await readProofFile(plan.suiteDir))?.tasks };
  const kept: KeptTask[] = [];
  const dropped: RepoDrop[] = [];
  const timings: CandidateTiming[] = [];
  const classOf = (item: PreparedCandidate): string =>
    plan.quota?.mix === undefined ? "all" : item.profile[plan.quota.mix.dimension];
  const limits =
    plan.quota === undefined
      ? null
      : plan.quota.mix === undefined
        ? { all: plan.quota.total }
        : quotas(plan.quota.mix, plan.quota.total);
  let done = 0;
  /** One candidate is done: the line plain logs always showed, and the live display's count. */
  const finish = (id: string, kept: boolean, message: string): void => {
    reporter.emit({
      type: "proof:task:end",
      taskId: id,
      kept,
      message,
      done: ++done,
      total: prepared.length,
    });
  };

  const work = async (item: PreparedCandidate): Promise<boolean> => {
    const { candidate, issue, profile } = item;
    const id = candidate.id;
    reporter.emit({ type: "proof:task:start", taskId: id });
    const drop = async (category: string, reason: string): Promise<false> => {
      dropped.push({ id, commit: candidate.commit, subject: candidate.subject, category, reason });
      await removeRepoTask(plan.suiteDir, id);
      await removeTaskBase(cacheDir, id);
      finish(id, false, `${id}: dropped: ${reason}`);
      return false;
    };
    const fingerprint = fingerprintOf(candidate, plan, issue);
    const earlier = stored[id];
    // Install and infrastructure failures may pass another time (PyPI was down): they are retried.
    const reuse =
      earlier?.fingerprint === fingerprint &&
      earlier.category !== "infrastructure" &&
      earlier.category !== "install";
    const timing = {
      id,
      environmentMs: 0,
      renderMs: 0,
      validateMs: 0,
      proofRuns: 0,
      reused: reuse,
    };
    const started = performance.now();
    let environment: EnvironmentSpec;
    let notes: readonly string[];
    if (reuse && !earlier.kept) {
      timings.push(timing);
      return drop(earlier.category ?? "unknown", earlier.reason ?? "dropped earlier");
    }
    if (reuse && earlier.environment !== null) {
      environment = earlier.environment;
      notes = earlier.notes;
    } else {
      reporter.emit({ type: "proof:task:phase", taskId: id, phase: "environment" });
      const inferred = await inferEnvironment({
        gitDir: plan.source,
        commit: candidate.base,
        date: candidate.baseDate,
        python: plan.python,
        environment: plan.environment,
        cacheDir,
        signal: plan.signal,
      }).catch((error: unknown) => ({
        ok: false as const,
        category: "install" as const,
        reason: `install failed: ${errorMessage(error)}`,
      }));
      timing.environmentMs = Math.round(performance.now() - started);
      if (!inferred.ok) {
        stored[id] = {
          fingerprint,
          kept: false,
          category: inferred.category,
          reason: inferred.reason,
          failToPass: [],
          passToPass: [],
          failing: [],
          environment: null,
          notes: [],
          runs: [],
        };
        await writeProofFile(plan.suiteDir, { tasks: stored });
        timings.push(timing);
        return drop(inferred.category, inferred.reason);
      }
      environment = inferred.spec;
      notes = inferred.notes;
    }
    const renderStart = performance.now();
    try {
      const cut = await addTaskBase(
        plan.source,
        plan.repo,
        cacheDir,
        id,
        candidate.base,
        plan.signal,
      );
      if (cut.length > 0)
        notes = [
          ...notes,
          `history starts at ${cut.map((commit) => commit.slice(0, 10)).join(", ")}: lab's copy of the repository lacks objects of the history before (their deletion)`,
        ];
    } catch (error) {
      // A copy of the repository made without its large files lacks some commits' blobs: those
      // candidates cannot be set up, the others can. Not stored, so a complete copy retries it.
      const missing = plan.signal.aborted
        ? []
        : await findMissingObjects(plan.source, candidate.base, plan.signal).catch(() => []);
      if (missing.length === 0) throw error;
      timings.push(timing);
      return drop(
        "incomplete_repository",
        describeMissingObjects(plan.repo, candidate.base, missing),
      );
    }
    const metadata = {
      kind: candidate.kind,
      date: candidate.date.slice(0, 10),
      textSource: issue.source,
      ...(environment.kind === "node"
        ? { node: environment.node, runner: environment.runner }
        : { python: environment.python }),
      scope: profile.scope,
      description: profile.description,
      difficulty: profile.difficulty,
      goldFiles: profile.goldFiles,
      goldLines: profile.goldLines,
      modules: profile.modules,
      hasReproduction: profile.hasReproduction,
      hasStackTrace: profile.hasStackTrace,
      descriptionChars: profile.descriptionChars,
    };
    const draft = {
      candidate,
      repo: plan.repo,
      issue: issue.text,
      metadata,
      environment,
      failToPass: [],
      passToPass: [],
    };
    const task = await renderRepoTask(plan.suiteDir, draft);
    await writeJsonAtomic(path.join(task.oracleDir, "source.json"), {
      commit: candidate.commit,
      kind: candidate.kind,
      pr: candidate.pr,
      textSource: issue.source,
      textUrl: issue.url ?? null,
      environmentNotes: notes,
    });
    timing.renderMs = Math.round(performance.now() - renderStart);
    let proof: RepoTaskProof;
    if (reuse && earlier.kept) {
      proof = earlier;
    } else {
      const validateStart = performance.now();
      const { verdict, runs } = await validateCandidate(task, draftOracle(draft), {
        runs: plan.proofRuns,
        environment: plan.environment,
        logDir: suiteLayout(plan.suiteDir).proofLogDir(),
        testTimeoutMs: plan.testTimeoutMs,
        signal: plan.signal,
        onPhase: (phase) => {
          reporter.emit({ type: "proof:task:phase", taskId: id, phase });
        },
      });
      timing.validateMs = Math.round(performance.now() - validateStart);
      timing.proofRuns = runs.length;
      if (plan.signal.aborted) return false;
      proof = {
        fingerprint,
        kept: verdict.kept,
        category: verdict.kept ? null : verdict.category,
        reason: verdict.kept ? null : verdict.reason,
        failToPass: verdict.kept ? verdict.failToPass : [],
        passToPass: verdict.kept ? verdict.passToPass : [],
        failing: verdict.kept ? verdict.failing : [],
        environment,
        notes,
        runs: runs.map((run) => ({
          goldTimedOut: run.goldTimedOut,
          beforeTimedOut: run.beforeTimedOut,
          environmentKey: run.environmentKey,
          durationMs: run.durationMs,
        })),
      };
      stored[id] = proof;
      await writeProofFile(plan.suiteDir, { tasks: stored });
    }
    timings.push(timing);
    if (!proof.kept) return drop(proof.category ?? "unknown", proof.reason ?? "");
    await writeTestLists(task.oracleDir, proof.failToPass, proof.passToPass);
    await writeTaskInfo(task.dir, {
      ...task.info,
      metadata: { ...metadata, failingTestsLeftOut: proof.failing.length },
    });
    kept.push({
      id,
      commit: candidate.commit,
      failToPass: proof.failToPass,
      passToPass: proof.passToPass,
      profile,
      textSource: issue.source,
    });
    finish(
      id,
      true,
      `${id}: kept (${String(proof.failToPass.length)} FAIL_TO_PASS, ${String(proof.passToPass.length)} PASS_TO_PASS${reuse ? ", proven earlier" : `, proven ${String(plan.proofRuns)}x`})`,
    );
    return true;
  };

  reporter.emit({
    type: "proof:start",
    suite: path.basename(plan.suiteDir),
    total: prepared.length,
  });
  const pending = await runWithQuotas(
    prepared,
    { limit: plan.concurrency, classOf, quotas: limits, signal: plan.signal },
    work,
  );
  for (const item of pending) {
    const name = classOf(item);
    dropped.push({
      id: item.candidate.id,
      commit: item.candidate.commit,
      subject: item.candidate.subject,
      category: "not_sampled",
      reason:
        name === "all"
          ? `the sample of ${String(limits?.all ?? 0)} was full`
          : `the ${name} share of the sample (${String(limits?.[name] ?? 0)}) was full`,
    });
  }
  reporter.emit({ type: "proof:end", kept: kept.length, dropped: done - kept.length });
  return { kept, dropped, timings };
}
