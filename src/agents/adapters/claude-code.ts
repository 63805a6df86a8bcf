import path from "node:path";
import { parseClaudeOutput } from "../parsers/index.js";
import type { AgentAdapter } from "../types.js";
import { findFiles } from "./find-files.js";

/**
 * Claude Code (`claude -p`), with every permission granted inside the sandbox. Its JSON result
 * carries the cost from its own price table. See docs/design/agents.md.
 */
export const claudeCode: AgentAdapter = {
  name: "claude-code",
  description: "Anthropic's Claude Code CLI, headless (claude -p --output-format json)",
  package: { manager: "npm", name: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
  credentials: [["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]],
  optionalEnv: ["ANTHROPIC_BASE_URL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_CUSTOM_HEADERS"],
  invocation(input) {
    const { settings } = input;
    return {
      argv: [
        input.executable,
        "-p",
        input.prompt,
        "--output-format",
        "json",
        "--dangerously-skip-permissions",
        ...(settings.model === undefined ? [] : ["--model", settings.model]),
        ...(settings.maxCostUsd === undefined
          ? []
          : ["--max-budget-usd", String(settings.maxCostUsd)]),
      ],
      env: {
        ...input.credentials,
        ...(settings.baseUrl === undefined ? {} : { ANTHROPIC_BASE_URL: settings.baseUrl }),
        // Autoupdater, telemetry, error reports and feature-flag lookups off; the sandbox is the
        // boundary, so Claude Code may skip its own permission prompts (even as root).
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        IS_SANDBOX: "1",
        // Few retries: a dead endpoint fails in seconds instead of minutes.
        CLAUDE_CODE_MAX_RETRIES: "2",
      },
      files: [],
    };
  },
  parse: parseClaudeOutput,
  async transcripts(home, outcome) {
    if (outcome.sessionId === undefined) return [];
    const name = `${outcome.sessionId}.jsonl`;
    return await findFiles(path.join(home, ".claude", "projects"), (file) => file === name, 2);
  },
};
