import path from "node:path";
import { parseGeminiOutput } from "../parsers/index.js";
import type { AgentAdapter } from "../types.js";
import { findFiles } from "./find-files.js";

/** Gemini CLI (`gemini -p -o json --yolo`). See docs/design/agents.md. */
export const gemini: AgentAdapter = {
  name: "gemini",
  description: "Google's Gemini CLI, headless (gemini -p --output-format json --yolo)",
  package: { manager: "npm", name: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  credentials: [["GEMINI_API_KEY", "GOOGLE_API_KEY"]],
  optionalEnv: ["GOOGLE_GEMINI_BASE_URL"],
  invocation(input) {
    const { settings } = input;
    const config = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      // One attempt per request: a dead endpoint fails in seconds (the default outlasts 90 s).
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 2 },
    };
    return {
      argv: [
        input.executable,
        "-p",
        input.prompt,
        ...(settings.model === undefined ? [] : ["-m", settings.model]),
        "--output-format",
        "json",
        "--yolo",
        "--skip-trust",
      ],
      env: {
        ...input.credentials,
        ...(settings.baseUrl === undefined ? {} : { GOOGLE_GEMINI_BASE_URL: settings.baseUrl }),
      },
      files: [
        {
          path: path.join(input.home, ".gemini", "settings.json"),
          content: `${JSON.stringify(config, null, 2)}\n`,
        },
      ],
    };
  },
  parse: parseGeminiOutput,
  async transcripts(home, outcome) {
    const prefix = outcome.sessionId?.slice(0, 8);
    if (prefix === undefined) return [];
    return await findFiles(
      path.join(home, ".gemini", "tmp"),
      (file) => file.startsWith("session-") && file.includes(prefix),
      3,
    );
  },
};
