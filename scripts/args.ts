/**
 * Command-line arguments of the maintainer scripts (bench/, scripts/): node:util's parseArgs
 * with `-h/--help`, and usage errors as one line and the usage instead of a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

const HELP = { help: { type: "boolean", short: "h" } } as const;

/** A script's name (the prefix of its errors), its usage text and its options. */
export interface ScriptSpec<O extends Options, P extends boolean> {
  /** How errors name the script: `NAME: message`. */
  readonly name: string;
  /** Printed by --help on stdout, and after a usage error on stderr. */
  readonly usage: string;
  /** parseArgs's options; `help` (`-h`) is added. */
  readonly options: O;
  /** Whether the script takes positional arguments (default: no). */
  readonly allowPositionals?: P;
}

/** What parseArgs returns for these options and positionals. */
export type ScriptArgs<O extends Options, P extends boolean> = ReturnType<
  typeof parseArgs<{ options: O & typeof HELP; allowPositionals: P; strict: true }>
>;

// One script per process, so fail() needs no handle to it; and a function declaration rather
// than a returned closure, so that `if (x === undefined) fail(...)` narrows x.
let current: { name: string; usage: string } | undefined;

/**
 * Parses this process's arguments for `spec`. `-h/--help` prints the usage and exits 0; an
 * unknown or malformed option, or an unexpected positional, is a usage error (fail()).
 */
export function parseScriptArgs<const O extends Options, const P extends boolean = false>(
  spec: ScriptSpec<O, P>,
): ScriptArgs<O, P> {
  current = { name: spec.name, usage: spec.usage.endsWith("\n") ? spec.usage : `${spec.usage}\n` };
  let parsed: ScriptArgs<O, P>;
  try {
    parsed = parseArgs({
      options: { ...spec.options, ...HELP },
      allowPositionals: spec.allowPositionals ?? false,
      strict: true,
    }) as ScriptArgs<O, P>;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  if ((parsed.values as { help?: boolean }).help === true) {
    process.stdout.write(current.usage);
    process.exit(0);
  }
  return parsed;
}

/** A usage error: `NAME: message` and the usage on stderr, exit 2. */
export function fail(message: string): never {
  if (current === undefined) throw new Error(`fail() before parseScriptArgs(): ${message}`);
  process.stderr.write(`${current.name}: ${message}\n${current.usage}`);
  process.exit(2);
}

/** `text`, given for `--option`, as a whole number of at least `min`; a usage error otherwise. */
export function integerOption(option: string, text: string, min = 1): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min)
    fail(`--${option} expects a whole number of at least ${min}; got "${text}"`);
  return value;
}

/** `text`, given for `--option`, as a number of at least `min`; a usage error otherwise. */
export function numberOption(option: string, text: string, min = 0): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < min)
    fail(`--${option} expects a number of at least ${min}; got "${text}"`);
  return value;
}
