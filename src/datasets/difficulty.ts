import { listPatchFiles } from "../core/index.js";

/** Difficulty proxies of a task, from its gold patch and issue text. */
export interface DifficultyProxies {
  /** Files the gold patch changes. */
  readonly goldFiles: number;
  /** Lines it adds plus lines it removes. */
  readonly goldLines: number;
  /** Distinct folders (packages) of the files it changes. */
  readonly modules: number;
  /** The issue text carries code to run (a fenced block or an interpreter session). */
  readonly hasReproduction: boolean;
  /** The issue text carries a Python traceback. */
  readonly hasStackTrace: boolean;
  readonly descriptionChars: number;
}

/** Measures a task's difficulty proxies. */
export function measureDifficulty(goldPatch: string, issue: string): DifficultyProxies {
  const files = listPatchFiles(goldPatch);
  let lines = 0;
  for (const line of goldPatch.split("\n")) {
    if (
      (line.startsWith("+") && !line.startsWith("+++")) ||
      (line.startsWith("-") && !line.startsWith("---"))
    )
      lines++;
  }
  const folders = new Set(files.map((file) => file.path.split("/").slice(0, -1).join("/")));
  return {
    goldFiles: files.length,
    goldLines: lines,
    modules: folders.size,
    hasReproduction: /```|^\s*>>> |^\s*\$ python/m.test(issue),
    hasStackTrace: /Traceback \(most recent call last\)/.test(issue),
    descriptionChars: issue.trim().length,
  };
}
