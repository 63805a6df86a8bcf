import { z } from "zod";
import { gradeSchema, INFRA_CLASSES, SCHEMA_VERSION } from "../core/index.js";

const outcomeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("graded") }),
  z.object({ kind: z.literal("tool_timeout") }),
  z.object({
    kind: z.literal("tool_crashed"),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    message: z.string().optional(),
  }),
  z.object({
    kind: z.literal("infra_error"),
    phase: z.string(),
    message: z.string(),
    class: z.enum(INFRA_CLASSES).optional(),
  }),
]);

/** result.json, as stored. */
export const trialResultSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string(),
  tool: z.string(),
  toolVersion: z.string(),
  suite: z.string(),
  taskId: z.string(),
  trial: z.number().int().positive(),
  outcome: outcomeSchema,
  resolved: z.boolean().nullable(),
  patchApplied: z.boolean().nullable(),
  patchEmpty: z.boolean().nullable(),
  grade: gradeSchema.nullable(),
  toolExit: z
    .object({
      exitCode: z.number().nullable(),
      signal: z.string().nullable(),
      timedOut: z.boolean(),
      strayProcesses: z.number(),
      error: z.string().optional(),
      limit: z.enum(["memory", "disk", "processes"]).optional(),
    })
    .nullable(),
  telemetry: z.object({
    costUsd: z.number().optional(),
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
    turns: z.number().optional(),
    toolCalls: z.number().optional(),
    model: z.string().optional(),
    costSource: z.enum(["reported", "computed"]).optional(),
  }),
  phaseMs: z.record(z.string(), z.number()),
  durationMs: z.number(),
  startedAt: z.string(),
  finishedAt: z.string(),
});

const verdictSchema = z.object({
  resolved: z.boolean(),
  flagged: z.boolean(),
  reason: z.string().nullable(),
});

/** run.json, as stored. */
export const runRecordSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string(),
  tool: z.string(),
  toolVersion: z.string(),
  toolFingerprint: z.string(),
  suite: z.string(),
  labVersion: z.string(),
  trials: z.number().int().positive(),
  taskIds: z.array(z.string()),
  config: z.record(z.string(), z.unknown()),
  status: z.enum(["started", "completed", "failed", "cancelled", "stopped"]),
  createdAt: z.string(),
  updatedAt: z.string(),
  label: z.string().optional(),
  budgetStop: z
    .object({ maxCostUsd: z.number(), spentUsd: z.number(), notStarted: z.number() })
    .optional(),
  resumes: z
    .array(
      z.object({
        at: z.string(),
        config: z.record(z.string(), z.unknown()),
        toolVersion: z.string(),
        labVersion: z.string(),
      }),
    )
    .optional(),
  regrades: z
    .array(
      z.object({
        at: z.string(),
        labVersion: z.string(),
        judged: z.number(),
        skipped: z.number(),
        changes: z.array(
          z.object({
            taskId: z.string(),
            trial: z.number(),
            old: verdictSchema,
            new: verdictSchema,
            why: z.string(),
          }),
        ),
      }),
    )
    .optional(),
});
