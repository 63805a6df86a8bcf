import { existsSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { auditFileSchema, type AuditFile, type AuditOutcome } from "../core/index.js";
import { suiteLayout } from "./layout.js";
import { readJson } from "./load.js";

/** A suite's audit.json through its schema, or undefined when `lab audit` has written none. */
export async function readAuditFile(suiteDir: string): Promise<AuditFile | undefined> {
  const { auditFile } = suiteLayout(suiteDir);
  if (!existsSync(auditFile)) return undefined;
  return readJson(
    auditFile,
    auditFileSchema,
    "audit.json is lab audit's record: fix it, or delete it and run `lab audit` again.",
  );
}

/** Writes a suite's audit.json atomically (a temporary file, then a rename). */
export async function writeAuditFile(suiteDir: string, audit: AuditFile): Promise<void> {
  const { auditFile } = suiteLayout(suiteDir);
  const temporary = `${auditFile}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(audit, null, 2)}\n`);
  await rename(temporary, auditFile);
}

/** Each audited task's outcome, from a suite's audit.json (empty without one). */
export async function readAuditOutcomes(suiteDir: string): Promise<Record<string, AuditOutcome>> {
  const audit = await readAuditFile(suiteDir);
  return Object.fromEntries(
    Object.entries(audit?.tasks ?? {}).map(([id, task]) => [id, task.outcome]),
  );
}
