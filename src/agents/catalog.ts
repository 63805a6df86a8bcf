import { LabError } from "../core/index.js";
import { aider } from "./adapters/aider.js";
import { claudeCode } from "./adapters/claude-code.js";
import { miniSweAgent } from "./adapters/mini-swe-agent.js";
import { codex } from "./adapters/codex.js";
import { gemini } from "./adapters/gemini.js";
import { opencode } from "./adapters/opencode.js";
import { qwenCode } from "./adapters/qwen-code.js";
import type { AgentAdapter } from "./types.js";

/** Every coding-agent CLI lab has an adapter for, in the order `lab tools list` shows them. */
export const AGENT_ADAPTERS: readonly AgentAdapter[] = [
  claudeCode,
  codex,
  gemini,
  opencode,
  qwenCode,
  aider,
  miniSweAgent,
];

/** The adapter named `name`, or undefined. */
export function findAdapter(name: string): AgentAdapter | undefined {
  return AGENT_ADAPTERS.find((adapter) => adapter.name === name);
}

/** The adapter named `name`, or an error listing the known ones. */
export function requireAdapter(name: string): AgentAdapter {
  const adapter = findAdapter(name);
  if (adapter === undefined) {
    throw new LabError("TOOL_NOT_FOUND", `lab has no adapter for "${name}".`, {
      hint: `Agents lab can install: ${AGENT_ADAPTERS.map((known) => known.name).join(", ")}. Any other CLI can run as a command tool (lab.config.json "tools").`,
    });
  }
  return adapter;
}
