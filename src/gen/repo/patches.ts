import { listPatchFiles } from "../../core/index.js";

/** The sections of a diff whose files `keep` accepts, as a diff of their own. */
export function filterPatch(patch: string, keep: (file: string) => boolean): string {
  const files = listPatchFiles(patch);
  const starts = [...patch.matchAll(/^diff --git /gm)].map((match) => match.index);
  return files
    .map((file, index) => ({
      file,
      body: patch.slice(starts[index] ?? 0, starts[index + 1] ?? patch.length),
    }))
    .filter(({ file }) => keep(file.path))
    .map(({ body }) => body)
    .join("");
}
