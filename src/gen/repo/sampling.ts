import { LabError } from "../../core/index.js";
import { measureDifficulty, type DifficultyProxies } from "../../datasets/index.js";

/** The dimensions a suite is profiled and sampled along. */
export const DIMENSIONS = {
  /** How much code the fix touches. */
  scope: ["small", "medium", "large"],
  /** What the issue text gives a tool to go on. */
  description: ["stack-trace", "reproduction", "prose", "terse"],
  /** Scope and description together. */
  difficulty: ["easy", "medium", "hard"],
} as const;

/** One of the dimensions. */
export type Dimension = keyof typeof DIMENSIONS;

/** A task's difficulty proxies and its class along each dimension. */
export interface Profile extends DifficultyProxies {
  readonly scope: (typeof DIMENSIONS.scope)[number];
  readonly description: (typeof DIMENSIONS.description)[number];
  readonly difficulty: (typeof DIMENSIONS.difficulty)[number];
}

/** Issue texts shorter than this are terse: a title and a line. */
export const TERSE_CHARS = 200;

/**
 * Profiles a task by its gold patch (source files only: a changelog entry is no part of the
 * fix) and its issue text. Scope: small is one file and at most 20 changed lines; large is
 * more than 100 lines, 4 or more files, or 3 or more modules; medium is the rest. Difficulty
 * adds a point per scope step, one for an issue with neither reproduction nor stack trace, and
 * one for a terse issue: 0-1 easy, 2 medium, 3-4 hard.
 */
export function profileTask(sourcePatch: string, issue: string): Profile {
  const proxies = measureDifficulty(sourcePatch, issue);
  const scope =
    proxies.goldLines > 100 || proxies.goldFiles >= 4 || proxies.modules >= 3
      ? "large"
      : proxies.goldFiles <= 1 && proxies.goldLines <= 20
        ? "small"
        : "medium";
  const description = proxies.hasStackTrace
    ? "stack-trace"
    : proxies.hasReproduction
      ? "reproduction"
      : proxies.descriptionChars < TERSE_CHARS
        ? "terse"
        : "prose";
  const points =
    DIMENSIONS.scope.indexOf(scope) +
    (description === "prose" || description === "terse" ? 1 : 0) +
    (description === "terse" ? 1 : 0);
  const difficulty = points <= 1 ? "easy" : points === 2 ? "medium" : "hard";
  return { ...proxies, scope, description, difficulty };
}

/** A target mix: class -> share of the suite, shares summing to 1. */
export interface Mix {
  readonly dimension: Dimension;
  readonly shares: Readonly<Record<string, number>>;
}

/** Parses `--mix small=0.5,medium=0.3,large=0.2` (shares or percentages; normalised to 1). */
export function parseMix(text: string, dimension: Dimension = "scope"): Mix {
  const classes: readonly string[] = DIMENSIONS[dimension];
  const shares: Record<string, number> = {};
  for (const part of text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")) {
    const match = /^([a-z-]+)\s*=\s*(\d+(?:\.\d+)?)%?$/.exec(part);
    const name = match?.[1];
    if (match === null || name === undefined || !classes.includes(name))
      throw new LabError(
        "CONFIG_INVALID",
        `--mix: "${part}" is not CLASS=SHARE for the ${dimension} dimension.`,
        {
          hint: `Classes of ${dimension}: ${classes.join(", ")}; e.g. --mix ${classes.map((c, i) => `${c}=${String([0.5, 0.3, 0.2, 0][i] ?? 0)}`).join(",")}.`,
        },
      );
    shares[name] = Number(match[2]);
  }
  const total = Object.values(shares).reduce((sum, share) => sum + share, 0);
  if (total <= 0)
    throw new LabError("CONFIG_INVALID", `--mix "${text}" gives no class a share.`, {
      hint: "Give at least one class a share above 0, e.g. --mix small=0.5,medium=0.3,large=0.2.",
    });
  for (const name of Object.keys(shares)) shares[name] = (shares[name] ?? 0) / total;
  return { dimension, shares };
}

/** Splits `total` tasks over the mix's classes (largest remainder), each at most `available[class]`. */
export function quotas(
  mix: Mix,
  total: number,
  available?: Readonly<Record<string, number>>,
): Record<string, number> {
  const entries = Object.entries(mix.shares);
  const result: Record<string, number> = {};
  const remainders: [string, number][] = [];
  let given = 0;
  for (const [name, share] of entries) {
    const exact = share * total;
    result[name] = Math.floor(exact);
    given += result[name];
    remainders.push([name, exact - Math.floor(exact)]);
  }
  remainders.sort((a, b) => b[1] - a[1]);
  for (const [name] of remainders) {
    if (given >= total) break;
    if ((mix.shares[name] ?? 0) === 0) continue;
    result[name] = (result[name] ?? 0) + 1;
    given++;
  }
  if (available !== undefined)
    for (const name of Object.keys(result))
      result[name] = Math.min(result[name] ?? 0, available[name] ?? 0);
  return result;
}

/**
 * The largest suite that keeps the mix exactly (within rounding) out of what is available: the
 * class that runs out first bounds it.
 */
export function largestMixedTotal(mix: Mix, available: Readonly<Record<string, number>>): number {
  let best = Number.POSITIVE_INFINITY;
  for (const [name, share] of Object.entries(mix.shares)) {
    if (share <= 0) continue;
    best = Math.min(best, Math.floor((available[name] ?? 0) / share + 1e-9));
  }
  return Number.isFinite(best) ? best : 0;
}

/** What one class of a dimension holds. */
export interface ClassRow {
  readonly name: string;
  readonly candidates: number;
  readonly kept: number;
  /** Share of the kept tasks, 0..1. */
  readonly share: number;
  /** Target share, with a mix on this dimension. */
  readonly target: number | null;
}

/** Counts candidates and kept tasks per class of a dimension. */
export function classRows(
  dimension: Dimension,
  candidates: readonly Profile[],
  kept: readonly Profile[],
  mix?: Mix,
): ClassRow[] {
  return DIMENSIONS[dimension].map((name) => {
    const keptCount = kept.filter((profile) => profile[dimension] === name).length;
    return {
      name,
      candidates: candidates.filter((profile) => profile[dimension] === name).length,
      kept: keptCount,
      share: kept.length === 0 ? 0 : keptCount / kept.length,
      target: mix?.dimension === dimension ? (mix.shares[name] ?? 0) : null,
    };
  });
}

/** Lines warning where the kept suite leans on one class or lacks one the candidates had. */
export function imbalanceWarnings(
  dimension: Dimension,
  rows: readonly ClassRow[],
  keptTotal: number,
): string[] {
  const warnings: string[] = [];
  if (keptTotal < 5) return warnings;
  for (const row of rows) {
    if (row.target !== null && Math.abs(row.share - row.target) > 0.1)
      warnings.push(
        `${dimension} "${row.name}" is ${percent(row.share)} of the suite against a target of ${percent(row.target)}.`,
      );
    else if (row.target === null && row.share > 0.6)
      warnings.push(`${dimension} "${row.name}" makes up ${percent(row.share)} of the suite.`);
    if (row.kept === 0 && row.candidates > 0)
      warnings.push(
        `no ${dimension} "${row.name}" task was kept (${String(row.candidates)} mined).`,
      );
  }
  return warnings;
}

/** A share as a whole percentage. */
export function percent(share: number): string {
  return `${String(Math.round(share * 100))}%`;
}
