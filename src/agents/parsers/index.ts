/**
 * One parser per coding-agent CLI, from its final machine-readable output to an AgentOutcome.
 * Conventions shared by all (what `inputTokens` excludes, how reasoning tokens and side calls
 * count) are in each parser's header.
 */
export { parseClaudeOutput } from "./claude.js";
export { parseCodexOutput } from "./codex.js";
export { parseGeminiOutput } from "./gemini.js";
export { parseOpencodeOutput } from "./opencode.js";
export { parseQwenOutput } from "./qwen.js";
