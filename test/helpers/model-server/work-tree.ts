/**
 * Finds the agent's working directory in a request: file tools want absolute paths, and each CLI
 * states its directory in its own words.
 */
import type { IncomingHttpHeaders } from "node:http";

/** How each CLI states its working directory, most specific first. */
const PATTERNS: readonly RegExp[] = [
  // Codex: an `<environment_context>` input item.
  /<cwd>([^<\n]+)<\/cwd>/,
  // Claude Code 2.x: "# Environment ... - Primary working directory: /path".
  /Primary working directory:[ \t]*(\S[^\n]*)/i,
  // Gemini CLI and Qwen Code: the first user turn ("This is the Gemini CLI. We are setting up...").
  /I'm currently working in the directory:[ \t]*(\S[^\n]*)/,
  /I'm currently working in the following directories:\s*\n\s*-\s*(\S[^\n]*)/,
  // opencode and older Claude Code: "<env>\n  Working directory: /path".
  /(?:^|\n)[ \t]*Working directory:[ \t]*(\S[^\n]*)/,
];

function isAbsolute(candidate: string): boolean {
  return candidate.startsWith("/") || /^[A-Za-z]:[\\/]/.test(candidate);
}

function clean(candidate: string): string {
  return (
    candidate
      .trim()
      .replace(/^`|`$/g, "")
      .replace(/[\\/]+$/, "") || "/"
  );
}

/** Codex also names its workspaces in a header: `x-codex-turn-metadata.workspaces`. */
function fromCodexHeader(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers["x-codex-turn-metadata"];
  if (typeof raw !== "string") return undefined;
  try {
    const metadata = JSON.parse(raw) as { workspaces?: Record<string, unknown> };
    return Object.keys(metadata.workspaces ?? {}).find(isAbsolute);
  } catch {
    return undefined;
  }
}

/** The absolute working directory a request states, or undefined when it states none. */
export function findWorkTree(
  texts: readonly string[],
  headers: IncomingHttpHeaders,
): string | undefined {
  for (const pattern of PATTERNS) {
    for (const text of texts) {
      const found = pattern.exec(text)?.[1];
      if (found !== undefined && isAbsolute(clean(found))) return clean(found);
    }
  }
  return fromCodexHeader(headers);
}
