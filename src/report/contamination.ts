/**
 * The contamination slice: a tool's resolve rate on tasks whose fix is older than its model's
 * training cutoff (the fix may be in its training data) against tasks fixed after it, with a
 * test of the difference. A task's fix date is its `createdAt` (SWE-bench's created_at, when the
 * fixing pull request was opened) or `date` (a mined suite's fix commit); the cutoff comes from
 * lab.config.json's `"models"`, by the model the tool reported or by the tool's name.
 */
import type { TaskInfo } from "../core/index.js";
import type { RunTasks } from "../store/index.js";
import { percent, percentInterval, points, pValue } from "./format.js";
import { wilsonInterval } from "./stats.js";
import type { TaskTrials } from "./summary.js";
import { renderMarkdownTable } from "./tables.js";

/** One side of the cutoff. */
export interface CutoffSide {
  readonly tasks: number;
  readonly trials: number;
  readonly resolved: number;
  readonly rate: number | null;
  readonly low: number;
  readonly high: number;
}

/** One tool's trials split at its model's cutoff. */
export interface ContaminationRow {
  readonly tool: string;
  /** The model the cutoff belongs to (or the tool's name, when declared by it). */
  readonly model: string;
  /** As declared: "2025-03" or "2025-03-31". */
  readonly cutoff: string;
  readonly before: CutoffSide;
  readonly after: CutoffSide;
  /** before - after, in rate; null when a side has no trials. */
  readonly difference: number | null;
  readonly pValue: number | null;
  readonly test: "fisher" | "permutation" | null;
  readonly significant: boolean;
  readonly sentence: string;
}

/** The contamination part of a report. */
export interface ContaminationReport {
  readonly rows: readonly ContaminationRow[];
  /** Why some tool has no row, or some task no side. */
  readonly notes: readonly string[];
}

/** A task's fix date (ISO), from its metadata; undefined when it has none. */
export function fixDateOf(task: TaskInfo | undefined): string | undefined {
  const value = task?.metadata.createdAt ?? task?.metadata.date;
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) ? value : undefined;
}

/** The first instant after a cutoff: the next month's first day, or the next day. */
export function afterCutoff(cutoff: string): string {
  const [year = 0, month = 1, day] = cutoff.split("-").map(Number);
  const next =
    day === undefined
      ? new Date(Date.UTC(year, month, 1))
      : new Date(Date.UTC(year, month - 1, day + 1));
  return next.toISOString();
}

/** The cutoff that applies to a tool: by the model it reported (exact, or a declared prefix), else by its name. */
function cutoffFor(
  label: string,
  model: string | null,
  cutoffs: Readonly<Record<string, { readonly cutoff: string }>>,
): { model: string; cutoff: string } | null {
  if (model !== null) {
    const key = Object.hasOwn(cutoffs, model)
      ? model
      : Object.keys(cutoffs)
          .filter((name) => model.startsWith(name))
          .sort((a, b) => b.length - a.length)[0];
    if (key !== undefined)
      return { model: key, cutoff: (cutoffs[key] as { cutoff: string }).cutoff };
  }
  const byTool = cutoffs[label];
  return byTool === undefined ? null : { model: label, cutoff: byTool.cutoff };
}

/** Builds the contamination slice of some tools' trials, grouped by task. */
export function buildContamination(
  tools: readonly { readonly label: string; readonly groups: readonly TaskTrials[] }[],
  tasks: RunTasks,
  cutoffs: Readonly<Record<string, { readonly cutoff: string }>>,
  options: { readonly level: number; readonly seed: number },
): ContaminationReport {
  const notes: string[] = [];
  const rows: ContaminationRow[] = [];
  if (Object.keys(cutoffs).length === 0) return { rows, notes };
  for (const { label, groups } of tools) {
    const models = new Map<string, number>();
    for (const row of groups.flatMap((group) => group.rows))
      if (row.model !== null) models.set(row.model, (models.get(row.model) ?? 0) + 1);
    const model = [...models].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    const found = cutoffFor(label, model, cutoffs);
    if (found === null) {
      notes.push(
        `${label}: ${model === null ? "reported no model" : `model ${model}`} has no cutoff in lab.config.json's "models".`,
      );
      continue;
    }
    const boundary = afterCutoff(found.cutoff);
    const before: TaskTrials[] = [];
    const after: TaskTrials[] = [];
    let undated = 0;
    for (const group of groups) {
      if (group.graded.length === 0) continue;
      const date = fixDateOf(tasks[group.taskId]);
      if (date === undefined) undated++;
      else (new Date(date).toISOString() < boundary ? before : after).push(group);
    }
    if (undated > 0)
      notes.push(`${label}: ${String(undated)} task(s) without a fix date are left out.`);
    rows.push(compareSides(label, found, before, after, options));
  }
  return { rows, notes };
}

function side(groups: readonly TaskTrials[]): CutoffSide {
  const trials = groups.reduce((sum, group) => sum + group.graded.length, 0);
  const resolved = groups.reduce((sum, group) => sum + group.graded.filter(Boolean).length, 0);
  const interval = wilsonInterval(resolved, trials);
  return {
    tasks: groups.length,
    trials,
    resolved,
    rate: trials === 0 ? null : resolved / trials,
    low: interval.low,
    high: interval.high,
  };
}

function compareSides(
  label: string,
  found: { model: string; cutoff: string },
  beforeGroups: readonly TaskTrials[],
  afterGroups: readonly TaskTrials[],
  options: { readonly level: number; readonly seed: number },
): ContaminationRow {
  const before = side(beforeGroups);
  const after = side(afterGroups);
  const head = `${label} (${found.model}, cutoff ${found.cutoff})`;
  if (before.rate === null || after.rate === null) {
    return {
      tool: label,
      ...found,
      before,
      after,
      difference: null,
      pValue: null,
      test: null,
      significant: false,
      sentence: `${head}: no graded task ${before.rate === null ? "was fixed before" : "was fixed after"} the cutoff; nothing to compare.`,
    };
  }
  const single = [...beforeGroups, ...afterGroups].every((group) => group.graded.length === 1);
  const p = single
    ? fisherExact(
        before.resolved,
        before.trials - before.resolved,
        after.resolved,
        after.trials - after.resolved,
      )
    : permutationTest(beforeGroups.map(taskRate), afterGroups.map(taskRate), options.seed);
  const difference = before.rate - after.rate;
  const significant = p < options.level;
  const test = single ? "Fisher's exact test" : "permutation test on per-task rates";
  return {
    tool: label,
    ...found,
    before,
    after,
    difference,
    pValue: p,
    test: single ? "fisher" : "permutation",
    significant,
    sentence: `${head}: ${percent(before.rate)} on ${String(before.tasks)} task(s) fixed before the cutoff against ${percent(after.rate)} on ${String(after.tasks)} after, ${points(difference)} points, ${pValue(p)} (${test}): ${
      significant
        ? difference > 0
          ? `significant at the ${String(options.level)} level; tasks older than the cutoff may be in its training data.`
          : `significant at the ${String(options.level)} level, and in favour of the newer tasks.`
        : `not significant at the ${String(options.level)} level.`
    }`,
  };
}

function taskRate(group: TaskTrials): number {
  return group.graded.filter(Boolean).length / group.graded.length;
}

/** log(n!) by summing, cached: tables here have at most a few thousand trials. */
const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++)
    logFactorials.push((logFactorials[i - 1] as number) + Math.log(i));
  return logFactorials[n] as number;
}

/**
 * Two-sided Fisher's exact test of the 2x2 table [[a, b], [c, d]]: the sum of the
 * probabilities of every table with the same margins that is no more likely than this one
 * (as scipy.stats.fisher_exact computes it).
 */
export function fisherExact(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const col1 = a + c;
  const n = a + b + c + d;
  const logP = (x: number): number =>
    logFactorial(row1) +
    logFactorial(n - row1) +
    logFactorial(col1) +
    logFactorial(n - col1) -
    logFactorial(n) -
    logFactorial(x) -
    logFactorial(row1 - x) -
    logFactorial(col1 - x) -
    logFactorial(n - row1 - col1 + x);
  const observed = logP(a);
  let p = 0;
  for (let x = Math.max(0, row1 + col1 - n); x <= Math.min(row1, col1); x++) {
    const here = logP(x);
    // The relative tolerance scipy uses, so tables as likely as the observed one count.
    if (here <= observed + 1e-7) p += Math.exp(here);
  }
  return Math.min(1, p);
}

/** Two-sided permutation test of the difference of means, 10 000 seeded shuffles. */
export function permutationTest(x: readonly number[], y: readonly number[], seed: number): number {
  const all = [...x, ...y];
  const mean = (values: readonly number[]): number =>
    values.reduce((sum, value) => sum + value, 0) / values.length;
  const observed = Math.abs(mean(x) - mean(y));
  let state = seed >>> 0 || 1;
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const rounds = 10_000;
  let extreme = 0;
  for (let round = 0; round < rounds; round++) {
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [all[i], all[j]] = [all[j] as number, all[i] as number];
    }
    if (Math.abs(mean(all.slice(0, x.length)) - mean(all.slice(x.length))) >= observed - 1e-12)
      extreme++;
  }
  return (extreme + 1) / (rounds + 1);
}

/** The contamination section of the Markdown report; empty when no cutoff is declared. */
export function renderContaminationMarkdown(contamination: ContaminationReport): string {
  if (contamination.rows.length === 0 && contamination.notes.length === 0) return "";
  const cell = (value: CutoffSide): string =>
    value.trials === 0
      ? "–"
      : `${percent(value.rate)} ${percentInterval(value.low, value.high)} (${String(value.resolved)}/${String(value.trials)})`;
  const table = renderMarkdownTable(
    ["tool", "model", "cutoff", "fixed before", "fixed after", "difference", "p", "significant"],
    contamination.rows.map((row) => [
      row.tool,
      row.model,
      row.cutoff,
      cell(row.before),
      cell(row.after),
      row.difference === null ? "–" : points(row.difference),
      row.pValue === null ? "–" : pValue(row.pValue).replace("p = ", ""),
      row.significant ? "yes" : "no",
    ]),
    [false, false, false, true, true, true, true, false],
  );
  const lines = [
    ...contamination.rows.map((row) => `- ${row.sentence}`),
    ...contamination.notes.map((note) => `- ${note}`),
  ];
  return `### Contamination: tasks fixed before and after the model's training cutoff\n\n${table}\n\n${lines.join("\n")}\n`;
}
