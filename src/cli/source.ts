import path from "node:path";
import { commandToolSpec, type ConfigFile, type LabSettings } from "../config/index.js";
import { UsageError, type Tool } from "../core/index.js";
import type { ToolRequest } from "../queue/index.js";
import { resolveTool } from "../tools/index.js";
import { agentFlagsFrom, agentToolOptions } from "./agent-options.js";
import { listOption, stringOption, type ParsedArgs } from "./command.js";

/**
 * The flags of `lab run TOOL` that make its tool, as given: what a queue's workers need to
 * build the same tool from their own installation, lab.config.json and credentials.
 */
export function toolRequestFrom(toolName: string, args: ParsedArgs, cwd: string): ToolRequest {
  const command = stringOption(args, "command");
  if (command !== undefined && toolName !== "command")
    throw new UsageError(`--command only goes with the \`command\` tool, not "${toolName}".`);
  const flags = agentFlagsFrom(args);
  const commandEnv = listOption(args, "command-env");
  // Resolved here: a queue's workers get absolute paths, which must exist on them too.
  // Not listOption: a folder's name may hold a comma.
  const given = args.values.path;
  const commandPaths =
    typeof given === "string" || Array.isArray(given)
      ? (Array.isArray(given) ? given : [given]).map((dir) => path.resolve(cwd, dir))
      : undefined;
  if (commandPaths !== undefined && command === undefined)
    throw new UsageError(
      '--path only goes with --command; a tool in lab.config.json names its folders in its "paths".',
    );
  return {
    name: toolName,
    ...(command === undefined ? {} : { command }),
    ...(commandEnv === undefined ? {} : { commandEnv }),
    ...(commandPaths === undefined ? {} : { commandPaths }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.maxCost === undefined ? {} : { maxCost: flags.maxCost }),
  };
}

/**
 * Builds the tool a request names with this machine's lab.config.json, settings and
 * environment: the same code for `lab run` and for `lab worker`, so both make the same tool.
 */
export function toolFromRequest(
  request: ToolRequest,
  file: ConfigFile,
  settings: LabSettings,
  env: Readonly<Record<string, string | undefined>>,
): Tool {
  const configured = Object.fromEntries(
    Object.entries(file.tools).map(([name, entry]) => [name, commandToolSpec(name, entry, env)]),
  );
  const adhoc =
    request.command === undefined
      ? undefined
      : commandToolSpec(
          "command",
          { command: request.command, env: request.commandEnv, paths: request.commandPaths },
          env,
        );
  return resolveTool(request.name, {
    configured,
    adhoc,
    agents: agentToolOptions(
      request.name,
      { model: request.model, baseUrl: request.baseUrl, maxCost: request.maxCost },
      file,
      settings,
      env,
    ),
  });
}
