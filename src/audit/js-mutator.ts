/**
 * The oracle audit's mutants of JavaScript and TypeScript source: token edits on the lines the
 * gold patch adds, made in lab's own process over the code's tokens (strings, template text,
 * comments and regular expressions masked by the JS canaries' scan, js/canaries.ts maskJs), so
 * no string or comment is ever mutated. The Python form is mutator-script.ts, which runs in the
 * task's interpreter because Python's syntax moved with its eras; a JS edit of one operator, one
 * literal or one `!` keeps a file's syntax whatever its era.
 *
 * Operators, each only where the text leaves no doubt it is one:
 * - `compare`: `<` `>` `<=` `>=` `===` `!==` `==` `!=` swapped for their opposite, when written
 *   with a space on each side (a generic's `<` and an arrow's `=>` have none);
 * - `logic`: ` && ` and ` || ` swapped;
 * - `arith`: binary ` + ` and ` - ` swapped;
 * - `bool`: `true` and `false` swapped;
 * - `negate`: a `!` before a name or a bracket dropped;
 * - `const`: an integer literal n made n + 1 (0 and 1 as 1 and 2 too).
 * A token edit cannot make code equal to the gold's, so no mutant is `equivalent`. A hunk left
 * out is `equivalent` when its code tokens equal the gold's (it changed only comments, strings'
 * quotes aside, or blanks). Whether a variant parses is not checked: one that does not fails its
 * grade and counts as killed.
 */
import { maskJs } from "../grader/index.js";

/** Bumped whenever the JS mutants change, so audits made with the earlier ones are redone. */
export const JS_MUTATOR_VERSION = 1;

/** What the audit gives a mutator, and what it answers: mutator-script.ts's format, both languages'. */
export interface MutatorInput {
  readonly files: readonly {
    readonly path: string;
    readonly source: string;
    readonly changed: readonly number[];
  }[];
  readonly variants: readonly {
    readonly id: string;
    readonly path: string;
    readonly source: string;
  }[];
}

export interface MutatorOutput {
  readonly mutants: {
    readonly path: string;
    readonly line: number;
    readonly operator: string;
    readonly description: string;
    readonly source: string;
    readonly equivalent: boolean;
  }[];
  readonly variants: {
    readonly id: string;
    readonly compiles: boolean;
    readonly equivalent: boolean;
  }[];
}

const COMPARE: Readonly<Record<string, string>> = {
  "<": ">=",
  ">": "<=",
  "<=": ">",
  ">=": "<",
  "===": "!==",
  "!==": "===",
  "==": "!=",
  "!=": "==",
};

/** One edit of one line: columns [start, end) replaced by `text`. */
interface Edit {
  readonly operator: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The edits the operators make on one line of code (`code` is the line with non-code masked). */
export function lineEdits(code: string): Edit[] {
  const edits: Edit[] = [];
  for (const match of code.matchAll(/(?<= )(===|!==|==|!=|<=|>=|<|>)(?= )/g)) {
    const token = match[1] as string;
    const at = match.index;
    edits.push({
      operator: "compare",
      start: at,
      end: at + token.length,
      text: COMPARE[token] as string,
    });
  }
  for (const match of code.matchAll(/(?<= )(&&|\|\|)(?= )/g))
    edits.push({
      operator: "logic",
      start: match.index,
      end: match.index + 2,
      text: match[1] === "&&" ? "||" : "&&",
    });
  // A binary + or -: a value before it (a name, a literal's end, a closing bracket).
  for (const match of code.matchAll(/(?<=[\w$)\]'"`] )([+-])(?= [^=])/g))
    edits.push({
      operator: "arith",
      start: match.index,
      end: match.index + 1,
      text: match[1] === "+" ? "-" : "+",
    });
  for (const match of code.matchAll(/(?<![\w$.])(true|false)(?![\w$])/g))
    edits.push({
      operator: "bool",
      start: match.index,
      end: match.index + (match[1] as string).length,
      text: match[1] === "true" ? "false" : "true",
    });
  for (const match of code.matchAll(/!(?=[\w$(])/g))
    edits.push({ operator: "negate", start: match.index, end: match.index + 1, text: "" });
  for (const match of code.matchAll(/(?<![\w$.])(\d+)(?![\w$.])/g)) {
    const value = Number(match[1]);
    if (!Number.isSafeInteger(value)) continue;
    edits.push({
      operator: "const",
      start: match.index,
      end: match.index + (match[1] as string).length,
      text: String(value + 1),
    });
  }
  return edits.sort((a, b) => a.start - b.start);
}

/** The code tokens of a source: what is left once non-code is masked and blanks are dropped. */
function codeTokens(source: string): string {
  return maskJs(source).replace(/\s+/g, "");
}

/** Mutants of each file's changed lines, and which given variants are equivalent to the gold. */
export function mutateJs(input: MutatorInput): MutatorOutput {
  const mutants: MutatorOutput["mutants"] = [];
  for (const file of input.files) {
    const lines = file.source.split("\n");
    const masked = maskJs(file.source).split("\n");
    for (const number of file.changed) {
      const code = masked[number - 1];
      const text = lines[number - 1];
      if (code === undefined || text === undefined) continue;
      for (const edit of lineEdits(code)) {
        const mutated = `${text.slice(0, edit.start)}${edit.text}${text.slice(edit.end)}`;
        const copy = [...lines];
        copy[number - 1] = mutated;
        const before = text.slice(edit.start, edit.end);
        mutants.push({
          path: file.path,
          line: number,
          operator: edit.operator,
          description: `line ${String(number)}: ${before === "" ? "(nothing)" : `\`${before}\``} -> ${edit.text === "" ? "(nothing)" : `\`${edit.text}\``}`,
          source: copy.join("\n"),
          equivalent: false,
        });
      }
    }
  }
  const gold = new Map(input.files.map((file) => [file.path, codeTokens(file.source)]));
  const variants = input.variants.map((variant) => ({
    id: variant.id,
    compiles: true,
    equivalent: gold.get(variant.path) === codeTokens(variant.source),
  }));
  return { mutants, variants };
}
