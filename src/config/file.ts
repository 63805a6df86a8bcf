import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { priceTableSchema } from "../agents/index.js";
import { describeSchemaError, LabError } from "../core/index.js";
import { MAX_TRIALS } from "../runner/index.js";

/** The default config file name, looked for in the current folder. */
export const CONFIG_FILE_NAME = "lab.config.json";

const toolSchema = z
  .object({
    command: z.string().min(1, "must not be empty"),
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be environment variable names"))
      .default([]),
    timeout: z.string().optional(),
    version: z.string().optional(),
    versionCommand: z.string().optional(),
    network: z.boolean().optional(),
    paths: z.array(z.string().min(1, "must not be empty")).optional(),
  })
  .strict();

const agentSchema = z
  .object({
    model: z.string().min(1, "must not be empty").optional(),
    baseUrl: z.url("must be a URL").optional(),
    maxCostUsd: z.number().positive("must be positive").optional(),
    args: z.array(z.string()).optional(),
  })
  .strict();

/** What a tool's name in lab.config.json must look like: it becomes part of run ids and folders. */
const TOOL_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** What lab.config.json may hold. */
export const configFileSchema = z
  .object({
    $schema: z.string().optional(),
    tools: z
      .record(z.string(), toolSchema)
      .superRefine((tools, ctx) => {
        // A key check of z.record says only "Invalid key in record"; this names the rule.
        for (const name of Object.keys(tools)) {
          if (TOOL_NAME.test(name)) continue;
          const suggestion = name
            .toLowerCase()
            .replace(/[^a-z0-9._-]+/g, "-")
            .replace(/^[._-]+/, "");
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: `"${name}" is not a tool name: tool names are lower-case letters, digits, '.', '_' and '-', starting with a letter or digit${TOOL_NAME.test(suggestion) ? ` (e.g. "${suggestion}")` : ""}`,
          });
        }
      })
      .default({}),
    agents: z.record(z.string(), agentSchema).default({}),
    /** Model prices in USD per million tokens, laid over lab's defaults (src/agents/pricing.ts). */
    prices: priceTableSchema.default({}),
    /**
     * Facts about models (or tools that report none): the training-data cutoff, a month
     * ("2025-03") or a day, for the report's contamination slice.
     */
    models: z
      .record(
        z.string().min(1),
        z
          .object({
            cutoff: z
              .string()
              .regex(
                /^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/,
                "a month (2025-03) or a day (2025-03-31)",
              ),
          })
          .strict(),
      )
      .default({}),
    defaults: z
      .object({
        concurrency: z.number().int().positive().optional(),
        trials: z
          .number()
          .int()
          .positive()
          .max(MAX_TRIALS, `is at most ${String(MAX_TRIALS)} trials per task`)
          .optional(),
        timeout: z.string().optional(),
        testTimeout: z.string().optional(),
        sandbox: z.string().optional(),
        memory: z.string().optional(),
        disk: z.string().optional(),
        maxProcesses: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

/** A parsed config file. */
export type ConfigFile = z.output<typeof configFileSchema>;

/** Where a JSON syntax error is, as "line L, column C", from V8's message. */
function locate(text: string, message: string): string {
  const position = /position (\d+)/.exec(message)?.[1];
  if (position === undefined) return "";
  const before = text.slice(0, Number(position));
  const line = before.split("\n").length;
  const column = Number(position) - before.lastIndexOf("\n");
  return ` at line ${String(line)}, column ${String(column)}`;
}

/**
 * Loads the config file: the one named, or lab.config.json in `cwd` when it exists.
 * A named file that is missing, or any file that does not parse, is an error naming the file.
 */
export function loadConfigFile(options: { explicit?: string | undefined; cwd: string }): {
  file: string | null;
  config: ConfigFile;
} {
  const file =
    options.explicit === undefined
      ? path.join(options.cwd, CONFIG_FILE_NAME)
      : path.resolve(options.cwd, options.explicit);
  if (!existsSync(file)) {
    if (options.explicit !== undefined) {
      throw new LabError("CONFIG_INVALID", `Config file ${file} does not exist.`, {
        hint: "Check the path given to --config or LAB_CONFIG.",
      });
    }
    return { file: null, config: configFileSchema.parse({}) };
  }
  const text = readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    throw new LabError(
      "CONFIG_INVALID",
      `Config file ${file} is not valid JSON${locate(text, message)}: ${message}.`,
      {
        hint: "Fix the JSON syntax (no comments or trailing commas), then run again.",
      },
    );
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new LabError(
      "CONFIG_INVALID",
      `Config file ${file} is invalid: ${describeSchemaError(parsed.error)}.`,
      {
        hint: 'A tool is declared as "tools": { "NAME": { "command": "CMD {prompt_file} {workdir}", "env": ["API_KEY"], "timeout": "30m" } }.',
      },
    );
  }
  return { file, config: parsed.data };
}
