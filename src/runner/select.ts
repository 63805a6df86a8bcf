import { LabError, type ChangeSource } from "../core/index.js";
import { restrictToValidTasks } from "../review/index.js";
import { readAuditFile, suiteLayout, type Suite } from "../suite/index.js";

/** The tasks a run attempts, and what the user should be told about the choice. */
export interface TaskSelection {
  /** Task ids to run, in the order asked for. */
  readonly taskIds: readonly string[];
  /** Lines for the run's log: predictions not graded, tasks left out by --valid-only. */
  readonly notes: readonly { readonly level: "info" | "warn"; readonly message: string }[];
}

/**
 * Chooses a run's tasks from its suite: the ones asked for (default: every task), narrowed to
 * those the stated changes name, and to those reviewed as valid with `validOnly`. Unknown ids
 * asked for by the user pass through, so loading them fails with the suite's own message.
 */
export async function selectTasks(
  suite: Suite,
  options: {
    readonly requested: readonly string[] | undefined;
    readonly validOnly: boolean;
    readonly strongOnly?: boolean | undefined;
    readonly source: ChangeSource;
  },
): Promise<TaskSelection> {
  const notes: { level: "info" | "warn"; message: string }[] = [];
  const { requested } = options;
  let taskIds: readonly string[] | undefined =
    requested === undefined ? undefined : [...new Set(requested)];
  // A task named twice would run its trials twice at once, into the same folders.
  const twice = new Set(requested?.filter((id, index) => requested.indexOf(id) !== index));
  if (twice.size > 0)
    notes.push({
      level: "warn",
      message: `--tasks names ${[...twice].join(", ")} more than once; each task runs once (--trials K runs it K times)`,
    });
  const { source } = options;
  if (source.kind === "stated") {
    const known = new Set(suite.taskIds);
    const unknown = source.taskIds.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      notes.push({
        level: "warn",
        message: `${String(unknown.length)} prediction(s) name instances not in suite "${suite.name}" and are not graded: ${unknown.slice(0, 10).join(", ")}${unknown.length > 10 ? ", ..." : ""}`,
      });
    }
    const graded = source.taskIds.filter(
      (id) => known.has(id) && (taskIds === undefined || taskIds.includes(id)),
    );
    if (graded.length === 0) {
      throw new LabError(
        "TASK_NOT_FOUND",
        `No prediction in ${source.origin} names a task of suite "${suite.name}".`,
        { hint: `List the suite's tasks with \`lab scenarios --suite ${suite.name}\`.` },
      );
    }
    taskIds = graded;
  }
  if (options.validOnly) {
    const selection = await restrictToValidTasks(suite, taskIds);
    notes.push({ level: "info", message: selection.summary });
    taskIds = selection.taskIds;
  }
  if (options.strongOnly === true) {
    const selection = await restrictToStrongTasks(suite, taskIds);
    notes.push({ level: "info", message: selection.summary });
    taskIds = selection.taskIds;
  }
  taskIds ??= suite.taskIds;
  if (taskIds.length === 0) {
    throw new LabError("SUITE_NOT_FOUND", `Suite "${suite.name}" has no tasks in ${suite.dir}.`, {
      hint: `Generate it with \`lab gen --suite ${suite.name}\`.`,
    });
  }
  return { taskIds, notes };
}

/**
 * The tasks (of those asked for) that the suite's oracle audit calls strong: every wrong
 * variant of their gold patch was caught by their hidden tests. Fails when there is no audit.
 */
async function restrictToStrongTasks(
  suite: Suite,
  requested: readonly string[] | undefined,
): Promise<{ taskIds: string[]; summary: string }> {
  const audit = await readAuditFile(suite.dir);
  if (audit === undefined)
    throw new LabError(
      "TASK_NOT_FOUND",
      `--strong-only: suite "${suite.name}" has no oracle audit (${suiteLayout(suite.dir).auditFile}).`,
      { hint: `Audit its tasks first: lab audit --suite ${suite.name}.` },
    );
  const pool = requested ?? suite.taskIds;
  const taskIds = pool.filter((id) => audit.tasks[id]?.outcome === "strong");
  const counts = new Map<string, number>();
  for (const id of pool) {
    const outcome = audit.tasks[id]?.outcome ?? "not audited";
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  }
  const left = [...counts]
    .filter(([outcome]) => outcome !== "strong")
    .map(([outcome, count]) => `${String(count)} ${outcome}`);
  return {
    taskIds,
    summary: `--strong-only: ${String(taskIds.length)} of ${String(pool.length)} task(s) passed the oracle audit${left.length === 0 ? "" : ` (left out: ${left.join(", ")})`}`,
  };
}
