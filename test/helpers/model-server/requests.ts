/**
 * Request bodies shaped like the ones each CLI sends, built from the recorded shapes in
 * `test/fixtures/agents/request-shapes/` (tool names and schemas, models, headers). The recordings
 * hold no prompt text, so the working-directory lines each CLI writes are added here.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/** One recorded request shape (the parts the tests use). */
export interface RequestShape {
  readonly requests: readonly { method: string; url: string; side: boolean; call?: string }[];
  readonly main_request: { url: string; headers: Record<string, string>; model?: string };
  readonly tool_names: readonly string[];
  readonly key_tools: readonly {
    name: string;
    custom?: boolean;
    format?: unknown;
    schema?: unknown;
  }[];
}

const SHAPES = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "fixtures",
  "agents",
  "request-shapes",
);

/** Reads `<name>.request-shape.json` from the fixtures. */
export function loadShape(name: string): RequestShape {
  return JSON.parse(
    readFileSync(path.join(SHAPES, `${name}.request-shape.json`), "utf8"),
  ) as RequestShape;
}

/** A tool as offered: its recorded schema, or an empty one for tools the recording left out. */
interface ShapeTool {
  readonly name: string;
  readonly custom: boolean;
  readonly format: unknown;
  readonly schema: unknown;
}

function shapeTools(shape: RequestShape): ShapeTool[] {
  return shape.tool_names.map((name) => {
    const key = shape.key_tools.find((t) => t.name === name);
    return {
      name,
      custom: key?.custom === true,
      format: key?.format,
      schema: key?.schema ?? { type: "object", properties: {} },
    };
  });
}

/** A tool call already made and its result, for requests past step 0. */
export interface PastCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** What every builder takes. */
export interface Turn {
  readonly prompt: string;
  readonly workTree: string;
  /** Tool calls already answered: their number is the step the server plays next. */
  readonly past?: readonly PastCall[];
  readonly stream?: boolean;
}

/** Claude Code: system blocks with its environment section, a system-reminder before the prompt. */
export function claudeBody(shape: RequestShape, turn: Turn): Record<string, unknown> {
  const messages: unknown[] = [
    {
      role: "user",
      content: [
        {
          type: "text",
          text: "<system-reminder>\nAs you answer, use the context.\n</system-reminder>",
        },
        { type: "text", text: turn.prompt },
      ],
    },
  ];
  (turn.past ?? []).forEach((call, i) => {
    const id = `toolu_${i}`;
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id, name: call.name, input: call.args }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: "ok" }],
    });
  });
  const environment = `# Environment\nYou have been invoked in the following environment: \n - Primary working directory: ${turn.workTree}\n - Is a git repository: true\n - Platform: linux`;
  return {
    model: shape.main_request.model,
    messages,
    system: [
      { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: "text", text: environment },
    ],
    tools: shapeTools(shape).map((t) => ({
      name: t.name,
      description: t.name,
      input_schema: t.schema,
    })),
    metadata: { user_id: "scripted" },
    max_tokens: 64000,
    thinking: { type: "adaptive" },
    context_management: { edits: [] },
    output_config: { effort: "high" },
    stream: turn.stream ?? true,
  };
}

/** Codex: developer and environment-context input items, then the prompt; custom `apply_patch`. */
export function codexBody(
  shape: RequestShape,
  turn: Turn,
  model = "gpt-5.5",
): Record<string, unknown> {
  const input: unknown[] = [
    {
      type: "message",
      role: "developer",
      content: [
        {
          type: "input_text",
          text: "<permissions instructions>\nApproval policy is currently never.\n</permissions instructions>",
        },
      ],
    },
    {
      type: "message",
      role: "user",
      content: [
        {
          type: "input_text",
          text: `<environment_context>\n  <cwd>${turn.workTree}</cwd>\n  <shell>bash</shell>\n</environment_context>`,
        },
      ],
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: turn.prompt }] },
  ];
  (turn.past ?? []).forEach((call, i) => {
    const callId = `call_${i}`;
    if (call.name === "apply_patch") {
      input.push({
        type: "custom_tool_call",
        call_id: callId,
        name: call.name,
        input: call.args.input,
      });
      input.push({ type: "custom_tool_call_output", call_id: callId, output: "Success." });
    } else {
      input.push({
        type: "function_call",
        call_id: callId,
        name: call.name,
        arguments: JSON.stringify(call.args),
      });
      input.push({ type: "function_call_output", call_id: callId, output: "ok" });
    }
  });
  const tools = shapeTools(shape).map((t) =>
    t.custom
      ? { type: "custom", name: t.name, description: t.name, format: t.format }
      : {
          type: "function",
          name: t.name,
          description: t.name,
          strict: false,
          parameters: t.schema,
        },
  );
  return {
    model,
    stream: turn.stream ?? true,
    instructions: "You are Codex, a coding agent.",
    input,
    tools,
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium" },
    store: false,
    include: [],
    prompt_cache_key: "scripted",
    text: { verbosity: "medium" },
    client_metadata: {},
  };
}

/** Codex's headers, with the recorded `<workdir>` in `x-codex-turn-metadata` replaced. */
export function codexHeaders(shape: RequestShape, workTree: string): Record<string, string> {
  const dropped = new Set(["host", "content-length", "accept-encoding"]);
  const headers = Object.fromEntries(
    Object.entries(shape.main_request.headers).filter(([name]) => !dropped.has(name)),
  );
  const metadata = headers["x-codex-turn-metadata"] ?? "{}";
  return { ...headers, "x-codex-turn-metadata": metadata.replaceAll("<workdir>", workTree) };
}

/** Gemini CLI: its session context as the first user part, the prompt as the second. */
export function geminiBody(shape: RequestShape, turn: Turn): Record<string, unknown> {
  const context = `<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\nI'm currently working in the directory: ${turn.workTree}\nHere is the folder structure of the current working directories:\n\n${turn.workTree}/\n└───README.md\n</session_context>`;
  const contents: unknown[] = [{ role: "user", parts: [{ text: context }, { text: turn.prompt }] }];
  (turn.past ?? []).forEach((call, i) => {
    const id = `${call.name}-${i}`;
    contents.push({
      role: "model",
      parts: [{ functionCall: { id, name: call.name, args: call.args } }],
    });
    contents.push({
      role: "user",
      parts: [{ functionResponse: { id, name: call.name, response: { output: "ok" } } }],
    });
  });
  const declarations = shapeTools(shape).map((t) => ({
    name: t.name,
    description: t.name,
    parametersJsonSchema: t.schema,
  }));
  return {
    contents,
    systemInstruction: {
      role: "user",
      parts: [{ text: "You are Gemini CLI, an interactive CLI agent." }],
    },
    tools: [{ functionDeclarations: declarations }],
    generationConfig: { temperature: 1, topP: 0.95, thinkingConfig: { includeThoughts: true } },
  };
}

/** Chat Completions messages after the prompt, for each answered call. */
function chatHistory(past: readonly PastCall[]): unknown[] {
  return past.flatMap((call, i) => [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        },
      ],
    },
    { role: "tool", tool_call_id: `call_${i}`, content: "ok" },
  ]);
}

function chatTools(shape: RequestShape): unknown[] {
  return shapeTools(shape).map((t) => ({
    type: "function",
    function: { name: t.name, description: t.name, parameters: t.schema },
  }));
}

/** opencode: an `<env>` block in the system message, camelCase tools, usage requested. */
export function opencodeBody(shape: RequestShape, turn: Turn): Record<string, unknown> {
  const system = `You are opencode, an interactive CLI tool.\nHere is some useful information about the environment you are running in:\n<env>\n  Working directory: ${turn.workTree}\n  Is directory a git repo: yes\n  Platform: linux\n</env>`;
  return {
    model: shape.main_request.model,
    max_tokens: 8192,
    messages: [
      { role: "system", content: system },
      { role: "user", content: turn.prompt },
      ...chatHistory(turn.past ?? []),
    ],
    tools: chatTools(shape),
    tool_choice: "auto",
    stream: turn.stream ?? true,
    stream_options: { include_usage: true },
  };
}

/** Qwen Code: its environment context as the first user message, content as parts. */
export function qwenBody(shape: RequestShape, turn: Turn): Record<string, unknown> {
  const context = `This is the Qwen Code. We are setting up the context for our chat.\nMy operating system is: linux\nI'm currently working in the directory: ${turn.workTree}\n`;
  const stream = turn.stream ?? true;
  return {
    model: shape.main_request.model,
    messages: [
      { role: "system", content: "You are Qwen Code, an interactive CLI agent." },
      { role: "user", content: [{ type: "text", text: context }] },
      { role: "user", content: [{ type: "text", text: turn.prompt }] },
      ...chatHistory(turn.past ?? []),
    ],
    max_tokens: 32000,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    tools: chatTools(shape),
  };
}
