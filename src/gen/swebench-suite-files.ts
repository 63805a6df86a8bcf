import { writeJsonAtomic } from "../store/index.js";
import { suiteLayout } from "../suite/index.js";
import type { SwebenchGenResult } from "./swebench.js";
import { renderGenSection, writeGenSection } from "./tier-readme.js";

/** Writes what a swebench gen leaves beside its tasks: suite.json, dropped.json and the README's generated section. */
export async function writeSwebenchSuiteFiles(
  suiteDir: string,
  result: SwebenchGenResult,
): Promise<void> {
  const layout = suiteLayout(suiteDir);
  await writeJsonAtomic(layout.suiteFile, {
    name: "swebench",
    version: "1",
    description:
      "SWE-bench Lite instances whose suites run under plain pytest, each proven by its own gold patch.",
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
    ),
  );
}
