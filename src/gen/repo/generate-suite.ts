import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { errorMessage, type Reporter } from "../../core/index.js";
import type { EnvironmentOptions } from "../../environment/index.js";
import { suiteLayout } from "../../suite/index.js";
import { removeTaskBase, resolveSource } from "./base-repo.js";
import {
  prepareCandidate,
  validateCandidates,
  type CandidateTiming,
  type KeptTask,
  type PreparedCandidate,
} from "./validate-candidates.js";
import { mineChanges } from "./mining.js";
import { removeRepoTask } from "./render.js";
import { renderSamplingReport, type RepoDrop } from "./report.js";
import { largestMixedTotal, quotas, type Mix } from "./sampling.js";
import { writeRepoSuiteFiles } from "./suite-files.js";
import { issueTextFromCommits, issueTextFromGithub, type IssueText } from "./text.js";

/** Options of `lab gen --suite NAME --from-repo PATH_OR_URL`. */
export interface RepoGenOptions {
  /** evals/NAME. */
  readonly suiteDir: string;
  /** A local repository (bare or not) or a URL. */
  readonly from: string;
  readonly branch: string;
  readonly since?: string | undefined;
  /** Merged changes to walk, newest first. */
  readonly limit?: number | undefined;
  /** "owner/name" as tasks record it (and for GitHub's API); default: from the URL, else the folder name. */
  readonly repoName?: string | undefined;
  /** Python version for every task instead of the inferred one. */
  readonly python?: string | undefined;
  readonly proofRuns: number;
  /** False: mine and profile only; no environments, no tasks. */
  readonly validate: boolean;
  readonly concurrency: number;
  readonly testTimeoutMs: number;
  /** Target mix of the suite. */
  readonly mix?: Mix | undefined;
  /** How many tasks the suite should hold (validation stops once each class's quota is kept). */
  readonly sample?: number | undefined;
  /** GitHub's API, for issue texts; without it texts come from commit messages. */
  readonly github?: { readonly apiBase: string; readonly token: string } | undefined;
  readonly environment: EnvironmentOptions;
  readonly labVersion: string;
  readonly signal: AbortSignal;
}

/** What gen did. */
export interface RepoGenResult {
  readonly repo: string;
  readonly walked: number;
  readonly candidates: number;
  /** Kept tasks, newest change first. */
  readonly kept: KeptTask[];
  /** Every walked change not kept, newest first, with its category and reason. */
  readonly dropped: RepoDrop[];
  /** The sampling report (Markdown), also written to sampling.md. */
  readonly report: string;
  readonly miningMs: number;
  readonly timings: CandidateTiming[];
}

/** The repository's name: given, or owner/name from a URL, or the folder's name. */
export function repoNameOf(from: string, given?: string): string {
  if (given !== undefined) return given;
  const url = /[/:]([^/:]+)\/([^/]+?)(\.git)?\/?$/.exec(from);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from) || /^[^/]+@[^/:]+:/.test(from))
    if (url !== null) return `${String(url[1])}/${String(url[2])}`;
  return path.basename(path.resolve(from)).replace(/\.git$/, "");
}

/**
 * Turns a repository's merged changes into a validated suite: mines the first-parent history,
 * splits each change into hidden tests and a gold patch, infers and builds each base commit's
 * environment, finds FAIL_TO_PASS and PASS_TO_PASS by running the tests before and after the
 * fix, keeps what is proven the same way every run, and writes the suite, its drops and a
 * sampling report.
 */
export async function generateRepoSuite(
  options: RepoGenOptions,
  reporter: Reporter,
): Promise<RepoGenResult> {
  const { cacheDir } = suiteLayout(options.suiteDir);
  const info = (message: string): void => {
    reporter.emit({ type: "log", level: "info", message });
  };
  const source = await resolveSource(options.from, cacheDir, options.signal);
  const repo = repoNameOf(options.from, options.repoName);
  const miningStart = performance.now();
  const mined = await mineChanges({
    gitDir: source,
    branch: options.branch,
    since: options.since,
    limit: options.limit,
    idPrefix: repo.replace("/", "__"),
    signal: options.signal,
  });
  const miningMs = Math.round(performance.now() - miningStart);
  info(
    `${repo} (${options.branch}): ${String(mined.walked)} merged changes walked, ${String(mined.candidates.length)} candidates, ${String(mined.skipped.length)} skipped (no tests or no source changed)`,
  );
  const prepared: PreparedCandidate[] = [];
  for (const candidate of mined.candidates) {
    let issue: IssueText = issueTextFromCommits(candidate);
    if (options.github !== undefined && candidate.pr !== null && repo.includes("/")) {
      try {
        issue =
          (await issueTextFromGithub(
            { ...options.github, repo, signal: options.signal },
            candidate.pr,
          )) ?? issue;
      } catch (error) {
        reporter.emit({
          type: "log",
          level: "warn",
          message: `${candidate.id}: GitHub gave no text (${errorMessage(error)}); using the commit message`,
        });
      }
    }
    prepared.push(prepareCandidate(candidate, issue));
  }
  const skipped: RepoDrop[] = mined.skipped.map((skip) => ({
    id: skip.id,
    commit: skip.commit,
    subject: skip.subject,
    category: skip.category,
    reason: skip.reason,
  }));
  const order = new Map<string, number>();
  for (const [index, item] of [...mined.candidates, ...mined.skipped].entries())
    order.set(item.id, index);
  const byCommitOrder = <T extends { id: string }>(items: T[]): T[] =>
    items.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));

  let kept: KeptTask[] = [];
  let dropped: RepoDrop[] = [...skipped];
  let timings: CandidateTiming[] = [];
  if (options.validate) {
    const outcome = await validateCandidates(
      prepared,
      {
        suiteDir: options.suiteDir,
        source,
        repo,
        python: options.python,
        proofRuns: options.proofRuns,
        concurrency: options.concurrency,
        testTimeoutMs: options.testTimeoutMs,
        environment: options.environment,
        labVersion: options.labVersion,
        quota:
          options.sample === undefined ? undefined : { mix: options.mix, total: options.sample },
        signal: options.signal,
      },
      reporter,
    );
    kept = outcome.kept;
    dropped.push(...outcome.dropped);
    timings = outcome.timings;
    if (options.mix !== undefined && options.sample === undefined && !options.signal.aborted) {
      const trimmed = await trimToMix(options.suiteDir, cacheDir, byCommitOrder(kept), options.mix);
      kept = trimmed.kept;
      dropped.push(...trimmed.dropped);
    }
    if (!options.signal.aborted) await removeStaleTasks(options.suiteDir, cacheDir, kept, prepared);
  }
  kept = byCommitOrder(kept);
  dropped = byCommitOrder(dropped);
  const report = renderSamplingReport({
    suite: path.basename(options.suiteDir),
    repo,
    branch: options.branch,
    walked: mined.walked,
    candidates: prepared.map((item) => item.profile),
    kept: options.validate
      ? kept.map((task) => ({ ...task.profile, textSource: task.textSource }))
      : prepared.map((item) => ({ ...item.profile, textSource: item.issue.source })),
    dropped,
    mix: options.mix,
    validated: options.validate,
  });
  if (!options.signal.aborted)
    await writeRepoSuiteFiles({
      suiteDir: options.suiteDir,
      repo,
      source,
      branch: options.branch,
      walked: mined.walked,
      validated: options.validate,
      prepared,
      kept,
      dropped,
      report,
    });
  return {
    repo,
    walked: mined.walked,
    candidates: prepared.length,
    kept,
    dropped,
    report,
    miningMs,
    timings,
  };
}

/** Trims kept tasks to the largest suite that holds the mix, dropping the oldest of each class first. */
async function trimToMix(
  suiteDir: string,
  cacheDir: string,
  kept: readonly KeptTask[],
  mix: Mix,
): Promise<{ kept: KeptTask[]; dropped: RepoDrop[] }> {
  const available: Record<string, number> = {};
  for (const task of kept) {
    const name = task.profile[mix.dimension];
    available[name] = (available[name] ?? 0) + 1;
  }
  const limits = quotas(mix, largestMixedTotal(mix, available), available);
  const taken = new Map<string, number>();
  const result: { kept: KeptTask[]; dropped: RepoDrop[] } = { kept: [], dropped: [] };
  for (const task of kept) {
    const name = task.profile[mix.dimension];
    if ((taken.get(name) ?? 0) < (limits[name] ?? 0)) {
      taken.set(name, (taken.get(name) ?? 0) + 1);
      result.kept.push(task);
      continue;
    }
    result.dropped.push({
      id: task.id,
      commit: task.commit,
      subject: "",
      category: "not_sampled",
      reason: `proven, but the ${name} share of the mix (${String(limits[name] ?? 0)}) is full`,
    });
    await removeRepoTask(suiteDir, task.id);
    await removeTaskBase(cacheDir, task.id);
  }
  return result;
}

/** Removes tasks a previous gen of this suite left that this run did not keep. */
async function removeStaleTasks(
  suiteDir: string,
  cacheDir: string,
  kept: readonly KeptTask[],
  prepared: readonly PreparedCandidate[],
): Promise<void> {
  const { tasksDir } = suiteLayout(suiteDir);
  if (!existsSync(tasksDir)) return;
  const keep = new Set(kept.map((task) => task.id));
  const walked = new Set(prepared.map((item) => item.candidate.id));
  for (const id of await readdir(tasksDir)) {
    // Tasks of changes outside this walk (an earlier, longer --limit) stay.
    if (!keep.has(id) && walked.has(id)) {
      await removeRepoTask(suiteDir, id);
      await removeTaskBase(cacheDir, id);
    }
  }
}
