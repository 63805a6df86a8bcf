import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  errorMessage,
  runPool,
  type AuditOutcome,
  type AuditVariant,
  type Oracle,
  type Task,
  type TaskAudit,
  type VariantResult,
} from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import {
  gradeChange,
  withGoldCheckout,
  type GoldCheckout,
  type GradeOptions,
} from "../grader/index.js";
import { suiteDirOf, suiteLayout } from "../suite/index.js";
import { addedLines, isAuditedFile, listHunks, undoHunk } from "./gold-hunks.js";
import { JS_MUTATOR_VERSION, mutateJs, type MutatorOutput } from "./js-mutator.js";
import { MUTATOR_SCRIPT } from "./mutator-script.js";

/** Bumped whenever what an audit does changes, so earlier audits are redone. */
const AUDIT_METHOD = 1;

/** How one task is audited. */
export interface AuditTaskOptions {
  readonly environment: EnvironmentOptions;
  /** At most this many mutants are graded (hunks always are); chosen by a seeded shuffle. */
  readonly mutants: number;
  /** Variants graded at once. */
  readonly concurrency: number;
  readonly testTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Told after each variant's grade: for progress. */
  readonly onVariant?: ((variant: AuditVariant) => void) | undefined;
}

/** What the mutator (Python's or lab's JS one) says of its mutants and of the given variants. */
type MutatorAnswer = MutatorOutput;

/** A variant before its grade: its patch, or why it is not graded. */
interface PreparedVariant extends Omit<AuditVariant, "result" | "reason"> {
  readonly patch: string | null;
  readonly settled: VariantResult | null;
}

/** What an audit of `task` depends on: it is redone when this changes. */
export function auditFingerprint(oracle: Oracle, mutants: number): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        AUDIT_METHOD,
        MUTATOR_SCRIPT,
        JS_MUTATOR_VERSION,
        mutants,
        oracle.goldPatch,
        oracle.testPatch,
        oracle.environment,
      ]),
    )
    .digest("hex")
    .slice(0, 16);
}

/**
 * Audits one task's hidden tests: each hunk of its gold patch left out in turn (when it has
 * more than one) and mutants of the source lines it adds (Python's by mutator-script.ts in the
 * task's interpreter, JavaScript's and TypeScript's by js-mutator.ts) are graded like any change. A variant
 * that resolves the task survived: the tests let a wrong change through, unless the variant is
 * equivalent to the gold patch, which only a person can say beyond identical syntax trees.
 */
export async function auditTask(
  task: Task,
  oracle: Oracle,
  options: AuditTaskOptions,
): Promise<TaskAudit> {
  const started = Date.now();
  const logDir = suiteLayout(suiteDirOf(task)).auditLogDir(task.info.id);
  await mkdir(logDir, { recursive: true });
  const scratchRoot = options.environment.scratchRoot ?? path.join(logDir, "scratch");
  await mkdir(scratchRoot, { recursive: true });
  const gradeOptions = async (name: string): Promise<GradeOptions> => ({
    scratchDir: await mkdtemp(path.join(scratchRoot, `lab-audit-${task.info.id}-`)),
    logFile: path.join(logDir, `${name}.log`),
    environment: options.environment,
    setupTimeoutMs: 10 * 60_000,
    installTimeoutMs: 20 * 60_000,
    testTimeoutMs: options.testTimeoutMs,
    signal: options.signal,
  });

  const made = { count: 0 };
  const prepared = await withGoldCheckout(
    task,
    oracle,
    await gradeOptions("gold-checkout"),
    (checkout) => prepareVariants(task, oracle, checkout, options.mutants, made),
  );
  const variants: AuditVariant[] = prepared.map((variant) => ({
    ...strip(variant),
    result: variant.settled ?? "error",
    reason: null,
  }));
  await runPool(
    prepared.map((variant, index) => ({ variant, index })),
    options.concurrency,
    async ({ variant, index }) => {
      if (variant.patch === null) return;
      let graded: AuditVariant;
      try {
        const { grade } = await gradeChange(
          task,
          oracle,
          { patch: variant.patch },
          await gradeOptions(variant.id),
        );
        graded = {
          ...strip(variant),
          result: !grade.patchApplied ? "unviable" : grade.resolved ? "survived" : "killed",
          reason: grade.reason,
        };
      } catch (error) {
        if (options.signal?.aborted === true) throw error;
        graded = { ...strip(variant), result: "error", reason: errorMessage(error) };
      }
      variants[index] = graded;
      options.onVariant?.(graded);
    },
    options.signal,
  );
  const counts: Record<VariantResult, number> = {
    killed: 0,
    survived: 0,
    equivalent: 0,
    unviable: 0,
    error: 0,
  };
  for (const variant of variants) counts[variant.result]++;
  const judged = counts.killed + counts.survived;
  return {
    taskId: task.info.id,
    fingerprint: auditFingerprint(oracle, options.mutants),
    outcome: outcomeOf(counts, variants.length),
    score: judged === 0 ? null : counts.killed / judged,
    counts,
    mutantsMade: made.count,
    variants,
    durationMs: Date.now() - started,
    auditedAt: new Date().toISOString(),
  };
}

function outcomeOf(counts: Readonly<Record<VariantResult, number>>, total: number): AuditOutcome {
  if (counts.survived > 0) return "weak_tests";
  if (counts.killed > 0) return "strong";
  return total === 0 || counts.error === 0 ? "no_variants" : "error";
}

function strip(variant: PreparedVariant): Omit<AuditVariant, "result" | "reason"> {
  const { id, kind, operator, file, line, description, diff } = variant;
  return { id, kind, operator, file, line, description, diff };
}

/**
 * In the gold checkout: asks the mutator (the task's own Python, or lab's JS one) for mutants of the lines the
 * gold patch adds and for the fate of each hunk left out, samples the mutants, and turns each
 * variant to grade into a patch against the base commit.
 */
async function prepareVariants(
  task: Task,
  oracle: Oracle,
  checkout: GoldCheckout,
  maxMutants: number,
  made: { count: number },
): Promise<PreparedVariant[]> {
  const allHunks = listHunks(oracle.goldPatch);
  const hunks = allHunks.filter((hunk) => isAuditedFile(hunk.path, checkout.language));
  const paths = [...new Set(hunks.map((hunk) => hunk.path))];
  const gold = new Map<string, string>();
  for (const file of paths) gold.set(file, await readFile(path.join(checkout.repo, file), "utf8"));
  const hunkVariants =
    allHunks.length < 2
      ? []
      : hunks.map((hunk, index) => ({
          id: `hunk-${String(index + 1)}`,
          path: hunk.path,
          source: undoHunk(gold.get(hunk.path) ?? "", hunk),
          line: hunk.newStart,
        }));
  const input = {
    files: paths.map((file) => ({
      path: file,
      source: gold.get(file) ?? "",
      changed: hunks.filter((hunk) => hunk.path === file).flatMap(addedLines),
    })),
    variants: hunkVariants.map(({ id, path: file, source }) => ({ id, path: file, source })),
  };
  const answer: MutatorAnswer =
    checkout.language === "js"
      ? mutateJs(input)
      : (JSON.parse(
          await checkout.runPython(MUTATOR_SCRIPT, JSON.stringify(input)),
        ) as MutatorAnswer);
  made.count = answer.mutants.length;

  const candidates: (Omit<PreparedVariant, "diff" | "patch"> & { source: string })[] = [
    ...hunkVariants.map((variant) => {
      const verdict = answer.variants.find((entry) => entry.id === variant.id);
      return {
        id: variant.id,
        kind: "hunk" as const,
        operator: "remove-hunk",
        file: variant.path,
        line: null,
        description: `the hunk at line ${String(variant.line)} of ${variant.path} is left out`,
        source: variant.source,
        settled:
          verdict?.compiles !== true
            ? ("unviable" as const)
            : verdict.equivalent
              ? ("equivalent" as const)
              : null,
      };
    }),
    ...sampleMutants(answer.mutants, maxMutants, task.info.id).map((mutant, index) => ({
      id: `mutant-${String(index + 1)}`,
      kind: "mutant" as const,
      operator: mutant.operator,
      file: mutant.path,
      line: mutant.line,
      description: `${mutant.path} ${mutant.description}`,
      source: mutant.source,
      settled: mutant.equivalent ? ("equivalent" as const) : null,
    })),
  ];
  const prepared: PreparedVariant[] = [];
  for (const candidate of candidates) {
    const { source, ...rest } = candidate;
    const goldSource = gold.get(candidate.file) ?? "";
    const diff = describeDifference(candidate.file, goldSource, source);
    if (candidate.settled !== null) {
      prepared.push({ ...rest, diff, patch: null, settled: candidate.settled });
      continue;
    }
    const full = path.join(checkout.repo, candidate.file);
    await writeFile(full, source);
    const patch = await checkout.diff();
    await writeFile(full, goldSource);
    prepared.push({ ...rest, diff, patch, settled: null });
  }
  return prepared;
}

/**
 * Up to `max` mutants, the equivalent ones always kept (they cost no grade): a shuffle seeded by
 * the task, then taken in turn from each operator so every kind of mutant is represented.
 */
export function sampleMutants<
  T extends { readonly operator: string; readonly equivalent: boolean },
>(mutants: readonly T[], max: number, seed: string): T[] {
  const equivalent = mutants.filter((mutant) => mutant.equivalent);
  const rest = mutants.filter((mutant) => !mutant.equivalent);
  let state = Number.parseInt(createHash("sha256").update(seed).digest("hex").slice(0, 8), 16);
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const shuffled = rest
    .map((mutant) => ({ mutant, key: random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ mutant }) => mutant);
  const byOperator = new Map<string, T[]>();
  for (const mutant of shuffled)
    byOperator.set(mutant.operator, [...(byOperator.get(mutant.operator) ?? []), mutant]);
  const chosen: T[] = [];
  while (chosen.length < Math.min(max, shuffled.length)) {
    for (const group of byOperator.values()) {
      const next = group.shift();
      if (next !== undefined && chosen.length < max) chosen.push(next);
    }
  }
  return [...chosen, ...equivalent];
}

/** A small unified diff of one file between its gold version and a variant, for people. */
export function describeDifference(file: string, gold: string, variant: string): string {
  const a = gold.split("\n");
  const b = variant.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a[endA] === b[endB]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, start - 2);
  const lines = [
    `--- a/${file} (gold)`,
    `+++ b/${file} (variant)`,
    `@@ -${String(from + 1)} +${String(from + 1)} @@`,
    ...a.slice(from, start).map((line) => ` ${line}`),
    ...a.slice(start, endA + 1).map((line) => `-${line}`),
    ...b.slice(start, endB + 1).map((line) => `+${line}`),
    ...a.slice(endA + 1, endA + 3).map((line) => ` ${line}`),
  ];
  return `${lines.join("\n")}\n`;
}
