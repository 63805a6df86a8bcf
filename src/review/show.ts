import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../core/index.js";
import { renderMarkdownTable } from "../report/index.js";
import { GROUND_RULES, loadTask, type Suite } from "../suite/index.js";
import { renderAudit } from "./audit.js";
import type { Review } from "./schema.js";
import { currentReviews, readReviews } from "./store.js";
import { judgeTask } from "./validity.js";

/** One line for a review: "alice's review of ID: clear, adequate, 1 alternative fix, difficulty 3". */
export function describeReview(review: Review): string {
  return `${review.reviewer}'s review of ${review.task}: ${review.clarity}, tests ${review.tests}, ${String(review.alternatives)} alternative fix(es), difficulty ${String(review.difficulty)}${review.notes === "" ? "" : ` (${JSON.stringify(review.notes)})`}`;
}

/** The issue text (without the ground rules every prompt ends with) and, on request, the oracle. */
export async function renderTask(
  suite: Suite,
  taskId: string,
  show: { readonly gold: boolean; readonly tests: boolean },
): Promise<string> {
  const task = await loadTask(suite, taskId);
  const issue = task.prompt.endsWith(GROUND_RULES)
    ? task.prompt.slice(0, -GROUND_RULES.length).trimEnd()
    : task.prompt.trimEnd();
  const facts = Object.entries(task.info.metadata)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(" ");
  const parts = [
    `## ${taskId}`,
    `repo ${task.info.repo} at ${task.info.baseCommit.slice(0, 10)}${facts === "" ? "" : `; ${facts}`}`,
    "",
    "### Issue",
    "",
    issue,
  ];
  if (show.gold) parts.push("", await renderGold(task.oracleDir));
  if (show.tests) parts.push("", await renderTests(task.oracleDir));
  return `${parts.join("\n").trimEnd()}\n`;
}

/** The gold patch, under a heading. */
export async function renderGold(oracleDir: string): Promise<string> {
  return `### Gold patch\n\n${await readOracleFile(oracleDir, "gold.patch")}`;
}

/**
 * The hidden tests: FAIL_TO_PASS, the PASS_TO_PASS count and the test patch, under a heading,
 * then the oracle audit's survivors.
 */
export async function renderTests(oracleDir: string): Promise<string> {
  const lists = JSON.parse(await readOracleFile(oracleDir, "tests.json")) as {
    FAIL_TO_PASS?: string[];
    PASS_TO_PASS?: string[];
  };
  return [
    "### Hidden tests",
    "",
    `FAIL_TO_PASS (${String(lists.FAIL_TO_PASS?.length ?? 0)}): ${(lists.FAIL_TO_PASS ?? []).join(" ")}`,
    `PASS_TO_PASS: ${String(lists.PASS_TO_PASS?.length ?? 0)} test(s)`,
    "",
    await readOracleFile(oracleDir, "test.patch"),
    "",
    await renderAudit(oracleDir),
  ].join("\n");
}

async function readOracleFile(oracleDir: string, name: string): Promise<string> {
  const file = path.join(oracleDir, name);
  if (!existsSync(file))
    throw new LabError("TASK_INVALID", `${file} is missing.`, {
      hint: "An oracle folder holds gold.patch, test.patch, tests.json and environment.json; see evals/README.md.",
    });
  return (await readFile(file, "utf8")).trimEnd();
}

/** Every task of the suite with its current reviewers and verdict, and how to go on. */
export async function renderStatus(suite: Suite): Promise<string> {
  const current = currentReviews(await readReviews(suite.dir));
  const rows = suite.taskIds.map((id) => {
    const list = current.get(id) ?? [];
    const verdict = judgeTask(list);
    return [
      id,
      list.map((review) => review.reviewer).join(", "),
      verdict.status === "flagged" ? `flagged (${verdict.reasons.join("; ")})` : verdict.status,
    ];
  });
  const reviewed = rows.filter((row) => row[1] !== "").length;
  return `${renderMarkdownTable(["task", "reviewers", "verdict"], rows)}\n\n${String(reviewed)} of ${String(suite.taskIds.length)} task(s) of ${suite.name} reviewed. Show one with \`--task ID\`; review on a terminal, or record with \`--task ID --reviewer NAME --clarity C --tests T --alternatives N --difficulty D\`.\n`;
}
