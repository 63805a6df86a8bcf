import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { closestNames, LabError, quoteShell, type Telemetry, type Tool } from "../core/index.js";
import { runCommand } from "../process/index.js";

/** A tool given as a command line, from lab.config.json or `--command`. */
export interface CommandToolSpec {
  readonly name: string;
  /** Shell command line; `{prompt_file}`, `{workdir}` and `{prompt}` are replaced, shell-quoted. */
  readonly command: string;
  /** Environment variables passed through by name, with their values as resolved by config. */
  readonly passEnv: Readonly<Record<string, string>>;
  /** Names asked for but not set; checkReady reports them. */
  readonly missingEnv: readonly string[];
  /** The tool's own time limit, when it declares one. */
  readonly timeoutMs?: number | undefined;
  /** A fixed version string. */
  readonly version?: string | undefined;
  /** A command printing the version. */
  readonly versionCommand?: string | undefined;
  /** Host folders (or files) of its installation, readable in the sandbox. */
  readonly paths?: readonly string[] | undefined;
  /** The user's PATH and HOME, for the version command and the check that the program exists. */
  readonly host: { readonly PATH: string; readonly HOME: string };
}

/** Placeholders a command line may use. */
export const COMMAND_PLACEHOLDERS = ["{prompt_file}", "{workdir}", "{prompt}"] as const;

const telemetrySchema = z.object({
  costUsd: z.number().nonnegative().optional(),
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  turns: z.number().int().nonnegative().optional(),
  toolCalls: z.number().int().nonnegative().optional(),
  model: z.string().optional(),
});

/** Fills a command line's placeholders with shell-quoted values. */
export function expandCommand(
  command: string,
  values: { promptFile: string; workdir: string; prompt: string },
): string {
  return command
    .replaceAll("{prompt_file}", quoteShell(values.promptFile))
    .replaceAll("{workdir}", quoteShell(values.workdir))
    .replaceAll("{prompt}", quoteShell(values.prompt));
}

/** Telemetry is a few numbers; a bigger file is not telemetry. */
const MAX_TELEMETRY_BYTES = 1024 * 1024;

/** What a telemetry file held that lab could use, and what was wrong with the rest. */
export interface TelemetryRead {
  readonly telemetry: Telemetry;
  /** One line per problem, naming the field; empty when the file was fine or absent. */
  readonly warnings: readonly string[];
}

/**
 * Reads telemetry a command tool wrote to $LAB_TELEMETRY_FILE. Fields are checked one by one:
 * a bad field is dropped with a warning naming it (and the field it most likely meant, for a
 * misspelt one: `costUSD`, `cost_usd`), and the valid ones are kept. The tool made
 * the file: a symlink is not followed (lab would read a host file for it) and a huge file is
 * not read. No file is no telemetry, not a problem.
 */
export async function readTelemetryFile(file: string): Promise<TelemetryRead> {
  let text: string;
  try {
    const handle = await open(
      file,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return { telemetry: {}, warnings: ["it is not a regular file"] };
      if (stats.size > MAX_TELEMETRY_BYTES)
        return {
          telemetry: {},
          warnings: [`it holds ${String(stats.size)} bytes, more than telemetry's 1 MiB`],
        };
      text = await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { telemetry: {}, warnings: [] };
    return {
      telemetry: {},
      warnings: [code === "ELOOP" ? "it is a symbolic link" : (error as Error).message],
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { telemetry: {}, warnings: [`it is not JSON: ${(error as Error).message}`] };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return { telemetry: {}, warnings: ["it is not a JSON object"] };
  const telemetry: Partial<Record<keyof Telemetry, unknown>> = {};
  const warnings: string[] = [];
  const fields = telemetrySchema.shape;
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in fields)) {
      const near = closestNames(key, Object.keys(fields), 1)[0];
      warnings.push(
        `unknown field "${key}" ignored${near === undefined ? "" : `: did you mean ${near}?`}`,
      );
      continue;
    }
    const parsed = fields[key as keyof typeof fields].safeParse(value);
    if (parsed.success && parsed.data !== undefined)
      telemetry[key as keyof Telemetry] = parsed.data;
    else
      warnings.push(
        `"${key}" dropped: ${JSON.stringify(value)} is not ${key === "model" ? "a string" : key === "costUsd" ? "a number of 0 or more" : "a whole number of 0 or more"}`,
      );
  }
  return { telemetry: telemetry as Telemetry, warnings };
}

/**
 * The program a command line certainly starts, or null when that is not plain: the first word
 * counts only when it is made of characters the shell takes literally and ends at a blank or an
 * operator (`echo;echo`, `env | ...`). A line opening with `(`, `{`, a quote, a `$` or a
 * redirection, or with a variable assignment, names no program lab could look for without
 * being a shell, so the run finds out instead.
 */
export function commandProgram(command: string): string | null {
  const match = /^\s*([\w./+@%,:-]+)(?=$|[\s;&|()<>])/.exec(command);
  return match?.[1] ?? null;
}

/** A tool that runs a command line in the work tree, inside the trial's sandbox. */
export function createCommandTool(spec: CommandToolSpec): Tool {
  const program = commandProgram(spec.command);
  return {
    name: spec.name,
    description: `Runs: ${spec.command}`,
    readsOracle: false,
    ...(spec.paths === undefined ? {} : { sandboxPaths: spec.paths }),
    fingerprint: createHash("sha256").update(spec.command).digest("hex").slice(0, 12),
    async detectVersion() {
      if (spec.version !== undefined) return spec.version;
      if (spec.versionCommand === undefined) return "unknown";
      const result = await runCommand(["bash", "-c", spec.versionCommand], {
        env: { ...spec.host, ...spec.passEnv },
        timeoutMs: 30_000,
      });
      return result.exitCode === 0
        ? (result.stdoutTail.trim().split("\n")[0] ?? "unknown")
        : "unknown";
    },
    async checkReady() {
      if (spec.missingEnv.length > 0) {
        throw new LabError(
          "TOOL_NOT_INSTALLED",
          `Tool "${spec.name}" needs ${spec.missingEnv.join(", ")}, which ${spec.missingEnv.length === 1 ? "is" : "are"} not set.`,
          {
            hint: `Export ${spec.missingEnv.join(", ")} before running, or drop ${spec.missingEnv.length === 1 ? "it" : "them"} from the tool's "env" list.`,
          },
        );
      }
      if (program === null) return;
      const probe = await runCommand(["bash", "-c", `command -v ${quoteShell(program)}`], {
        env: { PATH: spec.host.PATH },
        timeoutMs: 10_000,
      });
      if (probe.exitCode !== 0) {
        throw new LabError(
          "TOOL_NOT_INSTALLED",
          `Tool "${spec.name}" cannot run: \`${program}\` is not on PATH.`,
          {
            hint: `Install it, or give its full path in the command line.`,
          },
        );
      }
    },
    async run(ctx) {
      const telemetryFile = path.join(ctx.artifactsDir, "telemetry.json");
      const commandLine = expandCommand(spec.command, {
        promptFile: ctx.promptFile,
        workdir: ctx.workTree,
        prompt: ctx.prompt,
      });
      const result = await ctx.sandbox.exec(["bash", "-c", commandLine], {
        cwd: ctx.workTree,
        env: {
          ...ctx.env,
          ...spec.passEnv,
          LAB_TELEMETRY_FILE: telemetryFile,
          LAB_PROMPT_FILE: ctx.promptFile,
        },
        timeoutMs: ctx.timeoutMs,
        logFile: ctx.logFile,
        signal: ctx.signal,
      });
      const read = await readTelemetryFile(telemetryFile);
      return {
        exit: {
          exitCode: result.exitCode,
          signal: result.signal,
          timedOut: result.timedOut,
          ...(result.limitExceeded === null ? {} : { limit: result.limitExceeded }),
        },
        telemetry: read.telemetry,
        ...(read.warnings.length === 0
          ? {}
          : {
              warnings: read.warnings.map((warning) => `$LAB_TELEMETRY_FILE: ${warning}`),
            }),
      };
    },
  };
}
