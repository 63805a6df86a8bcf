/**
 * Reading a Markdown guide's commands and checking them against lab's own help: what
 * test/docs/readme.test.ts needs, kept pure (no processes) so its rules can be tested on made-up
 * lines as well as on the README.
 */

/** One `lab ...` command found in a document. */
export interface DocCommand {
  /** The command as written (continuation lines joined, comment removed). */
  readonly text: string;
  /** Its words, as a shell would split them (quotes removed). */
  readonly words: readonly string[];
  /** Where it was found: a fenced block or an inline code span. */
  readonly from: "block" | "inline";
}

/** An option as `lab CMD --help` lists it. */
export interface HelpOption {
  readonly name: string;
  readonly short?: string;
  /** Whether it takes a value (the help names one: `--suite S`). */
  readonly takesValue: boolean;
}

/** What `lab CMD --help` says about a command. */
export interface CommandHelp {
  readonly options: readonly HelpOption[];
  /** The verbs its usage line offers (`lab tools (list | install NAME...)`), when it has any. */
  readonly verbs?: readonly string[];
}

/** The CLI as its help describes it: every command's help, by name. */
export type CliHelp = ReadonlyMap<string, CommandHelp>;

/** Splits a command line into words as bash would: quotes and backslashes, no expansion. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  /** Whether a word is under way (`''` is a word, empty). */
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line.charAt(i);
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && i + 1 < line.length) word += line.charAt(++i);
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < line.length) {
      word += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** A shell line without its trailing `# comment` (a `#` outside quotes, after a space). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line.charAt(i);
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "#" && (i === 0 || /\s/.test(line.charAt(i - 1)))) {
      return line.slice(0, i);
    }
  }
  return line;
}

/** The lines of a shell block, continuation lines joined, comments removed, `&&` split. */
function shellCommands(block: string): string[] {
  const joined = block.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map(withoutComment)
    .flatMap((line) => line.split("&&"))
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/**
 * Every `lab ...` command of a Markdown text: the lines of its `sh` blocks, lines shown as typed
 * (`$ lab ...`) in other blocks, and inline code spans that start with `lab `.
 */
export function labCommands(markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const add = (text: string, from: DocCommand["from"]) => {
    const words = shellWords(text);
    if (words[0] === "lab") commands.push({ text, words, from });
  };
  const fence = /^```(\w*)\n([\s\S]*?)^```/gm;
  for (const [, lang, body = ""] of markdown.matchAll(fence)) {
    if (lang === "sh" || lang === "bash")
      for (const line of shellCommands(body)) add(line, "block");
    else
      for (const line of body.split("\n"))
        if (line.startsWith("$ lab ")) add(line.slice(2).trim(), "block");
  }
  const prose = markdown.replace(fence, "");
  for (const [, span = ""] of prose.matchAll(/`(lab [^`]+)`/g)) add(span, "inline");
  return commands;
}

/** The options of a command's help text, and the verbs of its usage line. */
export function parseCommandHelp(help: string): CommandHelp {
  const options: HelpOption[] = [];
  for (const [, short, name = "", value] of help.matchAll(
    /^ {2}(?:-(\w), | {4})--([\w-]+)(?: (\S+))? {2,}/gm,
  ))
    options.push({ name, takesValue: value !== undefined, ...(short ? { short } : {}) });
  const usage = /^Usage: lab \S+ \(([^)]*)\)/m.exec(help)?.[1];
  const verbs = usage?.split("|").map((alternative) => alternative.trim().split(" ")[0] ?? "");
  return { options, ...(verbs === undefined ? {} : { verbs }) };
}

/** The command names `lab --help` lists. */
export function parseCommandList(help: string): string[] {
  const list = /^Commands:\n((?: {2}\S.*\n)+)/m.exec(help)?.[1] ?? "";
  return [...list.matchAll(/^ {2}(\S+)/gm)].map((match) => match[1] ?? "");
}

/** A word standing for something the reader fills in (`ID`, `S`, `<command>`, `...`). */
export function isPlaceholder(word: string): boolean {
  return word === "..." || word.includes("<") || /^[A-Z][A-Z_]*$/.test(word);
}

/**
 * What is wrong with a command, by the CLI's own help: an unknown command or verb, an option
 * the command does not take, an option that needs a value given none. Empty when nothing is.
 */
export function commandProblems(command: DocCommand, cli: CliHelp): string[] {
  const [, name = "", ...rest] = command.words;
  if (name === "--help" || name === "-h") return [];
  if (name === "help")
    return rest[0] === undefined || isPlaceholder(rest[0]) || cli.has(rest[0])
      ? []
      : [`unknown command "${rest[0]}"`];
  if (isPlaceholder(name)) return [];
  const help = cli.get(name);
  if (help === undefined) return [`unknown command "${name}"`];
  const problems: string[] = [];
  const verb = rest[0];
  if (
    help.verbs !== undefined &&
    verb !== undefined &&
    !isPlaceholder(verb) &&
    !help.verbs.includes(verb)
  )
    problems.push(`lab ${name} has no "${verb}" (it takes ${help.verbs.join(", ")})`);
  const byName = new Map(help.options.map((option) => [option.name, option]));
  byName.set("help", { name: "help", short: "h", takesValue: false });
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] ?? "";
    let option: HelpOption | undefined;
    let inline = false;
    if (word.startsWith("--")) {
      const flag = word.slice(2).split("=")[0] ?? "";
      inline = word.includes("=");
      option = byName.get(flag);
      if (option === undefined) {
        problems.push(`lab ${name} has no option --${flag}`);
        continue;
      }
    } else if (/^-\w$/.test(word)) {
      option = [...byName.values()].find((candidate) => candidate.short === word.slice(1));
      if (option === undefined) {
        problems.push(`lab ${name} has no option ${word}`);
        continue;
      }
    } else {
      continue;
    }
    // An inline span may name an option without its value (`lab gen --from-repo`).
    if (option.takesValue && !inline && command.from === "block") {
      const value = rest[i + 1];
      if (value === undefined || value.startsWith("--"))
        problems.push(`lab ${name} --${option.name} needs a value`);
      else i++;
    }
  }
  return problems;
}
