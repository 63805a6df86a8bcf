import type { Tool } from "../core/index.js";

/** Changes nothing: the floor every tool must beat, and a check that hidden tests fail unfixed. */
export function createNoopTool(): Tool {
  return {
    name: "noop",
    description: "Changes nothing (baseline: resolves no valid task).",
    readsOracle: false,
    fingerprint: "noop",
    detectVersion: () => Promise.resolve("1"),
    checkReady: () => Promise.resolve(),
    run: () =>
      Promise.resolve({ exit: { exitCode: 0, signal: null, timedOut: false }, telemetry: {} }),
  };
}
