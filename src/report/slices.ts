import { LabError, type TaskInfo } from "../core/index.js";
import type { RunTasks } from "../store/index.js";
import { taskWeightedRate, wilsonIntervalOfRate, type TaskTally } from "./stats.js";
import type { TaskTrials } from "./summary.js";

/** One tool's trials in one slice. */
export interface SliceCell {
  readonly tool: string;
  /** Tasks of the slice the tool has graded trials on. */
  readonly tasks: number;
  /** Graded trials (infra errors left out). */
  readonly trials: number;
  readonly resolved: number;
  /** The mean of its tasks' resolve rates (resolved / trials when they have equal trials); null with no trials. */
  readonly rate: number | null;
  /** 95% Wilson interval of the rate, over trials (Kish's effective count with unequal trials). */
  readonly low: number;
  readonly high: number;
}

/** One value (or bucket) of a slicing field. */
export interface SliceRow {
  readonly value: string;
  /** Tasks with this value that any tool attempted. */
  readonly tasks: number;
  /** One cell per tool, in the report's tool order. */
  readonly cells: readonly SliceCell[];
}

/** A report sliced by one field. */
export interface SliceTable {
  /** "repo" or the metadata field. */
  readonly field: string;
  readonly title: string;
  /** The field in words, for the column of values ("stack trace in the issue", not hasStackTrace). */
  readonly column: string;
  readonly rows: readonly SliceRow[];
}

/** A tool's trials grouped by task, as slices read them. */
export interface SlicedTool {
  readonly label: string;
  readonly groups: readonly TaskTrials[];
}

type Value = string | number | boolean | null | undefined;

interface SliceDef {
  readonly field: string;
  readonly title: string;
  /** The field in words; by default the title's words after "By ". */
  readonly column?: string;
  readonly valueOf: (task: TaskInfo | undefined) => Value;
  /** Bucket labels in display order; values are bucketed by `bucket`. */
  readonly buckets?: readonly string[];
  readonly bucket?: (value: number) => string;
}

const UNKNOWN = "unknown";

function range(edges: readonly number[], labels: readonly string[]): (value: number) => string {
  return (value) => {
    const index = edges.findIndex((edge) => value <= edge);
    return labels[index === -1 ? labels.length - 1 : index] ?? UNKNOWN;
  };
}

const metadata =
  (field: string) =>
  (task: TaskInfo | undefined): Value =>
    task?.metadata[field];

/** The slices every report has when the tasks carry the field: repository and difficulty. */
const BUILT_IN: readonly SliceDef[] = [
  { field: "repo", title: "By repository", valueOf: (task) => task?.repo },
  {
    field: "goldLines",
    title: "By gold patch lines changed",
    valueOf: metadata("goldLines"),
    buckets: ["1–2", "3–10", "11–50", "51+"],
    bucket: range([2, 10, 50], ["1–2", "3–10", "11–50", "51+"]),
  },
  {
    field: "goldFiles",
    title: "By gold patch files changed",
    valueOf: metadata("goldFiles"),
    buckets: ["1", "2", "3–5", "6+"],
    bucket: range([1, 2, 5], ["1", "2", "3–5", "6+"]),
  },
  {
    field: "modules",
    title: "By modules spanned",
    valueOf: metadata("modules"),
    buckets: ["1", "2", "3+"],
    bucket: range([1, 2], ["1", "2", "3+"]),
  },
  {
    field: "hasReproduction",
    title: "By reproduction in the issue",
    valueOf: metadata("hasReproduction"),
  },
  {
    field: "hasStackTrace",
    title: "By stack trace in the issue",
    valueOf: metadata("hasStackTrace"),
  },
  {
    field: "oracleAudit",
    title: "By oracle audit outcome (lab audit)",
    valueOf: metadata("oracleAudit"),
    buckets: ["strong", "weak_tests", "no_variants", "error", "not audited"],
  },
];

/** More distinct numbers than this are cut into quartile buckets rather than listed. */
const MAX_NUMERIC_VALUES = 6;

/** Labels every task with its bucket of one field. */
function labelTasks(
  def: SliceDef,
  taskIds: readonly string[],
  tasks: RunTasks,
): Map<string, string> {
  const values = new Map(taskIds.map((id) => [id, def.valueOf(tasks[id])] as const));
  const numbers = [...values.values()].filter(
    (value): value is number => typeof value === "number",
  );
  const distinct = [...new Set(numbers)].sort((a, b) => a - b);
  let bucket = def.bucket;
  if (bucket === undefined && distinct.length > MAX_NUMERIC_VALUES) {
    // Quartiles of the tasks' values, each bucket labelled by the values it really holds.
    const sorted = [...numbers].sort((a, b) => a - b);
    const cut = [0.25, 0.5, 0.75].map((q) => sorted[Math.floor(q * (sorted.length - 1))] ?? 0);
    const quartile = (value: number): number => cut.filter((edge) => value > edge).length;
    const spans = new Map<number, [number, number]>();
    for (const value of distinct) {
      const q = quartile(value);
      const span = spans.get(q);
      spans.set(q, span === undefined ? [value, value] : [span[0], value]);
    }
    bucket = (value) => {
      const [low, high] = spans.get(quartile(value)) ?? [value, value];
      return low === high ? String(low) : `${String(low)}–${String(high)}`;
    };
  }
  const labels = new Map<string, string>();
  for (const [id, value] of values) {
    labels.set(
      id,
      value === null || value === undefined
        ? UNKNOWN
        : typeof value === "boolean"
          ? value
            ? "yes"
            : "no"
          : typeof value === "number" && bucket !== undefined
            ? bucket(value)
            : String(value),
    );
  }
  return labels;
}

/** Display order of a slice's values: declared buckets, then numbers, yes/no, text; unknown last. */
function orderValues(def: SliceDef, values: readonly string[]): string[] {
  const rank = (value: string): [number, number, string] => {
    if (value === UNKNOWN) return [4, 0, ""];
    const declared = def.buckets?.indexOf(value) ?? -1;
    if (declared !== -1) return [0, declared, ""];
    if (value === "yes" || value === "no") return [1, value === "yes" ? 0 : 1, ""];
    const number = Number.parseFloat(value);
    return Number.isNaN(number) ? [3, 0, value] : [2, number, ""];
  };
  return [...values].sort((a, b) => {
    const [ga, na, ta] = rank(a);
    const [gb, nb, tb] = rank(b);
    return ga - gb || na - nb || (ta < tb ? -1 : ta > tb ? 1 : 0);
  });
}

function sliceBy(def: SliceDef, tools: readonly SlicedTool[], tasks: RunTasks): SliceTable {
  const attempted = new Set<string>();
  for (const tool of tools)
    for (const group of tool.groups) if (group.graded.length > 0) attempted.add(group.taskId);
  const labels = labelTasks(def, [...attempted].sort(), tasks);
  const rows = orderValues(def, [...new Set(labels.values())]).map((value): SliceRow => {
    const cells = tools.map((tool): SliceCell => {
      const tallies: TaskTally[] = [];
      for (const group of tool.groups) {
        if (group.graded.length === 0 || labels.get(group.taskId) !== value) continue;
        tallies.push({
          trials: group.graded.length,
          resolved: group.graded.filter(Boolean).length,
        });
      }
      const trials = tallies.reduce((sum, tally) => sum + tally.trials, 0);
      const weighted = taskWeightedRate(tallies);
      const interval = wilsonIntervalOfRate(weighted.rate, weighted.effectiveTrials);
      return {
        tool: tool.label,
        tasks: tallies.length,
        trials,
        resolved: tallies.reduce((sum, tally) => sum + tally.resolved, 0),
        rate: trials === 0 ? null : weighted.rate,
        low: interval.low,
        high: interval.high,
      };
    });
    const taskCount = [...labels.values()].filter((label) => label === value).length;
    return { value, tasks: taskCount, cells };
  });
  return { field: def.field, title: def.title, column: def.column ?? columnOf(def.title), rows };
}

/** "By stack trace in the issue" -> "stack trace in the issue". */
function columnOf(title: string): string {
  return title.replace(/^By /, "");
}

/** A metadata field in words: "descriptionChars" -> "description chars", "has_tests" -> "has tests". */
export function fieldWords(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
}

/** Metadata fields (and "repo") that some task of the report has. */
export function sliceFields(tasks: RunTasks): string[] {
  const fields = new Set(["repo"]);
  for (const task of Object.values(tasks))
    for (const field of Object.keys(task.metadata)) fields.add(field);
  return [...fields].sort();
}

/**
 * The report's slices: repository and the difficulty buckets wherever the tasks carry the
 * field, then one per requested field (a metadata field of the tasks, or "repo").
 */
export function buildSlices(
  tools: readonly SlicedTool[],
  tasks: RunTasks,
  requested: readonly string[] = [],
): SliceTable[] {
  const known = sliceFields(tasks);
  const unknown = requested.filter((field) => !known.includes(field));
  if (unknown.length > 0) {
    throw new LabError(
      "USAGE",
      `--slice ${unknown.map((field) => `"${field}"`).join(", ")}: no task of the report has that field.`,
      {
        hint: `Fields the tasks have: ${known.join(", ")}. Runs made before lab kept tasks.json have none; rerun them to add it.`,
      },
    );
  }
  const hasValue = (def: SliceDef): boolean =>
    Object.values(tasks).some(
      (task) => def.valueOf(task) !== undefined && def.valueOf(task) !== null,
    );
  const defs = BUILT_IN.filter(hasValue);
  for (const field of new Set(requested)) {
    if (defs.some((def) => def.field === field && def.bucket === undefined)) continue;
    defs.push({
      field,
      title: `By ${field === "repo" ? "repository" : fieldWords(field)}`,
      valueOf: field === "repo" ? (task) => task?.repo : metadata(field),
    });
  }
  return defs.map((def) => sliceBy(def, tools, tasks));
}
