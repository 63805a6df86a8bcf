import {
  DEFAULT_PRICE_TABLE,
  findAdapter,
  mergePriceTables,
  type AgentToolOptions,
} from "../agents/index.js";
import type { ConfigFile, LabSettings } from "../config/index.js";
import { UsageError } from "../core/index.js";
import { stringOption, type OptionDef, type ParsedArgs } from "./command.js";

/** Options of `lab run` that set up an agent CLI. */
export const agentOptions = {
  model: {
    type: "string",
    value: "NAME",
    description:
      "For agent CLIs: the model (default: the CLI's own, or lab.config.json agents.NAME.model)",
  },
  "base-url": {
    type: "string",
    value: "URL",
    description: "For agent CLIs: the model API's base URL (a gateway or a local server)",
  },
  "max-cost": {
    type: "string",
    value: "USD",
    description: "For agent CLIs that support it: a spending cap per trial, e.g. 2.50",
  },
} as const satisfies Record<string, OptionDef>;

/** The agent flags of `lab run`, as given. */
export interface AgentFlags {
  readonly model?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly maxCost?: string | undefined;
}

/** The agent flags of a command line. */
export function agentFlagsFrom(args: ParsedArgs): AgentFlags {
  return {
    model: stringOption(args, "model"),
    baseUrl: stringOption(args, "base-url"),
    maxCost: stringOption(args, "max-cost"),
  };
}

/**
 * How the agent named `toolName` is set up: flags over lab.config.json's `agents.<name>`; the
 * user's environment holds its credentials. Agent flags given to a tool that is no agent are a
 * usage error.
 */
export function agentToolOptions(
  toolName: string,
  flags: AgentFlags,
  file: ConfigFile,
  settings: LabSettings,
  env: Readonly<Record<string, string | undefined>>,
): AgentToolOptions {
  const isAgent = findAdapter(toolName) !== undefined;
  if (!isAgent) {
    const given = Object.entries({
      model: flags.model,
      "base-url": flags.baseUrl,
      "max-cost": flags.maxCost,
    })
      .filter(([, value]) => value !== undefined)
      .map(([name]) => `--${name}`);
    if (given.length > 0) {
      throw new UsageError(
        `${given.join(", ")} only go with agent CLIs, not "${toolName}".`,
        "See `lab tools list` for the agent CLIs lab can run.",
      );
    }
  }
  if (flags.baseUrl !== undefined && !/^https?:\/\/[^/]/.test(flags.baseUrl)) {
    throw new UsageError(
      `--base-url expects a URL such as http://127.0.0.1:8080/v1; got "${flags.baseUrl}".`,
    );
  }
  let maxCostUsd: number | undefined;
  if (flags.maxCost !== undefined) {
    maxCostUsd = Number(flags.maxCost);
    if (!Number.isFinite(maxCostUsd) || maxCostUsd <= 0) {
      throw new UsageError(
        `--max-cost expects a positive amount in USD, e.g. 2.50; got "${flags.maxCost}".`,
      );
    }
  }
  const fromFile = file.agents[toolName] ?? {};
  return {
    toolsDir: settings.toolsDir,
    env,
    prices: mergePriceTables(DEFAULT_PRICE_TABLE, file.prices),
    settings: {
      model: flags.model ?? fromFile.model,
      baseUrl: flags.baseUrl ?? fromFile.baseUrl,
      maxCostUsd: maxCostUsd ?? fromFile.maxCostUsd,
      extraArgs: fromFile.args,
    },
  };
}
