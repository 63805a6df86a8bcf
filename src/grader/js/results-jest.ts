/**
 * jest's and vitest's `--json` results (vitest's json reporter writes jest's shape) as outcomes.
 */
import { z } from "zod";
import type { TestStatus } from "../../core/index.js";
import { FILE_TITLE, invalidResults, relativePath, type JsOutcome } from "./outcomes.js";

/** jest's and vitest's `--json` results, as far as ids need them (both write this shape). */
const JestJson = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z.array(
        z.object({
          ancestorTitles: z.array(z.string()),
          title: z.string(),
          status: z.string(),
        }),
      ),
    }),
  ),
});

/** jest's and vitest's test statuses; vitest's "pending" is a test that never ran to an end. */
const JEST_STATUSES: Readonly<Record<string, TestStatus>> = {
  passed: "PASSED",
  failed: "FAILED",
  pending: "SKIPPED",
  skipped: "SKIPPED",
  todo: "SKIPPED",
  disabled: "SKIPPED",
};

/** Outcomes from jest's or vitest's JSON; a failed file none of whose tests failed failed itself. */
export function jestOutcomes(runner: "jest" | "vitest", text: string, root: string): JsOutcome[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalidResults(runner, `the results are not JSON (${(error as Error).message})`);
  }
  const parsed = JestJson.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : ` at ${issue.path.join(".")}: ${issue.message}`;
    throw invalidResults(runner, `the results do not have the --json shape${where}`);
  }
  const outcomes: JsOutcome[] = [];
  parsed.data.testResults.forEach((result, group) => {
    const file = relativePath(result.name, root);
    let anyFailed = false;
    for (const assertion of result.assertionResults) {
      const status = JEST_STATUSES[assertion.status];
      if (status === undefined) {
        throw invalidResults(
          runner,
          `test ${JSON.stringify(assertion.title)} in ${file} has the unknown status ${JSON.stringify(assertion.status)}`,
        );
      }
      anyFailed ||= status === "FAILED";
      outcomes.push({
        file,
        titles: [...assertion.ancestorTitles, assertion.title],
        status,
        group,
      });
    }
    if (result.status === "failed" && !anyFailed) {
      outcomes.push({ file, titles: [FILE_TITLE], status: "ERROR", group });
    }
  });
  return outcomes;
}
