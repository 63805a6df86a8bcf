import path from "node:path";
import { parseOpencodeOutput } from "../parsers/index.js";
import type { AgentAdapter } from "../types.js";

/**
 * opencode (`opencode run --format json`). With a base URL, the model is served by an
 * OpenAI-compatible provider named "lab" whose key comes from OPENAI_API_KEY; without one, the
 * model names one of opencode's own providers ("anthropic/claude-sonnet-4-5"), which reads its
 * usual variable. See docs/design/agents.md.
 */
export const opencode: AgentAdapter = {
  name: "opencode",
  description: "opencode CLI, headless (opencode run --format json)",
  package: { manager: "npm", name: "opencode-ai", version: "1.18.33", bin: "opencode" },
  credentials: [
    ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY"],
  ],
  optionalEnv: [],
  invocation(input) {
    const { settings } = input;
    const custom = settings.baseUrl !== undefined;
    const modelName = settings.model ?? (custom ? "default" : undefined);
    const model = custom ? `lab/${modelName ?? "default"}` : settings.model;
    const config: Record<string, unknown> = {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      permission: { edit: "allow", bash: "allow", webfetch: "deny" },
      ...(model === undefined ? {} : { model, small_model: model }),
      ...(custom
        ? {
            provider: {
              lab: {
                npm: "@ai-sdk/openai-compatible",
                name: "lab",
                options: { baseURL: settings.baseUrl, apiKey: "{env:OPENAI_API_KEY}" },
                models: { [modelName ?? "default"]: { name: modelName, tool_call: true } },
              },
            },
          }
        : {}),
    };
    return {
      argv: [input.executable, "run", "--format", "json", input.prompt],
      env: {
        ...input.credentials,
        OPENCODE_CONFIG: path.join(input.home, ".config", "opencode", "opencode.json"),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      },
      files: [
        {
          path: path.join(input.home, ".config", "opencode", "opencode.json"),
          content: `${JSON.stringify(config, null, 2)}\n`,
        },
      ],
    };
  },
  parse: parseOpencodeOutput,
  // Its JSONL stdout, kept beside the trial, is the transcript; its own store is a database.
  transcripts() {
    return Promise.resolve([]);
  },
};
