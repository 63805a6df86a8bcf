/**
 * Stored runs made without running anything: run.json, tasks.json and one result.json per
 * trial, exactly as the runner lays them out, for report tests and the report benchmark.
 * No vitest import, so bench/ can use it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  SCHEMA_VERSION,
  type RunRecord,
  type TaskInfo,
  type TrialResult,
} from "../../src/core/index.js";
import { runPaths, trialPaths } from "../../src/store/index.js";

/** One trial's outcome: resolved, unresolved, or an infrastructure error. */
export type SyntheticOutcome = boolean | "infra" | "timeout";

/** A trial's figures beside its outcome. */
export interface SyntheticTelemetry {
  readonly costUsd?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly toolMs?: number;
  readonly model?: string;
}

/** One run to write. */
export interface SyntheticRun {
  readonly tool: string;
  readonly suite: string;
  readonly runId?: string;
  readonly toolVersion?: string;
  /** Task id to its trials' outcomes, trial 1 first. */
  readonly outcomes: Readonly<Record<string, readonly SyntheticOutcome[]>>;
  /** Task facts for tasks.json; none written when absent. */
  readonly tasks?: readonly TaskInfo[];
  /** Figures of each trial; default none reported and a tool phase of 1 s. */
  readonly telemetry?: (taskId: string, trial: number) => SyntheticTelemetry;
  /** When the run was last updated (ISO); selects the latest run of a tool. */
  readonly updatedAt?: string;
  /** run.json's status; completed by default. */
  readonly status?: RunRecord["status"];
  /** run.json's label (`lab run --label`). */
  readonly label?: string;
  /** What identifies the tool beyond its name (a command line's hash); its name by default. */
  readonly fingerprint?: string;
  /** Tasks the run planned, beyond those with trials (an unfinished run). */
  readonly plannedTasks?: readonly string[];
  /** run.json's recorded settings; none by default. */
  readonly config?: RunRecord["config"];
}

/** A task's facts, with starter-style difficulty metadata. */
export function syntheticTask(
  id: string,
  repo: string,
  metadata: TaskInfo["metadata"] = {},
): TaskInfo {
  return { id, repo, baseCommit: "0".repeat(40), metadata };
}

/** A stored result.json for one trial. */
export function syntheticResult(
  run: { tool: string; suite: string; runId: string; toolVersion: string },
  taskId: string,
  trial: number,
  outcome: SyntheticOutcome,
  figures: SyntheticTelemetry = {},
): TrialResult {
  const { toolMs = 1000, ...telemetry } = figures;
  const isInfra = outcome === "infra";
  const resolved = outcome === true;
  return {
    schemaVersion: SCHEMA_VERSION,
    runId: run.runId,
    tool: run.tool,
    toolVersion: run.toolVersion,
    suite: run.suite,
    taskId,
    trial,
    outcome: isInfra
      ? { kind: "infra_error", phase: "setup", message: "setup.sh exited with code 7" }
      : outcome === "timeout"
        ? { kind: "tool_timeout" }
        : { kind: "graded" },
    resolved: isInfra ? null : resolved,
    patchApplied: isInfra ? null : resolved,
    patchEmpty: isInfra ? null : !resolved,
    grade: isInfra
      ? null
      : {
          resolved,
          patchApplied: resolved,
          patchEmpty: !resolved,
          applyMethod: resolved ? "git apply" : null,
          failToPass: { "tests/test_a.py::test_fix": resolved },
          passToPass: { "tests/test_a.py::test_keep": true },
          statuses: {
            "tests/test_a.py::test_fix": resolved ? "PASSED" : "FAILED",
            "tests/test_a.py::test_keep": "PASSED",
          },
          reason: resolved ? null : "FAIL_TO_PASS tests/test_a.py::test_fix failed",
          testsTimedOut: false,
          testExitCode: resolved ? 0 : 1,
          phaseMs: { checkout: 40, install: 300, tests: 500 },
          environmentKey: "synthetic",
          tampering: [],
        },
    toolExit: isInfra
      ? null
      : { exitCode: 0, signal: null, timedOut: outcome === "timeout", strayProcesses: 0 },
    telemetry,
    phaseMs: isInfra ? { setup: 50 } : { setup: 50, tool: toolMs, grade: 900 },
    durationMs: isInfra ? 50 : 950 + toolMs,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:00:02.000Z",
  };
}

/** Writes runs into runsDir the way the runner does (less the logs); returns their run ids. */
export function writeSyntheticRuns(runsDir: string, runs: readonly SyntheticRun[]): string[] {
  return runs.map((run) => {
    const runId = run.runId ?? `${run.suite}-${run.tool}`;
    const toolVersion = run.toolVersion ?? "1";
    const paths = runPaths(runsDir, runId);
    const taskIds = [
      ...new Set([...Object.keys(run.outcomes), ...(run.plannedTasks ?? [])]),
    ].sort();
    const trials = Math.max(1, ...Object.values(run.outcomes).map((outcomes) => outcomes.length));
    const updatedAt = run.updatedAt ?? "2025-01-01T00:00:00.000Z";
    const record: RunRecord = {
      schemaVersion: SCHEMA_VERSION,
      runId,
      tool: run.tool,
      toolVersion,
      toolFingerprint: run.fingerprint ?? run.tool,
      suite: run.suite,
      labVersion: "test",
      trials,
      taskIds,
      config: run.config ?? {},
      status: run.status ?? "completed",
      createdAt: updatedAt,
      updatedAt,
      ...(run.label === undefined ? {} : { label: run.label }),
    };
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(paths.runJson, JSON.stringify(record, null, 2));
    if (run.tasks !== undefined) {
      writeFileSync(
        paths.tasksJson,
        JSON.stringify({
          schemaVersion: SCHEMA_VERSION,
          tasks: Object.fromEntries(run.tasks.map((task) => [task.id, task])),
        }),
      );
    }
    for (const taskId of taskIds) {
      (run.outcomes[taskId] ?? []).forEach((outcome, i) => {
        const trial = trialPaths(paths, taskId, i + 1);
        mkdirSync(trial.dir, { recursive: true });
        const result = syntheticResult(
          { tool: run.tool, suite: run.suite, runId, toolVersion },
          taskId,
          i + 1,
          outcome,
          run.telemetry?.(taskId, i + 1),
        );
        writeFileSync(trial.result, JSON.stringify(result, null, 2));
      });
    }
    return runId;
  });
}

/** A small seeded generator (mulberry32), so synthetic suites are the same every time. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Folder of a synthetic run, for tests that look inside. */
export function syntheticRunDir(runsDir: string, runId: string): string {
  return path.join(runsDir, runId);
}
