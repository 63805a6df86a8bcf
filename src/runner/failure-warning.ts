import {
  describeFailurePattern,
  inferInfraClass,
  mentionsTmpPath,
  sourceName,
  type ChangeSource,
  type TrialFailureFacts,
  type TrialResult,
} from "../core/index.js";
import { readCappedText, trialPaths, type RunPaths } from "../store/index.js";

/** What a record says about how its trial ended, for core's failure words. */
export function failureFacts(result: TrialResult): TrialFailureFacts {
  const { outcome } = result;
  return {
    kind: outcome.kind,
    exitCode: result.toolExit?.exitCode ?? null,
    signal: result.toolExit?.signal ?? null,
    limit: result.toolExit?.limit ?? null,
    patchEmpty: result.patchEmpty,
    infraClass:
      outcome.kind === "infra_error"
        ? (outcome.class ?? inferInfraClass(outcome.message) ?? "unclassified")
        : null,
  };
}

/**
 * The end-of-run warning when most of a run's trials ended the same bad way, naming the likely
 * cause (core's describeFailurePattern); null when they did not. The cause of an exit 127 is
 * sharper when the command line or a failed trial's tool log names a path under /tmp, which
 * every sandbox replaces with a private one.
 */
export function failureWarning(
  results: readonly TrialResult[],
  source: ChangeSource,
  run: RunPaths,
): string | null {
  const described = source.kind === "tool" ? source.tool.description : "";
  const mentionsTmp =
    mentionsTmpPath(described) ||
    results
      .filter((result) => result.toolExit?.exitCode === 127)
      .slice(0, 3)
      .some((result) => {
        const log = readCappedText(
          trialPaths(run, result.taskId, result.trial).toolLog,
          8192,
          "tail",
        );
        return log !== null && mentionsTmpPath(log.text);
      });
  return describeFailurePattern(
    results.map(failureFacts),
    { mentionsTmp, stated: source.kind === "stated" },
    {
      expectsEmpty: sourceName(source) === "noop",
    },
  );
}
