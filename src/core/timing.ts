/** Times named phases of a piece of work (a trial, a grade) into one record. */
export interface PhaseTimer {
  /** Milliseconds per phase, filled as phases end (a phase run twice keeps its last time). */
  readonly phaseMs: Record<string, number>;
  /** Runs `work` as phase `name`, recording its time even when it throws. */
  timed<T>(name: string, work: () => Promise<T>): Promise<T>;
}

/** A phase timer; `onStart` is told each phase's name as it begins (progress events). */
export function createPhaseTimer(onStart?: (name: string) => void): PhaseTimer {
  const phaseMs: Record<string, number> = {};
  return {
    phaseMs,
    async timed(name, work) {
      onStart?.(name);
      const start = performance.now();
      try {
        return await work();
      } finally {
        phaseMs[name] = Math.round(performance.now() - start);
      }
    },
  };
}
