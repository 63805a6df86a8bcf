import { readFileSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../core/index.js";
import {
  loadConfigFile,
  resolveSettings,
  type ConfigFile,
  type LabSettings,
} from "../config/index.js";
import { packageRoot } from "../suite/index.js";
import { BUILTIN_TOOLS } from "../tools/index.js";
import type { DisplayMode } from "../ui/index.js";
import { stringOption, type CliIO, type OptionDef, type ParsedArgs } from "./command.js";

/** lab's version, from its package.json. */
export const LAB_VERSION = (
  JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { version: string }
).version;

/** Options most commands share. */
export const commonOptions = {
  "evals-dir": {
    type: "string",
    value: "DIR",
    description: "Where suites live (default: ./evals, then lab's built-in suites)",
    env: "LAB_EVALS_DIR",
  },
  "runs-dir": {
    type: "string",
    value: "DIR",
    description: "Where runs are stored (default: ./runs)",
    env: "LAB_RUNS_DIR",
  },
} as const satisfies Record<string, OptionDef>;

/** The --config option. */
export const configOption = {
  config: {
    type: "string",
    value: "FILE",
    description: "Config file declaring tools and defaults (default: ./lab.config.json)",
    env: "LAB_CONFIG",
  },
} as const satisfies Record<string, OptionDef>;

/** The --display option. */
export const displayOption = {
  display: {
    type: "string",
    value: "MODE",
    description:
      "Progress on stderr: tty, plain, json (NDJSON) or silent (default: tty on a terminal, else plain)",
  },
} as const satisfies Record<string, OptionDef>;

/** Settings from the shared options and the environment. */
export function settingsFrom(args: ParsedArgs, io: CliIO): LabSettings {
  return resolveSettings(
    { evalsDir: stringOption(args, "evals-dir"), runsDir: stringOption(args, "runs-dir") },
    io.env,
    io.cwd,
  );
}

/** The config file named by --config / LAB_CONFIG, or ./lab.config.json. */
export function configFrom(args: ParsedArgs, io: CliIO): ConfigFile {
  const loaded = loadConfigFile({
    explicit: stringOption(args, "config") ?? io.env.LAB_CONFIG,
    cwd: io.cwd,
  });
  // lab's own tools are found before the file's, so an entry by their name would never run.
  for (const name of Object.keys(loaded.config.tools).filter((tool) =>
    (BUILTIN_TOOLS as readonly string[]).includes(tool),
  ))
    io.stderr.write(
      `lab: warning: ${loaded.file ?? "lab.config.json"} declares a tool "${name}", which is lab's own: that entry is ignored; give it another name to run it.\n`,
    );
  return loaded.config;
}

/** The --display value, checked. */
export function displayFrom(args: ParsedArgs): DisplayMode | undefined {
  const value = stringOption(args, "display");
  if (value === undefined) return undefined;
  if (value === "tty" || value === "plain" || value === "json" || value === "silent") return value;
  throw new UsageError(`--display expects tty, plain, json or silent; got "${value}".`);
}

/** The required --suite value. */
export function suiteFrom(args: ParsedArgs, command: string): string {
  const suite = stringOption(args, "suite");
  if (suite === undefined || suite === "")
    throw new UsageError(
      `lab ${command} needs --suite NAME.`,
      "The built-in suite is `starter`: try `--suite starter`.",
    );
  return suite;
}

/** Rows as text columns for a terminal: each column padded to its widest cell, two spaces apart. */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/** A byte count for people: 512 B, 12.3 KB, 4.5 MB, 1.2 GB. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${String(bytes)} B`;
}
