import { LabError } from "../core/index.js";
import { git } from "./git.js";

/**
 * Checks that a work tree's repository holds nothing past its base commit: HEAD is the base,
 * every ref points at it or an ancestor, and every commit object stored is an ancestor.
 * This is what keeps a tool from finding the fix in history.
 */
export async function verifyHistoryEndsAt(dir: string, baseCommit: string): Promise<void> {
  await verifyHeadIs(dir, baseCommit);
  const ancestors = new Set(
    (await git(["rev-list", baseCommit], { cwd: dir })).split("\n").filter((line) => line !== ""),
  );
  const stored = (
    await git(
      [
        "cat-file",
        "--batch-all-objects",
        "--batch-check=%(objecttype) %(objectname)",
        "--unordered",
      ],
      { cwd: dir },
    )
  )
    .split("\n")
    .filter((line) => line.startsWith("commit "))
    .map((line) => line.slice("commit ".length));
  const later = stored.filter((commit) => !ancestors.has(commit));
  if (later.length > 0) {
    throw new LabError(
      "SETUP_FAILED",
      `The work tree in ${dir} stores ${String(later.length)} commit(s) that are not ancestors of the base commit (e.g. ${String(later[0])}).`,
      {
        hint: "setup.sh must not leave later history where the tool can find the fix.",
      },
    );
  }
  // An annotated tag is judged by the commit it points at (%(*objectname) peels it).
  const refs = (
    await git(["for-each-ref", "--format=%(objectname) %(*objectname) %(refname)"], { cwd: dir })
  )
    .split("\n")
    .filter((line) => line !== "");
  for (const line of refs) {
    const [direct, peeled, name] = line.split(" ");
    const object = peeled === "" || peeled === undefined ? direct : peeled;
    if (object !== undefined && !ancestors.has(object)) {
      throw new LabError(
        "SETUP_FAILED",
        `The work tree in ${dir} has ref ${String(name)} pointing past the base commit.`,
        {
          hint: "setup.sh must not leave tags or branches that point at later objects.",
        },
      );
    }
  }
}

/** Checks that a work tree is at the task's base commit (HEAD only). */
export async function verifyHeadIs(dir: string, baseCommit: string): Promise<void> {
  const head = (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
  if (head !== baseCommit) {
    throw new LabError(
      "SETUP_FAILED",
      `The work tree in ${dir} is at ${head}, not at the task's base commit ${baseCommit}.`,
      {
        hint: "The task's setup.sh must leave the work tree at task.json's baseCommit.",
      },
    );
  }
}
