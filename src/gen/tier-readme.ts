import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import type { UpstreamIssue } from "../datasets/index.js";
import type { DroppedInstance } from "./swebench.js";

/** The markers between which gen writes its kept and dropped lists in a tier's README. */
export const GEN_MARKERS = { start: "<!-- gen:start -->", end: "<!-- gen:end -->" } as const;

/** The generated section: what was kept, and every drop with its reason. */
export function renderGenSection(
  kept: readonly string[],
  dropped: readonly DroppedInstance[],
  when: string,
  passWithoutFix: Readonly<Record<string, readonly string[]>> = {},
  upstream: Readonly<Record<string, UpstreamIssue>> = {},
): string {
  const inScope = dropped.filter(
    (drop) =>
      drop.category !== "out_of_scope" &&
      drop.category !== "no_mirror" &&
      drop.category !== "known_drop",
  );
  const known = dropped.filter((drop) => drop.category === "known_drop");
  const unproven = new Map<string, number>();
  for (const drop of dropped.filter((entry) => entry.category === "no_mirror"))
    unproven.set(drop.repo, (unproven.get(drop.repo) ?? 0) + 1);
  const outOfScope = dropped.filter((drop) => drop.category === "out_of_scope").length;
  const notHere = [...unproven.values()].reduce((sum, count) => sum + count, 0);
  const lines = [
    GEN_MARKERS.start,
    `_Written by \`lab gen\` on ${when}: ${String(kept.length)} kept, ${String(inScope.length)} dropped after trying, ${notHere > 0 ? `${String(notHere)} not proven on this machine, ` : ""}${String(outOfScope)} out of scope._`,
    "",
    `Kept (${String(kept.length)}): ${kept.length === 0 ? "none" : kept.map((id) => `\`${id}\``).join(", ")}.`,
    "",
    ...(notHere === 0
      ? []
      : [
          `Not proven on this machine: no mirror (${String(notHere)}): ${[...unproven]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([repo, count]) => `${repo} (${String(count)})`)
            .join(
              ", ",
            )}. They are neither kept nor dropped; a gen with the repository at hand proves them.`,
          "",
        ]),
    ...(known.length === 0
      ? []
      : [
          `Left out as known drops (\`--skip-known-drops\`: the ledger drops them whatever the machine) (${String(known.length)}): ${known.map((drop) => `\`${drop.instance_id}\``).join(", ")}.`,
          "",
        ]),
    ...Object.entries(passWithoutFix)
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([id, tests], index) => [
        ...(index === 0
          ? [
              "Kept, though some of their listed FAIL_TO_PASS tests pass here without the fix (the others fail without it and pass with it):",
              "",
            ]
          : []),
        `- \`${id}\`: ${tests.map((test) => `\`${test}\``).join(", ")}`,
      ]),
    ...(Object.keys(passWithoutFix).length > 0 ? [""] : []),
    "| dropped instance | why |",
    "|---|---|",
    ...inScope.map(
      (drop) =>
        `| \`${drop.instance_id}\` | ${drop.category}: ${drop.reason.replace(/\|/g, "\\|").replace(/\n/g, " ")}${citation(upstream[drop.instance_id])} |`,
    ),
  ];
  if (inScope.length === 0) lines.push("| (none) | |");
  lines.push(GEN_MARKERS.end);
  return lines.join("\n");
}

/** The sentence that cites an upstream issue reporting the same trouble, if there is one. */
function citation(issue: UpstreamIssue | undefined): string {
  return issue === undefined
    ? ""
    : ` Upstream's harness too: [${issue.issue}](${issue.url}) (${issue.says}).`;
}

/** Replaces the generated section of a README (appending one when it has none). */
export async function writeGenSection(readme: string, section: string): Promise<void> {
  const text = existsSync(readme) ? await readFile(readme, "utf8") : "";
  const start = text.indexOf(GEN_MARKERS.start);
  const end = text.indexOf(GEN_MARKERS.end);
  const next =
    start >= 0 && end > start
      ? `${text.slice(0, start)}${section}${text.slice(end + GEN_MARKERS.end.length)}`
      : `${text.trimEnd()}\n\n## Generated tasks\n\n${section}\n`;
  await writeFile(readme, next);
}
