import {
  classRows,
  DIMENSIONS,
  imbalanceWarnings,
  percent,
  type Dimension,
  type Mix,
  type Profile,
} from "./sampling.js";

/** A change gen did not keep, and why. */
export interface RepoDrop {
  readonly id: string;
  readonly commit: string;
  readonly subject: string;
  /** Mining (no_tests, no_source), environment (no_environment, install), validation, or not_sampled. */
  readonly category: string;
  readonly reason: string;
}

/** What the sampling report is made of. */
export interface SamplingInput {
  readonly suite: string;
  readonly repo: string;
  readonly branch: string;
  readonly walked: number;
  /** Profiles of every candidate (changes touching tests and source). */
  readonly candidates: readonly Profile[];
  /** Profiles of the kept tasks, with where their text came from. */
  readonly kept: readonly (Profile & { readonly textSource: string })[];
  readonly dropped: readonly RepoDrop[];
  readonly mix?: Mix | undefined;
  readonly validated: boolean;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ];
}

const TITLES: Record<Dimension, string> = {
  scope: "Scope (source files and lines the fix changes)",
  description: "Description quality (what the issue text gives to go on)",
  difficulty: "Difficulty (scope and description together)",
};

/**
 * The sampling report: the suite across scope, description quality and difficulty, against the
 * candidates it was drawn from (and the target mix, if any), with a warning wherever one kind
 * is over- or under-represented, and the reasons changes were dropped.
 */
export function renderSamplingReport(input: SamplingInput): string {
  const keptLabel = input.validated ? "kept" : "candidates";
  const lines = [
    `# Sampling report: ${input.suite}`,
    "",
    `${input.repo} (${input.branch}): ${String(input.walked)} merged changes walked, ${String(input.candidates.length)} candidates (they change tests and source), ${input.validated ? `${String(input.kept.length)} kept` : "not validated (--no-validate)"}.`,
    "",
  ];
  const byCategory = new Map<string, number>();
  for (const drop of input.dropped)
    byCategory.set(drop.category, (byCategory.get(drop.category) ?? 0) + 1);
  if (byCategory.size > 0) {
    lines.push("## Dropped", "");
    lines.push(
      ...table(
        ["reason", "changes"],
        [...byCategory.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([name, count]) => [name, String(count)]),
      ),
      "",
    );
  }
  const warnings: string[] = [];
  for (const dimension of Object.keys(DIMENSIONS) as Dimension[]) {
    const rows = classRows(dimension, input.candidates, input.kept, input.mix);
    const withTarget = input.mix?.dimension === dimension;
    lines.push(`## ${TITLES[dimension]}`, "");
    lines.push(
      ...table(
        [
          dimension,
          "candidates",
          ...(input.validated ? ["kept"] : []),
          "share",
          ...(withTarget ? ["target"] : []),
        ],
        rows.map((row) => [
          row.name,
          String(row.candidates),
          ...(input.validated ? [String(row.kept)] : []),
          percent(row.share),
          ...(withTarget ? [percent(row.target ?? 0)] : []),
        ]),
      ),
      "",
    );
    warnings.push(...imbalanceWarnings(dimension, rows, input.kept.length));
  }
  lines.push(`## Scope by description (${keptLabel})`, "");
  lines.push(
    ...table(
      ["scope", ...DIMENSIONS.description],
      DIMENSIONS.scope.map((scope) => [
        scope,
        ...DIMENSIONS.description.map((description) =>
          String(
            input.kept.filter((p) => p.scope === scope && p.description === description).length,
          ),
        ),
      ]),
    ),
    "",
  );
  const sources = new Map<string, number>();
  for (const profile of input.kept)
    sources.set(profile.textSource, (sources.get(profile.textSource) ?? 0) + 1);
  if (sources.size > 0) {
    lines.push("## Where the issue texts came from", "");
    lines.push(
      ...table(
        ["source", keptLabel],
        [...sources.entries()].map(([name, count]) => [name, String(count)]),
      ),
      "",
    );
  }
  const lineCounts = input.kept.map((profile) => profile.goldLines).sort((a, b) => a - b);
  if (lineCounts.length > 0) {
    // An even count's median is the mean of the middle two (2 and 5 lines: 3.5, not 5).
    const middle = lineCounts.length / 2;
    const median =
      lineCounts.length % 2 === 1
        ? (lineCounts[Math.floor(middle)] ?? 0)
        : ((lineCounts[middle - 1] ?? 0) + (lineCounts[middle] ?? 0)) / 2;
    lines.push(
      `Gold patch source lines: median ${String(median)}, max ${String(lineCounts.at(-1) ?? 0)}; with a stack trace: ${String(input.kept.filter((p) => p.hasStackTrace).length)}, with a reproduction: ${String(input.kept.filter((p) => p.hasReproduction).length)}.`,
      "",
    );
  }
  lines.push("## Balance", "");
  if (warnings.length === 0) lines.push("No class is over- or under-represented.");
  else lines.push(...warnings.map((warning) => `- ${warning}`));
  lines.push(
    "",
    "Classes: scope small = one file and at most 20 lines, large = over 100 lines, 4+ files or 3+ modules; description stack-trace > reproduction > prose > terse (under 200 characters); difficulty adds scope, a missing reproduction and a terse text. See docs/design/repo-suite.md.",
    "",
  );
  return lines.join("\n");
}

/** The README section gen writes: kept tasks and every drop with its reason. */
export function renderRepoGenSection(
  kept: readonly string[],
  dropped: readonly RepoDrop[],
  when: string,
): string {
  const lines = [
    `_Written by \`lab gen --from-repo\` on ${when}: ${String(kept.length)} kept, ${String(dropped.length)} dropped._`,
    "",
    `Kept (${String(kept.length)}): ${kept.length === 0 ? "none" : kept.map((id) => `\`${id}\``).join(", ")}.`,
    "",
    ...table(
      ["dropped change", "commit", "why"],
      dropped.map((drop) => [
        `\`${drop.id}\``,
        drop.commit.slice(0, 10),
        `${drop.category}: ${drop.reason.replace(/\|/g, "\\|").replace(/\n/g, " ")}`,
      ]),
    ),
  ];
  if (dropped.length === 0) lines.push("| (none) | | |");
  return lines.join("\n");
}
