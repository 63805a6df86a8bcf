import type { RunTasks } from "../../store/index.js";
import type { SuiteReport, TrialCell } from "../model.js";
import { escapeHtml } from "./escape.js";
import { toolName } from "./sections.js";

/** Where each trial's details are in the page's data: tool index, task id, trial -> index. */
export type DetailIndex = ReadonlyMap<string, number>;

/** The key of a trial in a DetailIndex. */
export function detailKey(toolIndex: number, taskId: string, trial: number): string {
  return `${String(toolIndex)}\u0000${taskId}\u0000${String(trial)}`;
}

const STATUS_WORDS: Record<TrialCell["status"], string> = {
  resolved: "resolved",
  unresolved: "unresolved",
  infra_error: "infrastructure error (not counted)",
};

const KIND_WORDS: Partial<Record<TrialCell["kind"], string>> = {
  tool_timeout: ", tool timed out",
  tool_crashed: ", tool crashed",
};

/** The shade of a cell by its resolve rate: r0 none, r1 under half, r2 half or more, r3 all. */
function shade(resolved: number, trials: number): string {
  if (trials === 0) return "rn";
  if (resolved === 0) return "r0";
  if (resolved === trials) return "r3";
  return resolved / trials < 0.5 ? "r1" : "r2";
}

/**
 * The per-task grid: a row per task, a column per tool, a square per trial (colored by its
 * outcome, the cell shaded by the task's resolve rate). Each square opens its trial.
 */
export function renderGridSection(
  report: SuiteReport,
  tasks: RunTasks,
  details: DetailIndex,
): string {
  const lines = report.tools.map((tool) => new Map(tool.tasks.map((line) => [line.taskId, line])));
  const rows = report.taskIds.map((taskId) => {
    const info = tasks[taskId];
    const cells = report.tools.map((tool, toolIndex) => {
      const line = lines[toolIndex]?.get(taskId);
      if (line === undefined) return `<td class="cell rn"><span class="none">not run</span></td>`;
      const buttons = line.cells
        .map((cell) => {
          const index = details.get(detailKey(toolIndex, taskId, cell.trial));
          const label = `${tool.label} · ${taskId} · trial ${String(cell.trial)}: ${STATUS_WORDS[cell.status]}${KIND_WORDS[cell.kind] ?? ""}`;
          const marked =
            cell.kind === "tool_timeout" || cell.kind === "tool_crashed" ? " marked" : "";
          return `<button type="button" class="t ${cell.status}${marked}" data-trial="${String(index ?? -1)}" title="${escapeHtml(label)}" aria-label="${escapeHtml(label)}"></button>`;
        })
        .join("");
      const count = `${String(line.resolved)}/${String(line.trials)}`;
      return `<td class="cell ${shade(line.resolved, line.trials)}"><span class="trials">${buttons}</span><span class="count">${escapeHtml(count)}</span></td>`;
    });
    const repo = info === undefined ? "" : `<span class="repo">${escapeHtml(info.repo)}</span>`;
    return `<tr><th scope="row" class="task"><span class="task-id">${escapeHtml(taskId)}</span>${repo}</th>${cells.join("")}</tr>`;
  });
  const header = report.tools
    .map((tool, index) => `<th>${toolName(tool, index).html}</th>`)
    .join("");
  const legend = `<div class="grid-legend"><span><i class="t resolved"></i>resolved</span><span><i class="t unresolved"></i>unresolved</span><span><i class="t unresolved marked"></i>timed out or crashed</span><span><i class="t infra_error"></i>infrastructure error</span><span class="hint">Click a square for the trial's patch, logs and transcript.</span></div>`;
  return `<section id="tasks"><h2>Tasks</h2>${legend}<div class="table-wrap grid-wrap"><table class="grid" id="task-grid"><thead><tr><th>task</th>${header}</tr></thead><tbody>${rows.join("")}</tbody></table></div></section>`;
}
