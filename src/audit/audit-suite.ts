import type { AuditFile, AuditVariant, TaskAudit } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { withLock } from "../store/index.js";
import {
  loadOracle,
  loadTask,
  readAuditFile,
  suiteLayout,
  writeAuditFile,
  type Suite,
} from "../suite/index.js";
import { auditFingerprint, auditTask } from "./audit-task.js";

/** How `auditSuite` audits. */
export interface AuditSuiteOptions {
  /** Only these tasks; default: every task of the suite. */
  readonly taskIds?: readonly string[] | undefined;
  readonly environment: EnvironmentOptions;
  /** Mutants graded per task at most. */
  readonly mutants: number;
  readonly concurrency: number;
  readonly testTimeoutMs: number;
  /** Audit again tasks whose audit is current. */
  readonly force: boolean;
  readonly labVersion: string;
  readonly signal?: AbortSignal | undefined;
  /** Told when a task starts, with its variants' grades, and when it ends or was current. */
  readonly onTask?:
    | ((event: {
        taskId: string;
        index: number;
        total: number;
        audit?: TaskAudit;
        reused?: boolean;
      }) => void)
    | undefined;
  readonly onVariant?: ((taskId: string, variant: AuditVariant) => void) | undefined;
}

/**
 * Audits a suite's tasks one after another and writes each result to the suite's audit.json
 * as soon as it is known, so an interrupted audit loses at most the task in progress; a task
 * whose audit is current (same fingerprint) is not audited again unless forced.
 */
export async function auditSuite(
  suite: Suite,
  options: AuditSuiteOptions,
): Promise<{ audits: TaskAudit[]; file: string }> {
  const loaded = [];
  for (const id of options.taskIds ?? suite.taskIds) {
    const task = await loadTask(suite, id);
    loaded.push({ task, oracle: await loadOracle(task) });
  }
  const existing = await readAuditFile(suite.dir);
  let tasks: Record<string, TaskAudit> = { ...(existing?.tasks ?? {}) };
  const audits: TaskAudit[] = [];
  for (const [index, { task, oracle }] of loaded.entries()) {
    const id = task.info.id;
    const earlier = tasks[id];
    const event = { taskId: id, index: index + 1, total: loaded.length };
    if (
      !options.force &&
      earlier !== undefined &&
      earlier.outcome !== "error" &&
      earlier.fingerprint === auditFingerprint(oracle, options.mutants)
    ) {
      audits.push(earlier);
      options.onTask?.({ ...event, audit: earlier, reused: true });
      continue;
    }
    options.onTask?.(event);
    const audit = await auditTask(task, oracle, {
      environment: options.environment,
      mutants: options.mutants,
      concurrency: options.concurrency,
      testTimeoutMs: options.testTimeoutMs,
      signal: options.signal,
      onVariant: (variant) => options.onVariant?.(id, variant),
    });
    audits.push(audit);
    // Read again under a lock: another audit of the suite (other tasks) may have written since.
    await withLock(suiteLayout(suite.dir).auditFile, async () => {
      tasks = { ...((await readAuditFile(suite.dir))?.tasks ?? tasks), [id]: audit };
      const file: AuditFile = {
        schemaVersion: 1,
        suite: suite.name,
        labVersion: options.labVersion,
        updatedAt: new Date().toISOString(),
        tasks,
      };
      await writeAuditFile(suite.dir, file);
    });
    options.onTask?.({ ...event, audit });
  }
  return { audits, file: suiteLayout(suite.dir).auditFile };
}
