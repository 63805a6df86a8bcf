import type { ProjectFacts } from "./project.js";

/** First release date of each CPython minor version: a commit is tested on a Python of its time. */
export const PYTHON_RELEASES: Readonly<Record<string, string>> = {
  "3.6": "2016-12-23",
  "3.7": "2018-06-27",
  "3.8": "2019-10-14",
  "3.9": "2020-10-05",
  "3.10": "2021-10-04",
  "3.11": "2022-10-24",
  "3.12": "2023-10-02",
  "3.13": "2024-10-07",
  "3.14": "2025-10-07",
};

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

function parts(version: string): number[] {
  return version.split(".").map((part) => Number.parseInt(part, 10) || 0);
}

/** Whether a full version ("3.9.18") satisfies a PEP 440 specifier set (">=3.8,!=3.9.*,<4"). */
export function satisfiesSpecifier(version: string, specifier: string): boolean {
  const have = parts(version);
  return specifier
    .split(",")
    .map((clause) => clause.trim())
    .filter((clause) => clause !== "")
    .every((clause) => {
      const match = /^(~=|===|==|!=|<=|>=|<|>)\s*([0-9][0-9.]*)(\.\*)?$/.exec(clause);
      if (match === null) return true;
      const [, op, raw = "", wildcard] = match;
      const want = parts(raw);
      if (wildcard !== undefined) {
        const prefix = compare(have.slice(0, want.length), want) === 0;
        return op === "!=" ? !prefix : prefix;
      }
      const order = compare(have, want);
      switch (op) {
        case ">=":
          return order >= 0;
        case "<=":
          return order <= 0;
        case ">":
          return order > 0;
        case "<":
          return order < 0;
        case "!=":
          return order !== 0;
        case "~=":
          return order >= 0 && compare(have.slice(0, want.length - 1), want.slice(0, -1)) === 0;
        default:
          // "==3.8" means 3.8.0 to PEP 440, but projects write it meaning the 3.8 series.
          return compare(have.slice(0, want.length), want) === 0;
      }
    });
}

/** The Python a task's environment uses, and why. */
export interface PythonChoice {
  /** Minor version, "3.11"; null when no version fits. */
  readonly version: string | null;
  readonly reason: string;
}

/**
 * Chooses the Python of a commit: the newest minor version that its requires-python allows,
 * that its classifiers list (when they list any), that was released by the commit's date, and
 * that is installed here; without an installed one, the newest that fits (uv may fetch it).
 * `installed` maps minor versions found on this machine to their full versions.
 */
export function choosePython(
  facts: Pick<ProjectFacts, "requiresPython" | "classifierPythons">,
  options: { date: string; installed: ReadonlyMap<string, string>; override?: string | undefined },
): PythonChoice {
  if (options.override !== undefined)
    return { version: options.override, reason: `${options.override}: given by --python` };
  const day = options.date.slice(0, 10);
  const reasons: string[] = [];
  let pool = Object.keys(PYTHON_RELEASES);
  const fullOf = (minor: string): string => options.installed.get(minor) ?? `${minor}.0`;
  if (facts.requiresPython !== null) {
    const spec = facts.requiresPython;
    pool = pool.filter((minor) => satisfiesSpecifier(fullOf(minor), spec));
    reasons.push(`requires-python ${spec} allows`);
  }
  const listed = pool.filter((minor) => facts.classifierPythons.includes(minor));
  if (listed.length > 0) {
    pool = listed;
    reasons.push("the classifiers list");
  }
  const ofTheTime = pool.filter((minor) => (PYTHON_RELEASES[minor] ?? "9999") <= day);
  if (ofTheTime.length > 0) {
    pool = ofTheTime;
    reasons.push(`released by ${day}`);
  }
  const here = pool.filter((minor) => options.installed.has(minor));
  const newest = (here.length > 0 ? here : pool).at(-1);
  if (newest === undefined)
    return {
      version: null,
      reason: `no Python version satisfies requires-python ${String(facts.requiresPython)}`,
    };
  reasons.push(here.length > 0 ? "installed here" : "(none of them is installed here)");
  return { version: newest, reason: `${newest}: the newest that ${reasons.join(", ")}` };
}
