import path from "node:path";
import type { Outcome, Telemetry, TrialResult } from "../../core/index.js";
import {
  listTranscripts,
  readCappedText,
  readStoredSync,
  trialPaths,
  trialResultSchema,
} from "../../store/index.js";
import type { LoadedRun } from "../load.js";

/** One file shown for a trial. */
export interface TrialFile {
  /** Tab name: "patch", "tool.log", "grader.log", or the transcript's file name. */
  readonly name: string;
  /** Where it is, relative to the runs folder. */
  readonly path: string;
  /** The text embedded in the page; null when the file is missing or not embedded. */
  readonly text: string | null;
  /** Why the text is partial or absent, shown above it. */
  readonly note: string | null;
}

/** One trial as the page shows it when its grid cell is clicked. */
export interface TrialDetail {
  readonly tool: string;
  readonly taskId: string;
  readonly trial: number;
  readonly outcome: Outcome;
  readonly resolved: boolean | null;
  readonly patchApplied: boolean | null;
  /** The change was empty: the page says "no change", not "patch applied: no". */
  readonly patchEmpty: boolean | null;
  readonly reason: string | null;
  readonly durationMs: number;
  readonly phaseMs: Readonly<Record<string, number>>;
  readonly telemetry: Telemetry;
  readonly files: readonly TrialFile[];
}

/** Limits on what the page embeds, so a huge log cannot make a page no browser opens. */
export interface DetailLimits {
  /** Bytes kept of each file: a patch's start, a log's end. 128 KiB by default. */
  readonly fileBytes?: number;
  /** Bytes of file text over the whole page; later trials get notes instead. 48 MiB by default. */
  readonly pageBytes?: number;
}

function sizeOf(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${String(bytes)} bytes`;
}

/**
 * Reads what the page shows of every trial (in the order of `labels` then the runs' rows):
 * the patch as graded, tool.log, grader.log and any artifacts/transcript* file, each capped.
 */
export function readTrialDetails(
  runs: readonly LoadedRun[],
  labels: readonly string[],
  limits: DetailLimits = {},
): TrialDetail[] {
  const fileBytes = limits.fileBytes ?? 128 * 1024;
  let budget = limits.pageBytes ?? 48 * 1024 * 1024;
  const details: TrialDetail[] = [];
  runs.forEach((run, index) => {
    const runsDir = path.dirname(run.paths.dir);
    for (const row of run.trials) {
      const paths = trialPaths(run.paths, row.taskId, row.trial);
      const sources: { name: string; file: string; keep: "head" | "tail" }[] = [
        { name: "patch", file: paths.patch, keep: "head" },
        { name: "tool.log", file: paths.toolLog, keep: "tail" },
        { name: "grader.log", file: paths.graderLog, keep: "tail" },
        ...listTranscripts(paths).map((file) => ({
          name: path.basename(file),
          file,
          keep: "head" as const,
        })),
      ];
      const files = sources.map(({ name, file, keep }): TrialFile => {
        const where = path.relative(runsDir, file);
        if (budget <= 0)
          return {
            name,
            path: where,
            text: null,
            note: `Not embedded: this page's size budget is spent. Open ${where} in the runs folder.`,
          };
        const read = readCappedText(file, Math.min(fileBytes, budget), keep);
        if (read === null)
          return {
            name,
            path: where,
            text: null,
            note:
              name === "patch"
                ? "No patch: the trial ended before its change was taken."
                : "No such file.",
          };
        budget -= read.text.length;
        const note = read.isCut
          ? `${sizeOf(read.bytes)}, cut: showing the ${keep === "head" ? "first" : "last"} ${sizeOf(Buffer.byteLength(read.text))}. The whole file is ${where} in the runs folder.`
          : read.bytes > 0
            ? null
            : name === "patch"
              ? "Empty: the tool changed nothing."
              : "Empty.";
        return { name, path: where, text: read.text, note };
      });
      // The index holds only the figures a report counts; the page shows the whole record.
      const result = readStoredSync(paths.result, trialResultSchema) as TrialResult;
      details.push({
        tool: labels[index] ?? run.record.tool,
        taskId: row.taskId,
        trial: row.trial,
        outcome: result.outcome,
        resolved: result.resolved,
        patchApplied: result.patchApplied,
        patchEmpty: result.patchEmpty,
        reason: result.grade?.reason ?? null,
        durationMs: result.durationMs,
        phaseMs: result.phaseMs,
        telemetry: result.telemetry,
        files,
      });
    }
  });
  return details;
}
