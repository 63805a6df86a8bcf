import { z } from "zod";
import { describeSchemaError } from "../../core/index.js";

/** A test list as the dataset stores it: a JSON string in the classic columns, or an array. */
const testList = z.preprocess(
  (value) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  },
  z.array(z.string(), { error: "not a JSON list of test ids" }),
);

/** One SWE-bench row, with the columns lab uses. */
export const swebenchRowSchema = z.object({
  instance_id: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+__[A-Za-z0-9_.-]+-\d+$/, "an id such as owner__name-123"),
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "owner/name"),
  base_commit: z.string().regex(/^[0-9a-f]{40}$/, "a 40-character commit hash"),
  patch: z.string().min(1, "the gold patch is empty"),
  test_patch: z.string().min(1, "the test patch is empty"),
  problem_statement: z.string().min(1, "the issue text is empty"),
  hints_text: z
    .string()
    .nullish()
    .transform((value) => value ?? ""),
  created_at: z
    .string()
    .nullish()
    .transform((value) => value ?? ""),
  version: z.union([z.string(), z.number()]).transform(String),
  environment_setup_commit: z.string().nullish(),
  FAIL_TO_PASS: testList,
  PASS_TO_PASS: testList,
});

/** A validated SWE-bench row. */
export type SwebenchRow = z.output<typeof swebenchRowSchema>;

/** A row that failed validation, with why. */
export interface RejectedRow {
  readonly instanceId: string;
  readonly reason: string;
}

/** Validates raw rows: good ones are returned, bad ones reported by instance id, never thrown. */
export function validateRows(raw: readonly unknown[]): {
  rows: SwebenchRow[];
  rejected: RejectedRow[];
} {
  const rows: SwebenchRow[] = [];
  const rejected: RejectedRow[] = [];
  const seen = new Set<string>();
  raw.forEach((item, index) => {
    const id =
      typeof item === "object" &&
      item !== null &&
      typeof (item as { instance_id?: unknown }).instance_id === "string"
        ? (item as { instance_id: string }).instance_id
        : `row ${String(index)}`;
    const parsed = swebenchRowSchema.safeParse(item);
    if (!parsed.success) {
      rejected.push({ instanceId: id, reason: describeSchemaError(parsed.error) });
      return;
    }
    if (seen.has(parsed.data.instance_id)) {
      rejected.push({ instanceId: id, reason: "duplicate instance_id" });
      return;
    }
    seen.add(parsed.data.instance_id);
    rows.push(parsed.data);
  });
  return { rows, rejected };
}
