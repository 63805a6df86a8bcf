/**
 * Text dialects: how the scripted model server answers agents that take no tool calls and read
 * their actions from the model's text instead (aider's edit blocks, mini-swe-agent's bash
 * blocks). The server serves them under `/text/<dialect>/v1/chat/completions`; the number of
 * assistant messages already in the conversation says which step comes next.
 * docs/design/agents-python.md says what each agent does with these replies.
 */
import type { ScriptStep } from "./script.js";
import { editCommand, readCommand, writeCommand } from "./shell.js";

/** What a dialect needs to render a step. */
export interface TextStepContext {
  /** The agent's work tree, when the request reveals it (some dialects want absolute paths). */
  readonly workTree?: string | undefined;
  /** Whether this is past the script's last step (the dialect's way of saying "done"). */
  readonly done: boolean;
}

/** Renders one script step as the assistant's reply text in a dialect. */
export type TextDialect = (step: ScriptStep, context: TextStepContext) => string;

/** The command whose first output line ends a mini-swe-agent run ("Submitted"). */
export const MINI_SUBMIT_COMMAND = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/** A text's lines for an edit block: one final newline dropped, as aider adds it back. */
function blockLines(text: string): string[] {
  return text === "" ? [] : [text.endsWith("\n") ? text.slice(0, -1) : text];
}

/**
 * An aider SEARCH/REPLACE block (its `diff` edit format). The path is written `./path`: a bare
 * path that names a repository file not yet in the chat is a "mention", which makes aider add
 * the file and ask again *without applying the block*; `./path` is no mention, so aider asks
 * "Allow edits to file that has not been added to the chat?", which --yes-always accepts.
 */
function searchReplace(file: string, search: string, replace: string): string {
  const shown = file.startsWith("/") || file.startsWith("./") ? file : `./${file}`;
  return [
    shown,
    "```",
    "<<<<<<< SEARCH",
    ...blockLines(search),
    "=======",
    ...blockLines(replace),
    ">>>>>>> REPLACE",
    "```",
    "",
  ].join("\n");
}

/**
 * aider 0.86 with `--edit-format diff` and `--yes-always`, one `--message` per run. A write is a
 * block with an empty SEARCH (a new file; on an existing file aider appends), an edit replaces
 * whole lines, a read asks for the file, which aider adds to the chat and then asks again (the
 * only step after which aider sends another request), a shell step is a ```bash block aider
 * shows but does not run (running needs an explicit yes), and finish is plain text.
 */
export const aiderDialect: TextDialect = (step) => {
  switch (step.kind) {
    case "write":
      return `Here is the new file.\n\n${searchReplace(step.path, "", step.content)}`;
    case "edit":
      return `Here is the change.\n\n${searchReplace(step.path, step.oldString, step.newString)}`;
    case "read": {
      const file = step.path.replace(/^\.\//, "");
      return `I need to see ${file} first. Please add ${file} to the chat.`;
    }
    case "shell":
      return `Run this command:\n\n\`\`\`bash\n${step.command}\n\`\`\`\n`;
    case "finish":
      return step.text;
  }
};

/**
 * A command fit for one mini-swe-agent action block. Its action regex ends the block at the
 * first "\n```", so a command holding one (a Markdown file's fence) travels base64-encoded.
 */
function miniCommand(command: string): string {
  if (!command.includes("\n```")) return command;
  return `echo ${Buffer.from(command, "utf8").toString("base64")} | base64 -d | bash`;
}

/** One mini-swe-agent text-mode reply: a THOUGHT, then exactly one action block. */
function miniAction(thought: string, command: string): string {
  return `THOUGHT: ${thought}\n\n\`\`\`mswea_bash_command\n${miniCommand(command)}\n\`\`\`\n`;
}

/**
 * mini-swe-agent 2.x in text mode (`--model-class litellm_textbased -c mini_textbased.yaml`):
 * every step is a shell command in a ```mswea_bash_command block, and finish (or anything past
 * the script's end) is the submit command, since a reply without an action is a format error.
 */
export const miniDialect: TextDialect = (step, context) => {
  if (context.done || step.kind === "finish") {
    return miniAction(step.kind === "finish" ? step.text : "Done.", MINI_SUBMIT_COMMAND);
  }
  switch (step.kind) {
    case "shell":
      return miniAction("Running a command.", step.command);
    case "write":
      return miniAction(`Writing ${step.path}.`, writeCommand(step.path, step.content));
    case "read":
      return miniAction(`Reading ${step.path}.`, readCommand(step.path));
    case "edit":
      return miniAction(
        `Editing ${step.path}.`,
        editCommand(step.path, step.oldString, step.newString),
      );
  }
};

/** The dialects the server knows, by the name used in the URL prefix. */
export const TEXT_DIALECTS: Readonly<Record<string, TextDialect>> = {
  aider: aiderDialect,
  mini: miniDialect,
};
