import path from "node:path";
import { parseQwenOutput } from "../parsers/index.js";
import type { AgentAdapter } from "../types.js";
import { findFiles } from "./find-files.js";

/** Qwen Code (`qwen -p -o json --yolo`) over an OpenAI-compatible API. See docs/design/agents.md. */
export const qwenCode: AgentAdapter = {
  name: "qwen-code",
  description:
    "Qwen Code CLI, headless over an OpenAI-compatible API (qwen -p --output-format json)",
  package: { manager: "npm", name: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen" },
  credentials: [["OPENAI_API_KEY"]],
  optionalEnv: ["OPENAI_BASE_URL", "OPENAI_MODEL"],
  invocation(input) {
    const { settings } = input;
    const config = {
      security: { auth: { selectedType: "openai" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
    };
    return {
      argv: [
        input.executable,
        "-p",
        input.prompt,
        "--output-format",
        "json",
        "--yolo",
        "--auth-type",
        "openai",
        ...(settings.model === undefined ? [] : ["--model", settings.model]),
        // It ends its own run a little before lab's limit, so its partial result is printed.
        "--max-wall-time",
        `${String(Math.max(1, Math.floor(input.timeoutMs / 1000) - 15))}s`,
      ],
      env: {
        ...input.credentials,
        ...(settings.baseUrl === undefined ? {} : { OPENAI_BASE_URL: settings.baseUrl }),
        ...(settings.model === undefined ? {} : { OPENAI_MODEL: settings.model }),
      },
      files: [
        {
          path: path.join(input.home, ".qwen", "settings.json"),
          content: `${JSON.stringify(config, null, 2)}\n`,
        },
      ],
    };
  },
  parse: parseQwenOutput,
  async transcripts(home, outcome) {
    if (outcome.sessionId === undefined) return [];
    const name = `${outcome.sessionId}.jsonl`;
    return await findFiles(path.join(home, ".qwen", "projects"), (file) => file === name, 3);
  },
};
