import type { TrialResult } from "../core/index.js";

/** An amount in USD as the run's log says it. */
export function usd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}

/**
 * A run's spending cap (`--max-cost-total`): the cost its finished trials reported (earlier
 * invocations' too; a trial without one counts $0), and the trials it kept from starting.
 */
export function createBudget(maxCostUsd: number | undefined) {
  let spentUsd = 0;
  let reported = 0;
  let notStarted = 0;
  const isReached = (): boolean => maxCostUsd !== undefined && spentUsd >= maxCostUsd;
  return {
    add(result: TrialResult): void {
      if (result.telemetry.costUsd === undefined) return;
      spentUsd += result.telemetry.costUsd;
      reported++;
    },
    isReached,
    mayStart:
      maxCostUsd === undefined
        ? undefined
        : (): boolean => {
            if (!isReached()) return true;
            notStarted++;
            return false;
          },
    /** The stop to record, when the cap kept a trial from starting. */
    stop: () =>
      maxCostUsd === undefined || notStarted === 0 ? null : { maxCostUsd, spentUsd, notStarted },
    /** With a cap over finished trials, none of which reported a cost. */
    noneReported: (finished: number): boolean =>
      maxCostUsd !== undefined && finished > 0 && reported === 0,
    describe: (): string => `spent ${usd(spentUsd)} of --max-cost-total ${usd(maxCostUsd ?? 0)}`,
  };
}
