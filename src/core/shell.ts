/** Quotes one word for POSIX sh: safe words stay bare, others go in single quotes. */
export function quoteShell(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argv shown as a command line a user could paste. */
export function formatCommand(argv: readonly string[]): string {
  return argv.map(quoteShell).join(" ");
}
