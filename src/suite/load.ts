import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import {
  describeSchemaError,
  environmentSpecSchema,
  closestNames,
  LabError,
  suiteInfoSchema,
  taskInfoSchema,
  testListsSchema,
  type Oracle,
  type Task,
} from "../core/index.js";
import { suiteLayout } from "./layout.js";
import { evalsSearchPath } from "./paths.js";

/** A suite on disk. */
export interface Suite {
  /** The suite's name, as given to `--suite`. */
  readonly name: string;
  /** Its version from suite.json, or "0" when it has none. */
  readonly version: string;
  /** `evals/<suite>`. */
  readonly dir: string;
  /** Task ids, sorted. */
  readonly taskIds: readonly string[];
}

/** Files every task folder holds. */
export const TASK_FILES = ["prompt.txt", "setup.sh", "check.sh", "task.json"] as const;
/** Files every oracle folder holds. */
export const ORACLE_FILES = ["gold.patch", "test.patch", "tests.json", "environment.json"] as const;

/** Names of the suites found on the search path. */
export function listSuites(options: { evalsDir?: string | undefined; cwd: string }): string[] {
  const names = new Set<string>();
  for (const dir of evalsSearchPath(options)) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      if (existsSync(suiteLayout(path.join(dir, entry)).tasksDir)) names.add(entry);
    }
  }
  return [...names].sort();
}

/** Finds a suite by name; fails with the suites that do exist. */
export async function loadSuite(
  name: string,
  options: { evalsDir?: string | undefined; cwd: string },
): Promise<Suite> {
  const searched = evalsSearchPath(options);
  const dir = searched
    .map((root) => path.join(root, name))
    .find((candidate) => existsSync(suiteLayout(candidate).tasksDir));
  if (dir === undefined) {
    const known = listSuites(options);
    const near = closestNames(name, known);
    throw new LabError(
      "SUITE_NOT_FOUND",
      `Unknown suite "${name}": no ${suiteLayout(name).tasksDir} under ${searched.join(" or ")}.`,
      {
        hint:
          (near.length > 0 ? `Did you mean ${near.join(" or ")}? ` : "") +
          (known.length > 0 ? `Suites here: ${known.join(", ")}. ` : "") +
          (name === "swebench"
            ? "Generate it with `lab gen --suite swebench`."
            : "Generate a suite with `lab gen --suite NAME`."),
      },
    );
  }
  let version = "0";
  const { suiteFile, tasksDir } = suiteLayout(dir);
  if (existsSync(suiteFile)) version = (await readJson(suiteFile, suiteInfoSchema)).version;
  const taskIds = readdirSync(tasksDir)
    .filter((entry) => !entry.startsWith(".") && statSync(path.join(tasksDir, entry)).isDirectory())
    .sort();
  return { name, version, dir, taskIds };
}

/** Loads one task's public part, checking that its folder is complete. */
export async function loadTask(suite: Suite, id: string): Promise<Task> {
  if (!suite.taskIds.includes(id)) {
    const close = [
      ...new Set([
        ...closestNames(id, suite.taskIds),
        ...suite.taskIds.filter((known) => known.includes(id) || id.includes(known)),
      ]),
    ].slice(0, 5);
    throw new LabError("TASK_NOT_FOUND", `Unknown task "${id}" in suite "${suite.name}".`, {
      hint:
        close.length > 0
          ? `Did you mean ${close.join(", ")}?`
          : `List the tasks with \`lab scenarios --suite ${suite.name}\`.`,
    });
  }
  const layout = suiteLayout(suite.dir);
  const dir = layout.taskDir(id);
  for (const file of TASK_FILES) {
    if (!existsSync(path.join(dir, file))) {
      throw new LabError("TASK_INVALID", `Task folder ${dir} is missing ${file}.`, {
        hint: `A task folder holds ${TASK_FILES.join(", ")}; see evals/README.md.`,
      });
    }
  }
  const info = await readJson(path.join(dir, "task.json"), taskInfoSchema);
  if (info.id !== id) {
    throw new LabError(
      "TASK_INVALID",
      `${path.join(dir, "task.json")}: id is "${info.id}" but the folder is "${id}".`,
      {
        hint: "Rename the folder or fix the id so they match.",
      },
    );
  }
  const prompt = await readFile(path.join(dir, "prompt.txt"), "utf8");
  if (prompt.trim() === "") {
    throw new LabError("TASK_INVALID", `${path.join(dir, "prompt.txt")} is empty.`, {
      hint: "prompt.txt holds the issue text the tool is given.",
    });
  }
  return { suite: suite.name, info, dir, oracleDir: layout.oracleDir(id), prompt };
}

/** Loads a task's answer key. Only the grader and the gold tool call this. */
export async function loadOracle(task: Pick<Task, "oracleDir" | "info">): Promise<Oracle> {
  for (const file of ORACLE_FILES) {
    if (!existsSync(path.join(task.oracleDir, file))) {
      throw new LabError("TASK_INVALID", `Oracle folder ${task.oracleDir} is missing ${file}.`, {
        hint: `An oracle folder holds ${ORACLE_FILES.join(", ")}; see evals/README.md.`,
      });
    }
  }
  const lists = await readJson(path.join(task.oracleDir, "tests.json"), testListsSchema);
  const environment = await readJson(
    path.join(task.oracleDir, "environment.json"),
    environmentSpecSchema,
  );
  const testPatch = await readFile(path.join(task.oracleDir, "test.patch"), "utf8");
  if (testPatch.trim() === "") {
    throw new LabError("TASK_INVALID", `${path.join(task.oracleDir, "test.patch")} is empty.`, {
      hint: "The test patch adds the hidden tests; a task without one cannot be graded.",
    });
  }
  return {
    goldPatch: await readFile(path.join(task.oracleDir, "gold.patch"), "utf8"),
    testPatch,
    failToPass: lists.FAIL_TO_PASS,
    passToPass: lists.PASS_TO_PASS,
    environment,
  };
}

/** Reads a JSON file through a schema; errors name the file and the field. */
export async function readJson<S extends z.ZodType>(
  file: string,
  schema: S,
  hint = "Fix the file, or regenerate the suite with `lab gen`.",
): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new LabError("TASK_INVALID", `${file} is not valid JSON: ${(error as Error).message}.`, {
      hint,
      cause: error,
    });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new LabError(
      "TASK_INVALID",
      `${file} is malformed: ${describeSchemaError(parsed.error)}.`,
      { hint },
    );
  }
  return parsed.data;
}

/** A suite folder's suite.json, checked; null when it has none. */
export async function readSuiteInfo(
  file: string,
): Promise<z.output<typeof suiteInfoSchema> | null> {
  return existsSync(file) ? readJson(file, suiteInfoSchema) : null;
}
