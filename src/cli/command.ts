import { parseArgs } from "node:util";
import { UsageError } from "../core/index.js";

/** A stream a command writes to; a terminal also says its size. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  /** The terminal's width and height, when it is one. */
  readonly columns?: number | undefined;
  readonly rows?: number | undefined;
}

/** Where a command reads and writes: injected so tests call the CLI in-process. */
export interface CliIO {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where answers to questions come from (`lab review` on a terminal); absent in most tests. */
  readonly stdin?: (NodeJS.ReadableStream & { readonly isTTY?: boolean | undefined }) | undefined;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
}

/** One option of a command. */
export interface OptionDef {
  readonly type: "string" | "boolean";
  readonly description: string;
  /** Shown in help after the flag, e.g. "S" for --suite S. */
  readonly value?: string;
  readonly short?: string;
  readonly multiple?: boolean;
  /** Environment variable that sets it, shown in help. */
  readonly env?: string;
}

/** Parsed command line of one command. */
export interface ParsedArgs {
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly positionals: readonly string[];
}

/** A subcommand. */
export interface CommandDef {
  readonly name: string;
  readonly summary: string;
  /** The usage line after "lab ". */
  readonly usage: string;
  readonly positionals?: { readonly min: number; readonly max: number };
  readonly options: Readonly<Record<string, OptionDef>>;
  /** Extra help text: examples, notes. */
  readonly details?: string;
  /**
   * The exit code of an error that is not a usage error (default 1); `lab grade` keeps 1 for
   * "unresolved", so a task that cannot be graded exits 2.
   */
  readonly errorExitCode?: number;
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}

/** Declares a command (a typed identity, for readability at the definition site). */
export function defineCommand(def: CommandDef): CommandDef {
  return def;
}

/** Parses argv for a command, with strict checks; errors name the option. */
export function parseCommandArgs(def: CommandDef, argv: readonly string[]): ParsedArgs {
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string; multiple?: boolean }
  > = { help: { type: "boolean", short: "h" } };
  for (const [name, option] of Object.entries(def.options)) {
    options[name] = {
      type: option.type,
      ...(option.short === undefined ? {} : { short: option.short }),
      ...(option.multiple === true ? { multiple: true } : {}),
    };
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.replace(
      /\. To specify a positional argument starting with a '-'.*$/s,
      ".",
    );
    throw new UsageError(message.replace(/^Unknown option/, "Unknown option"));
  }
  const range = def.positionals ?? { min: 0, max: 0 };
  if (parsed.values.help !== true) {
    if (parsed.positionals.length < range.min)
      throw new UsageError(`Missing argument: lab ${def.usage}`);
    if (parsed.positionals.length > range.max) {
      throw new UsageError(`Unexpected argument "${String(parsed.positionals[range.max])}".`);
    }
  }
  return { values: parsed.values as ParsedArgs["values"], positionals: parsed.positionals };
}

/**
 * `--concurrency -1` as `--concurrency=-1`: parseArgs takes a value that starts with a dash for
 * an option, so the option's own check could never say what is wrong with the number.
 */
function joinNegativeValues(
  argv: readonly string[],
  options: Readonly<Record<string, { type: "string" | "boolean" }>>,
): string[] {
  const takesValue = new Set(
    Object.entries(options)
      .filter(([, option]) => option.type === "string")
      .map(([name]) => `--${name}`),
  );
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? "";
    const next = argv[i + 1];
    if (takesValue.has(token) && next !== undefined && /^-[\d.]/.test(next)) {
      joined.push(`${token}=${next}`);
      i++;
    } else {
      joined.push(token);
    }
  }
  return joined;
}

/** The help text of a command. */
export function renderCommandHelp(def: CommandDef): string {
  const rows = Object.entries(def.options).map(([name, option]) => {
    const flag = `${option.short === undefined ? "    " : `-${option.short}, `}--${name}${option.value === undefined ? "" : ` ${option.value}`}`;
    const env = option.env === undefined ? "" : ` [env: ${option.env}]`;
    return [flag, `${option.description}${env}`] as const;
  });
  rows.push(["-h, --help", "Show this help"]);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const lines = [
    `Usage: lab ${def.usage}`,
    "",
    def.summary,
    "",
    "Options:",
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
  ];
  if (def.details !== undefined) lines.push("", def.details.trimEnd());
  return `${lines.join("\n")}\n`;
}

/** Reads a string option. */
export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * Reads a repeatable string option, splitting comma-separated values. An option given with
 * nothing in it (`--tasks ""`, usually an unset shell variable) is an error, never "all".
 */
export function listOption(args: ParsedArgs, name: string): string[] | undefined {
  const value = args.values[name];
  if (value === undefined || typeof value === "boolean") return undefined;
  const list = (Array.isArray(value) ? value : [value])
    .flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "");
  if (list.length === 0) {
    throw new UsageError(
      `--${name} was given an empty value.`,
      `An unset shell variable is the usual cause; name at least one value, or leave --${name} out.`,
    );
  }
  return list;
}

/** Reads a boolean flag. */
export function flagOption(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}
