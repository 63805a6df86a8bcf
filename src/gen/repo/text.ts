import type { MinedChange } from "./mining.js";

/** Where a task's issue text came from. */
export type TextSource = "commit-message" | "merge-messages" | "github-pr" | "github-issue";

/** A task's issue text and its provenance. */
export interface IssueText {
  readonly text: string;
  readonly source: TextSource;
  /** The issue or pull request it was read from, when it came from a host's API. */
  readonly url?: string;
}

/** Trailers that say who, not what. */
const TRAILER =
  /^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Change-Id|Cc):/i;

/** A commit message without trailers, merge boilerplate or a squash merge's "(#123)". */
export function cleanMessage(message: string): string {
  const lines = message
    .replace(/\r\n/g, "\n")
    .split("\n")
    .filter((line) => !TRAILER.test(line.trim()));
  const first = (lines[0] ?? "").trim();
  if (/^Merge (pull request #\d+ from \S+|(remote-tracking )?branch .*)$/.test(first))
    lines.shift();
  else if (lines.length > 0) lines[0] = first.replace(/\s*\(#\d+\)\s*$/, "");
  return lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * The issue text of a change without a host's API: its commit message; for a merge commit, the
 * merge's message and then the messages of the commits it merged.
 */
export function issueTextFromCommits(change: MinedChange): IssueText {
  const own = cleanMessage(change.message);
  if (change.kind !== "merge") return { text: own || change.subject, source: "commit-message" };
  const merged = [...new Set(change.mergedMessages.map(cleanMessage))].filter(
    (message) => message !== "" && message !== own,
  );
  const parts = own === "" ? [] : [own];
  if (merged.length > 0)
    parts.push(
      `${own === "" ? "Changes" : "The changes"} merged:\n\n${merged
        .reverse()
        .map((message) => `- ${message.replace(/\n(?!\n)/g, "\n  ")}`)
        .join("\n")}`,
    );
  const text = parts.join("\n\n").trim();
  return { text: text || change.subject, source: "merge-messages" };
}

/** How to reach GitHub's REST API. */
export interface GithubAccess {
  /** "https://api.github.com", or a stand-in. */
  readonly apiBase: string;
  readonly token: string;
  /** "owner/name". */
  readonly repo: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal | undefined;
}

interface GithubThread {
  readonly title?: unknown;
  readonly body?: unknown;
  readonly html_url?: unknown;
}

async function getThread(access: GithubAccess, kind: "pulls" | "issues", number: number) {
  const signals = [AbortSignal.timeout(access.timeoutMs ?? 15_000)];
  if (access.signal !== undefined) signals.push(access.signal);
  const response = await fetch(
    `${access.apiBase.replace(/\/$/, "")}/repos/${access.repo}/${kind}/${String(number)}`,
    {
      headers: {
        Accept: "application/vnd.github+json",
        Authorization: `Bearer ${access.token}`,
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "lab",
      },
      signal: AbortSignal.any(signals),
    },
  );
  if (!response.ok)
    throw new Error(`GitHub answered ${String(response.status)} for ${kind}/${String(number)}`);
  return (await response.json()) as GithubThread;
}

function threadText(thread: GithubThread): string {
  const title = typeof thread.title === "string" ? thread.title.trim() : "";
  const body = typeof thread.body === "string" ? thread.body.replace(/\r\n/g, "\n").trim() : "";
  return [title, body].filter((part) => part !== "").join("\n\n");
}

/** Issues a pull request's description says it closes ("Fixes #12", "closes #3"). */
export function linkedIssues(body: string): number[] {
  const found = [...body.matchAll(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b/gi)];
  return [...new Set(found.map((match) => Number(match[1])))];
}

/**
 * The issue text from GitHub: the issue the pull request closes when it names one, otherwise
 * the pull request's own title and description. Null when the API gives nothing usable.
 */
export async function issueTextFromGithub(
  access: GithubAccess,
  pr: number,
): Promise<IssueText | null> {
  const pull = await getThread(access, "pulls", pr);
  const body = typeof pull.body === "string" ? pull.body : "";
  const issue = linkedIssues(body)[0];
  if (issue !== undefined) {
    const thread = await getThread(access, "issues", issue);
    const text = threadText(thread);
    if (text !== "")
      return {
        text,
        source: "github-issue",
        ...(typeof thread.html_url === "string" ? { url: thread.html_url } : {}),
      };
  }
  const text = threadText(pull);
  if (text === "") return null;
  return {
    text,
    source: "github-pr",
    ...(typeof pull.html_url === "string" ? { url: pull.html_url } : {}),
  };
}
