import { upstreamIssueFor } from "../datasets/index.js";
import { writeJsonAtomic } from "../store/index.js";
import { suiteLayout } from "../suite/index.js";
import type { SwebenchGenResult } from "./swebench.js";
import { renderGenSection, writeGenSection } from "./tier-readme.js";

const DATASET_TITLES: Readonly<Record<string, string>> = {
  lite: "SWE-bench Lite",
  verified: "SWE-bench Verified",
  full: "SWE-bench",
};

/** Writes what a swebench gen leaves beside its tasks: suite.json, dropped.json and the README's generated section. */
export async function writeSwebenchSuiteFiles(
  suiteDir: string,
  result: SwebenchGenResult,
  source: { readonly name: string; readonly dataset: string; readonly split: string },
): Promise<void> {
  const layout = suiteLayout(suiteDir);
  const described =
    DATASET_TITLES[source.dataset] ?? `the SWE-bench-format dataset ${source.dataset}`;
  await writeJsonAtomic(layout.suiteFile, {
    name: source.name,
    version: "1",
    description: `Instances of ${described}, each proven by its own gold patch.`,
    source: { kind: "swebench", dataset: source.dataset, split: source.split },
  });
  await writeJsonAtomic(layout.droppedFile, {
    generatedAt: new Date().toISOString(),
    kept: result.kept,
    dropped: result.dropped,
    unknown: result.unknown,
  });
  await writeGenSection(
    layout.readmeFile,
    renderGenSection(
      result.kept,
      result.dropped,
      new Date().toISOString().slice(0, 10),
      result.passWithoutFix,
      Object.fromEntries(
        result.dropped.flatMap((drop) => {
          const issue = upstreamIssueFor(drop.instance_id);
          return issue === null ? [] : [[drop.instance_id, issue] as const];
        }),
      ),
    ),
  );
}
