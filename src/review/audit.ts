import path from "node:path";
import { readAuditFile, suiteDirOf } from "../suite/index.js";

/**
 * The oracle audit of a task for its reviewer: the outcome and every variant of the gold patch
 * that survived (resolved the task), with how it differs from the gold patch. Only a person
 * can tell a survivor the tests should have caught from one equivalent to the fix.
 */
export async function renderAudit(oracleDir: string): Promise<string> {
  const suiteDir = suiteDirOf({ oracleDir });
  const taskId = path.basename(oracleDir);
  const audit = (await readAuditFile(suiteDir))?.tasks[taskId];
  const heading = "### Oracle audit (lab audit)";
  if (audit === undefined)
    return `${heading}\n\nNot audited yet: \`lab audit --suite ${path.basename(suiteDir)} --tasks ${taskId}\`.`;
  const { counts } = audit;
  const score = audit.score === null ? "–" : `${(audit.score * 100).toFixed(0)}%`;
  const survivors = audit.variants.filter((variant) => variant.result === "survived");
  const lines = [
    heading,
    "",
    `${audit.outcome}: mutation score ${score} (${String(counts.killed)} killed, ${String(counts.survived)} survived, ${String(counts.equivalent)} equivalent, ${String(counts.unviable)} unviable, ${String(counts.error)} errors).`,
  ];
  if (survivors.length > 0) {
    lines.push(
      "",
      "These wrong variants of the gold patch resolve the task. Judge each: a change the hidden tests should catch (weak tests), or one equivalent to the fix?",
    );
    for (const variant of survivors)
      lines.push(
        "",
        `#### ${variant.id}: ${variant.description}`,
        "",
        "```diff",
        variant.diff.trimEnd(),
        "```",
      );
  }
  return lines.join("\n");
}
