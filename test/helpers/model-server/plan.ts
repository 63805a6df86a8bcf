/**
 * What the scripted model says next. Stateless: the script is chosen by the prompt, the step by
 * the number of tool results (or, for text dialects, assistant messages) already in the request,
 * and the tool by the names and argument schemas the request offers.
 */
import path from "node:path";
import { sampleFromSchema } from "./json-schema.js";
import type { Script, ScriptStep } from "./script.js";
import { addFilePatch, editCommand, readCommand, updateFilePatch, writeCommand } from "./shell.js";
import type { TextDialect } from "./text-dialects.js";
import type { Conversation, JsonSchema, OfferedTool, Reply } from "./types.js";
import { isRecord } from "./values.js";

/** The text that ends a turn past a script's last step, or when no script matches. */
export const FINAL_TEXT = "Done.";

/** The plain text of a side call that asks for no JSON (titles). */
export const SIDE_TEXT = "Scripted title";

/** The `instruction` Gemini's `replace` tool requires. */
export const EDIT_INSTRUCTION = "Replace the old text with the new text, as scripted.";

/** File tools by step kind, by the names the five CLIs use (opencode and Qwen share `edit`). */
const FILE_TOOLS = {
  write: ["Write", "write_file", "write"],
  edit: ["Edit", "replace", "edit"],
  read: ["Read", "read_file", "read"],
} as const;

/** Shell tools: Claude, Gemini and Qwen, opencode, Codex, older Codex. */
const SHELL_TOOLS = ["Bash", "run_shell_command", "bash", "exec_command", "shell"] as const;

/** Argument names by meaning; the first one is used when the schema names none of them. */
const ARGUMENT_NAMES = {
  path: ["file_path", "filePath", "path", "absolute_path"],
  content: ["content"],
  oldString: ["old_string", "oldString"],
  newString: ["new_string", "newString"],
  command: ["command", "cmd"],
  instruction: ["instruction"],
} as const;

type Meaning = keyof typeof ARGUMENT_NAMES;

/** The first script whose `match` occurs in any user text, else the default. */
export function chooseScript(
  userTexts: readonly string[],
  scripts: readonly Script[],
  defaultScript: Script | undefined,
): Script | undefined {
  return scripts.find((s) => userTexts.some((text) => text.includes(s.match))) ?? defaultScript;
}

/** The step at an index, with `done` when the index is past the script's end. */
export function stepAt(
  script: Script | undefined,
  index: number,
): { step: ScriptStep; done: boolean } {
  const step = script?.steps[index];
  return step ? { step, done: false } : { step: { kind: "finish", text: FINAL_TEXT }, done: true };
}

function properties(tool: OfferedTool): Record<string, unknown> {
  return isRecord(tool.schema?.properties) ? tool.schema.properties : {};
}

function required(tool: OfferedTool): string[] {
  const list = tool.schema?.required;
  return Array.isArray(list) ? list.filter((n): n is string => typeof n === "string") : [];
}

function findTool(conversation: Conversation, names: readonly string[]): OfferedTool | undefined {
  for (const name of names) {
    const tool = conversation.tools.find((t) => t.name === name && t.kind === "function");
    if (tool) return tool;
  }
  return undefined;
}

/**
 * Arguments for a function tool: each meaning under the property name the schema uses, then a
 * placeholder for any other required property.
 */
export function fillArguments(
  tool: OfferedTool,
  values: Partial<Record<Meaning, string>>,
): Record<string, unknown> {
  const props = properties(tool);
  const args: Record<string, unknown> = {};
  for (const [meaning, value] of Object.entries(values) as [Meaning, string | undefined][]) {
    if (value === undefined) continue;
    const names: readonly string[] = ARGUMENT_NAMES[meaning];
    const name = names.find((n) => n in props) ?? names[0]!;
    const schema = props[name];
    // Old Codex `shell` took an argv array.
    args[name] = isRecord(schema) && schema.type === "array" ? ["bash", "-lc", value] : value;
  }
  if ("instruction" in props && args.instruction === undefined) args.instruction = EDIT_INSTRUCTION;
  for (const name of required(tool)) {
    const schema = props[name];
    if (args[name] === undefined) args[name] = sampleFromSchema(isRecord(schema) ? schema : {});
  }
  return args;
}

/** The step's path made absolute against the work tree (file tools reject relative paths). */
export function absolutePath(file: string, workTree: string | undefined): string {
  if (file.startsWith("/") || workTree === undefined) return file;
  return path.posix.join(workTree, file);
}

/** The shell command that plays a step, for agents without the matching file tool. */
function shellFor(step: Exclude<ScriptStep, { kind: "finish" }>): string {
  switch (step.kind) {
    case "shell":
      return step.command;
    case "write":
      return writeCommand(step.path, step.content);
    case "read":
      return readCommand(step.path);
    case "edit":
      return editCommand(step.path, step.oldString, step.newString);
  }
}

/** Codex's patch text for a write or edit step, or undefined for other steps. */
function patchFor(step: ScriptStep): string | undefined {
  if (step.kind === "write") return addFilePatch(step.path, step.content);
  if (step.kind === "edit") return updateFilePatch(step.path, step.oldString, step.newString);
  return undefined;
}

/** The tool call (or final text) that plays one step with the tools the request offers. */
export function replyForStep(
  step: ScriptStep,
  index: number,
  conversation: Conversation,
  workTree: string | undefined,
): Reply {
  if (step.kind === "finish") return { kind: "text", text: step.text };
  const id = `call_scripted_${index}`;
  if (step.kind !== "shell") {
    const fileTool = findTool(conversation, FILE_TOOLS[step.kind]);
    if (fileTool) {
      const file = absolutePath(step.path, workTree);
      const values =
        step.kind === "write"
          ? { path: file, content: step.content }
          : step.kind === "edit"
            ? { path: file, oldString: step.oldString, newString: step.newString }
            : { path: file };
      return {
        kind: "function",
        id,
        name: fileTool.name,
        arguments: fillArguments(fileTool, values),
      };
    }
    const patch = patchFor(step);
    const applyPatch = conversation.tools.find((t) => t.name === "apply_patch");
    if (patch !== undefined && applyPatch) {
      return applyPatch.kind === "custom"
        ? { kind: "custom", id, name: applyPatch.name, input: patch }
        : { kind: "function", id, name: applyPatch.name, arguments: { input: patch } };
    }
  }
  const shellTool = findTool(conversation, SHELL_TOOLS);
  if (shellTool) {
    const args = fillArguments(shellTool, { command: shellFor(step) });
    return { kind: "function", id, name: shellTool.name, arguments: args };
  }
  return { kind: "text", text: `The scripted model has no tool for a ${step.kind} step.` };
}

/** A text answer, as JSON built from the schema when the request asks for JSON. */
export function textReply(text: string, schema: JsonSchema | undefined): Reply {
  return { kind: "text", text: schema ? JSON.stringify(sampleFromSchema(schema)) : text };
}

/** The answer of a main-loop call: the script's next step by tool-result count. */
export function planToolTurn(
  conversation: Conversation,
  script: Script | undefined,
  workTree: string | undefined,
): { reply: Reply; step: number } {
  const index = conversation.toolResultCount;
  const { step } = stepAt(script, index);
  const reply = replyForStep(step, index, conversation, workTree);
  return {
    reply: reply.kind === "text" ? textReply(reply.text, conversation.responseSchema) : reply,
    step: index,
  };
}

/** The answer of a text-dialect call: the script's next step by assistant-message count. */
export function planTextTurn(
  conversation: Conversation,
  script: Script | undefined,
  dialect: TextDialect,
  workTree: string | undefined,
): { reply: Reply; step: number } {
  // aider sends example exchanges (and the repo map, the files) as user/assistant pairs before
  // the prompt: only assistant messages after the prompt are steps played.
  const prompt =
    script === undefined
      ? -1
      : conversation.userTexts.findIndex((text) => text.includes(script.match));
  const index = conversation.assistantsAfterUser?.[prompt] ?? conversation.assistantCount;
  const { step, done } = stepAt(script, index);
  return { reply: { kind: "text", text: dialect(step, { workTree, done }) }, step: index };
}
