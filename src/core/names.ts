/** "Did you mean" for names a user types: suites, tools, tasks. */

/** Edits (insert, delete, substitute, swap two neighbours) between two names. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  return at(a.length, b.length);
}

/**
 * The known names a misspelt one most likely meant, closest first (at most `limit`): those a
 * few edits away (a third of the name's length, at least 1), or that start with it.
 */
export function closestNames(name: string, known: readonly string[], limit = 3): string[] {
  const typed = name.toLowerCase();
  const allowed = Math.max(1, Math.floor(typed.length / 3));
  return known
    .map((candidate) => ({
      candidate,
      distance: candidate.toLowerCase().startsWith(typed)
        ? 0
        : editDistance(typed, candidate.toLowerCase()),
    }))
    .filter(({ candidate, distance }) => distance <= allowed && candidate !== name)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
