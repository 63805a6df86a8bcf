import type { AuditOutcome } from "../core/index.js";
import type { RunTasks } from "../store/index.js";

/** The task metadata field the report slices the oracle audit's outcomes by. */
export const AUDIT_FIELD = "oracleAudit";

/**
 * The report's task facts with each task's oracle audit outcome (`lab audit`) as the metadata
 * field AUDIT_FIELD ("not audited" for a task the audit has not reached); unchanged when the
 * suite has no audit.
 */
export function withAuditOutcomes(
  tasks: RunTasks,
  outcomes: Readonly<Record<string, AuditOutcome>>,
): RunTasks {
  if (Object.keys(outcomes).length === 0) return tasks;
  return Object.fromEntries(
    Object.entries(tasks).map(([id, task]) => [
      id,
      { ...task, metadata: { ...task.metadata, [AUDIT_FIELD]: outcomes[id] ?? "not audited" } },
    ]),
  );
}
