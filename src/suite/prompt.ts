/** The rules every prompt ends with, in every suite: what keeps a run gradable. */
export const GROUND_RULES = `---
Ground rules:
- Fix the issue by editing the repository's source files in place, in the current directory.
- Do not add, change or delete test files: your change will be graded afterwards by tests you cannot see.
- You do not need to commit; the changes in the working tree are what is graded.
`;

/** A task's prompt: the issue text, optional hints, then the ground rules. */
export function renderPrompt(issue: string, hints?: string): string {
  const parts = [issue.trim()];
  if (hints !== undefined && hints.trim() !== "")
    parts.push(`Hints from the issue's discussion:\n\n${hints.trim()}`);
  return `${parts.join("\n\n")}\n\n${GROUND_RULES}`;
}
