import path from "node:path";
import { parseCodexOutput } from "../parsers/index.js";
import type { AgentAdapter } from "../types.js";
import { findFiles } from "./find-files.js";

/** TOML string literal (basic string, escaped). */
function toml(value: string): string {
  return JSON.stringify(value);
}

/**
 * Codex CLI (`codex exec --json`). Its own bubblewrap sandbox is turned off: lab's sandbox is the
 * boundary, and Codex's cannot nest inside it. The model provider is declared in config.toml,
 * since Codex ignores OPENAI_BASE_URL. See docs/design/agents.md.
 */
export const codex: AgentAdapter = {
  name: "codex",
  description: "OpenAI's Codex CLI, headless (codex exec --json)",
  package: { manager: "npm", name: "@openai/codex", version: "0.171.0", bin: "codex" },
  credentials: [["OPENAI_API_KEY", "CODEX_API_KEY"]],
  optionalEnv: [],
  invocation(input) {
    const { settings } = input;
    const codexHome = path.join(input.home, ".codex");
    const keyName =
      input.credentials.OPENAI_API_KEY === undefined ? "CODEX_API_KEY" : "OPENAI_API_KEY";
    const config = [
      ...(settings.model === undefined ? [] : [`model = ${toml(settings.model)}`]),
      `model_provider = "lab"`,
      "check_for_update_on_startup = false",
      "analytics = { enabled = false }",
      "features = { plugins = false, remote_plugin = false, apps = false, plugin_sharing = false }",
      "",
      "[model_providers.lab]",
      `name = "lab"`,
      `base_url = ${toml(settings.baseUrl ?? "https://api.openai.com/v1")}`,
      `env_key = ${toml(keyName)}`,
      `wire_api = "responses"`,
      // Few retries: a dead endpoint fails in seconds instead of minutes.
      "request_max_retries = 2",
      "stream_max_retries = 2",
      "",
    ].join("\n");
    return {
      argv: [
        input.executable,
        "exec",
        "--json",
        "--dangerously-bypass-approvals-and-sandbox",
        "--disable",
        "unbounded_connection_retries",
        "--skip-git-repo-check",
        input.prompt,
      ],
      env: { ...input.credentials, CODEX_HOME: codexHome },
      files: [{ path: path.join(codexHome, "config.toml"), content: config }],
    };
  },
  parse: parseCodexOutput,
  async transcripts(home, outcome) {
    const id = outcome.sessionId;
    if (id === undefined) return [];
    return await findFiles(
      path.join(home, ".codex", "sessions"),
      (file) => file.startsWith("rollout-") && file.endsWith(`${id}.jsonl`),
      4,
    );
  },
};
