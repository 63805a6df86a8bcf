/**
 * Script steps as shell commands (for agents whose only tool is a shell) and as Codex
 * `apply_patch` text. Commands use paths relative to the agent's working directory, where its
 * shell starts.
 */
import path from "node:path";

/** Quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Writes a file whole, creating its folder: `printf '%s'` keeps the content byte for byte. */
export function writeCommand(file: string, content: string): string {
  const folder = path.posix.dirname(file);
  const write = `printf '%s' ${shellQuote(content)} > ${shellQuote(file)}`;
  return folder === "." ? write : `mkdir -p ${shellQuote(folder)} && ${write}`;
}

/** Prints a file. */
export function readCommand(file: string): string {
  return `cat ${shellQuote(file)}`;
}

/**
 * Replaces the first occurrence of a literal string, failing when it is absent. Bash pattern
 * substitution with quoted operands is literal (no regex, no `&`), unlike `sed`; the strings go in
 * as positional arguments so they are quoted once. The trailing `x` keeps the file's final
 * newlines, which `$(...)` would strip.
 */
export function editCommand(file: string, oldString: string, newString: string): string {
  const script = [
    'c=$(cat -- "$1" && printf x) || exit 1',
    "c=${c%x}",
    'case $c in *"$2"*) ;; *) echo "old string not found in $1" >&2; exit 1 ;; esac',
    'printf "%s" "${c/"$2"/"$3"}" > "$1"',
  ].join("; ");
  return `bash -c ${shellQuote(script)} edit ${[file, oldString, newString].map(shellQuote).join(" ")}`;
}

/** The lines of a text as a patch sees them: a final newline ends the last line. */
function patchLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Codex `apply_patch` text that creates (or overwrites) a file. */
export function addFilePatch(file: string, content: string): string {
  const body = patchLines(content).map((line) => `+${line}\n`);
  return `*** Begin Patch\n*** Add File: ${file}\n${body.join("")}*** End Patch\n`;
}

/**
 * Codex `apply_patch` text that replaces lines. `apply_patch` matches whole lines, so a script's
 * old and new strings should be whole lines for Codex.
 */
export function updateFilePatch(file: string, oldString: string, newString: string): string {
  const removed = patchLines(oldString).map((line) => `-${line}\n`);
  const added = patchLines(newString).map((line) => `+${line}\n`);
  return `*** Begin Patch\n*** Update File: ${file}\n@@\n${removed.join("")}${added.join("")}*** End Patch\n`;
}
