/**
 * Python's string semantics where they differ from JavaScript's, for the ports of upstream
 * SWE-bench's log parsers: the parsed ids must split, strip and match exactly as upstream's did,
 * because the dataset's test lists were made by those parsers.
 */

/**
 * The characters Python's `str.split()` and `str.strip()` treat as whitespace (`str.isspace()`).
 * JavaScript's `\s` differs: it lacks U+001C..U+001F and U+0085 and adds U+FEFF.
 */
const PYTHON_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
  0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
  0x205f, 0x3000,
]);

/** The same set as a regex character class body, for Python's `\s` in a `str` pattern. */
export const PYTHON_SPACE_CLASS = [...PYTHON_WHITESPACE]
  .map((code) => `\\u${code.toString(16).padStart(4, "0")}`)
  .join("");

/** Whether a UTF-16 code unit is Python whitespace. */
export function isPythonSpace(code: number): boolean {
  return PYTHON_WHITESPACE.has(code);
}

/** Python's `str.split()` with no argument: runs of whitespace separate, ends are trimmed. */
export function splitOnWhitespace(line: string): string[] {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    if (isPythonSpace(line.charCodeAt(i))) {
      if (start >= 0) tokens.push(line.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) tokens.push(line.slice(start));
  return tokens;
}

/** Python's `str.strip()` with no argument. */
export function stripPython(line: string): string {
  let start = 0;
  let end = line.length;
  while (start < end && isPythonSpace(line.charCodeAt(start))) start++;
  while (end > start && isPythonSpace(line.charCodeAt(end - 1))) end--;
  return line.slice(start, end);
}

/** Python's `text.split(separator)[0]`: the text before the first separator, or all of it. */
export function beforeFirst(text: string, separator: string): string {
  const at = text.indexOf(separator);
  return at < 0 ? text : text.slice(0, at);
}

/** Python's `text.rsplit(separator, 1)[0]`: the text before the last separator, or all of it. */
export function beforeLast(text: string, separator: string): string {
  const at = text.lastIndexOf(separator);
  return at < 0 ? text : text.slice(0, at);
}
