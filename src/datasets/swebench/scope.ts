import type { SwebenchRow } from "./row.js";

/**
 * The repositories of SWE-bench Lite and Verified, each with upstream's specs, log parser and
 * environments transcribed in data/swebench: the default scope of the swebench tier.
 */
export const SWEBENCH_REPOS = [
  "astropy/astropy",
  "django/django",
  "matplotlib/matplotlib",
  "mwaskom/seaborn",
  "pallets/flask",
  "psf/requests",
  "pydata/xarray",
  "pylint-dev/pylint",
  "pytest-dev/pytest",
  "scikit-learn/scikit-learn",
  "sphinx-doc/sphinx",
  "sympy/sympy",
] as const;

/** Repositories skipped up front, and why (none today; kept for datasets with others). */
export const SKIPPED_REPOS: Readonly<Record<string, string>> = {};

/** How gen picks instances. */
export interface Selection {
  /** Exactly these instance ids. */
  readonly instances?: readonly string[] | undefined;
  /** Drop the allowlist: every instance goes to the proof. */
  readonly all: boolean;
  /** How many to take, spread over the repositories; undefined with `all`, `instances` or `scope` means every one. */
  readonly limit?: number | undefined;
  /**
   * Why a row is out of the tier's scope, or null when it is in; default: SWE-bench's Python
   * repositories (SWEBENCH_REPOS). SWE-bench Multilingual's scope is its JS/TS repositories.
   */
  readonly scope?: ((row: SwebenchRow) => string | null) | undefined;
}

/** The default sample: one instance per repository, so a first try is quick. */
export const DEFAULT_SAMPLE = SWEBENCH_REPOS.length;

/** An instance left out before the proof, and why. */
export interface Skipped {
  readonly instanceId: string;
  readonly reason: string;
  /** Not in the tier. */
  readonly category: "out_of_scope";
}

/**
 * Chooses the rows to generate. Out-of-scope rows are skipped with their reason; a limit takes
 * instances round-robin over the repositories (each in dataset order), so a sample spans them.
 */
export function selectRows(
  rows: readonly SwebenchRow[],
  selection: Selection,
): { chosen: SwebenchRow[]; skipped: Skipped[]; unknown: string[] } {
  if (selection.instances !== undefined) {
    const wanted = new Set(selection.instances);
    const matching = rows.filter((row) => wanted.has(row.instance_id));
    const found = new Set(matching.map((row) => row.instance_id));
    return {
      chosen: matching,
      skipped: [],
      unknown: [...wanted].filter((id) => !found.has(id)),
    };
  }
  const skipped: Skipped[] = [];
  const inScope = rows.filter((row) => {
    if (selection.all) return true;
    const reason =
      selection.scope !== undefined
        ? selection.scope(row)
        : (SKIPPED_REPOS[row.repo] ??
          ((SWEBENCH_REPOS as readonly string[]).includes(row.repo)
            ? null
            : `lab has no environments for ${row.repo} (pass --all to let the proof decide)`));
    if (reason !== null)
      skipped.push({ instanceId: row.instance_id, reason, category: "out_of_scope" });
    return reason === null;
  });
  const limit =
    selection.limit ??
    (selection.all || selection.scope !== undefined ? undefined : DEFAULT_SAMPLE);
  if (limit === undefined || limit >= inScope.length)
    return { chosen: inScope, skipped, unknown: [] };
  const byRepo = new Map<string, SwebenchRow[]>();
  for (const row of inScope) byRepo.set(row.repo, [...(byRepo.get(row.repo) ?? []), row]);
  const queues = [...byRepo.keys()].sort().map((repo) => byRepo.get(repo) ?? []);
  const chosen: SwebenchRow[] = [];
  for (let round = 0; chosen.length < limit; round++) {
    for (const queue of queues) {
      const row = queue[round];
      if (row !== undefined && chosen.length < limit) chosen.push(row);
    }
  }
  return { chosen, skipped, unknown: [] };
}
