import {
  AGENT_ADAPTERS,
  createAgentTool,
  findAdapter,
  type AgentToolOptions,
} from "../agents/index.js";
import { closestNames, LabError, type Tool } from "../core/index.js";
import { createCommandTool, type CommandToolSpec } from "./command.js";
import { createGoldTool } from "./gold.js";
import { createNoopTool } from "./noop.js";

/**
 * Tools every lab has, as users name them: `predictions` is changes stated up front (a
 * predictions file), not a Tool, but `lab run predictions` names it like one.
 */
export const BUILTIN_TOOLS = ["gold", "noop", "command", "predictions"] as const;

/** Finds a tool by name among the built-ins and the configured command tools. */
export function resolveTool(
  name: string,
  options: {
    configured: Readonly<Record<string, CommandToolSpec>>;
    adhoc?: CommandToolSpec | undefined;
    /** How agent CLIs are found and set up; without it, agents are unknown names. */
    agents?: AgentToolOptions | undefined;
  },
): Tool {
  if (name === "gold") return createGoldTool();
  if (name === "noop") return createNoopTool();
  if (name === "command") {
    if (options.adhoc === undefined) {
      throw new LabError("USAGE", "The command tool needs a command line.", {
        hint: "Pass --command 'CMD {prompt_file} {workdir}', or declare a named tool in lab.config.json.",
      });
    }
    return createCommandTool(options.adhoc);
  }
  const configured = options.configured[name];
  if (configured !== undefined) return createCommandTool(configured);
  const adapter = findAdapter(name);
  if (adapter !== undefined && options.agents !== undefined) {
    return createAgentTool(adapter, options.agents);
  }
  const known = [
    ...BUILTIN_TOOLS,
    ...AGENT_ADAPTERS.map((agent) => agent.name),
    ...Object.keys(options.configured),
  ];
  const near =
    closestNames(name, known)[0] ??
    known.find((candidate) => name.startsWith(candidate.slice(0, 4)));
  throw new LabError(
    "TOOL_NOT_FOUND",
    `Unknown tool "${name}"${near === undefined ? "" : ` (did you mean ${near}?)`}.`,
    {
      hint: `Tools here: ${known.join(", ")} (\`lab tools list\` says which are installed). Declare others in lab.config.json under "tools", or use \`lab run command --command '...'\`.`,
    },
  );
}
