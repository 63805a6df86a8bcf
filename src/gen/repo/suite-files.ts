import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic, writeJsonAtomic } from "../../store/index.js";
import { suiteLayout } from "../../suite/index.js";
import { GEN_MARKERS, writeGenSection } from "../tier-readme.js";
import type { KeptTask, PreparedCandidate } from "./validate-candidates.js";
import { renderRepoGenSection, type RepoDrop } from "./report.js";

/** What a repo gen writes beside its tasks. */
export interface RepoSuiteFiles {
  /** evals/NAME. */
  readonly suiteDir: string;
  /** "owner/name" or the folder name. */
  readonly repo: string;
  /** The repository mined, as read. */
  readonly source: string;
  /** The branch whose history was walked. */
  readonly branch: string;
  /** Merged changes walked. */
  readonly walked: number;
  /** False (--no-validate): only candidates.json and sampling.md are written. */
  readonly validated: boolean;
  /** Every candidate mined, with its text and profile. */
  readonly prepared: readonly PreparedCandidate[];
  /** Tasks kept. */
  readonly kept: readonly KeptTask[];
  /** Changes not kept, with their reasons. */
  readonly dropped: readonly RepoDrop[];
  /** The sampling report (Markdown). */
  readonly report: string;
}

/**
 * Writes candidates.json and sampling.md and, for a validated suite, suite.json, dropped.json
 * and the README's generated section (the README itself only when it has none).
 */
export async function writeRepoSuiteFiles(files: RepoSuiteFiles): Promise<void> {
  const name = path.basename(files.suiteDir);
  const layout = suiteLayout(files.suiteDir);
  const when = new Date().toISOString();
  await writeJsonAtomic(layout.candidatesFile, {
    generatedAt: when,
    repo: files.repo,
    source: files.source,
    branch: files.branch,
    walked: files.walked,
    candidates: files.prepared.map((item) => ({
      id: item.candidate.id,
      commit: item.candidate.commit,
      base: item.candidate.base,
      kind: item.candidate.kind,
      pr: item.candidate.pr,
      subject: item.candidate.subject,
      textSource: item.issue.source,
      testFiles: item.candidate.testFiles,
      sourceFiles: item.candidate.sourceFiles,
      otherFiles: item.candidate.otherFiles,
      ...item.profile,
    })),
  });
  await writeFileAtomic(layout.samplingFile, files.report);
  if (!files.validated) return;
  await writeJsonAtomic(layout.suiteFile, {
    name,
    version: "1",
    description: `Tasks mined from the merged changes of ${files.repo} (${files.branch}), each proven by its own change.`,
  });
  await writeJsonAtomic(layout.droppedFile, {
    generatedAt: when,
    kept: files.kept.map((task) => ({
      id: task.id,
      commit: task.commit,
      FAIL_TO_PASS: task.failToPass,
      PASS_TO_PASS: task.passToPass,
    })),
    dropped: files.dropped,
  });
  const readme = layout.readmeFile;
  if (!existsSync(readme) || !(await readFile(readme, "utf8")).includes(GEN_MARKERS.start))
    await writeFileAtomic(
      readme,
      `# ${name}\n\nTasks mined by \`lab gen --from-repo\` from the merged changes of ${files.repo}: each change that touched tests and source became a task whose hidden tests are its test changes and whose reference fix is the rest, kept only when its tests fail before the fix and pass after it, the same way every proof run. The sampling report is in sampling.md; how it works is in lab's docs/design/repo-suite.md.\n`,
    );
  await writeGenSection(
    readme,
    `${GEN_MARKERS.start}\n${renderRepoGenSection(
      files.kept.map((task) => task.id),
      files.dropped,
      when.slice(0, 10),
    )}\n${GEN_MARKERS.end}`,
  );
}
