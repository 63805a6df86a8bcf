/**
 * How trials end badly, in words a report and a run's last lines share: the class of an
 * infrastructure error, each trial's one "bad way" (the tool exited 127, timed out, hit the
 * memory limit, made no change, ...), and the warning when most trials of a run end the same
 * bad way. See docs/design/reports.md ("Failures").
 */
import type { SandboxLimit } from "./sandbox.js";

/**
 * Whose fault an infrastructure error is, as SWE-bench 5.0 splits them: the task's
 * environment (an install, the interpreter, the network to a package index), lab itself, or
 * the machine (disk, memory, file handles).
 */
export type InfraClass = "environment" | "lab" | "machine";

/** Every InfraClass, in the order reports list them; "unclassified" is an old record's. */
export const INFRA_CLASSES = ["environment", "lab", "machine"] as const satisfies InfraClass[];

/** The machine ran out of something. */
const MACHINE =
  /\b(ENOSPC|EDQUOT|ENOMEM|EMFILE|ENFILE)\b|no space left|disk quota|cannot allocate memory|out of memory|too many open files/i;

/** The task's environment: its interpreter, its installs, the package index. */
const ENVIRONMENT =
  /\b(uv|pip|pyenv|python\d?(\.\d+)*|interpreter|venv|virtualenv|requirements?|pins?|wheel|sdist|pypi|package index|install(ed|ing)?)\b|could not resolve host|name resolution|ECONNRESET|EAI_AGAIN|ENETUNREACH|network is unreachable/i;

/** LabError codes that name their class. */
const CLASS_OF_CODE: Readonly<Record<string, InfraClass>> = {
  ENVIRONMENT_FAILED: "environment",
  PYTHON_NOT_FOUND: "environment",
  NODE_NOT_FOUND: "environment",
  UV_UNAVAILABLE: "environment",
  SYSTEM_PACKAGES_MISSING: "environment",
  // lab's own machinery: a path in their message ("/usr/bin/python3") must not make them the environment's.
  SANDBOX_UNAVAILABLE: "lab",
  SPAWN_FAILED: "lab",
  GIT_FAILED: "lab",
  SETUP_FAILED: "lab",
  STORE_CORRUPT: "lab",
  QUEUE_UNAVAILABLE: "lab",
};

/**
 * The class an infrastructure error's words point to, or null when they point nowhere: the
 * machine's signs first (a full disk fails an install too), then the environment's. `code` is
 * the LabError code or errno code of the error, when there was one.
 */
export function inferInfraClass(message: string, code?: string): InfraClass | null {
  if (MACHINE.test(message) || (code !== undefined && MACHINE.test(code))) return "machine";
  const byCode = code === undefined ? undefined : CLASS_OF_CODE[code];
  if (byCode !== undefined) return byCode;
  if (ENVIRONMENT.test(message)) return "environment";
  return null;
}

/**
 * The class a new infrastructure error is recorded with: what its words say, else lab's
 * (an error lab did not foresee is lab's to explain).
 */
export function classifyInfraError(message: string, code?: string): InfraClass {
  return inferInfraClass(message, code) ?? "lab";
}

/** What a trial's bad end is made of: the fields of a stored record that tell it. */
export interface TrialFailureFacts {
  readonly kind: "graded" | "tool_timeout" | "tool_crashed" | "infra_error";
  /** The tool's exit code; null (or absent) when a signal ended it or it never ran. */
  readonly exitCode?: number | null | undefined;
  readonly signal?: string | null | undefined;
  /** The sandbox limit that ended some of the tool's processes. */
  readonly limit?: SandboxLimit | null | undefined;
  readonly patchEmpty: boolean | null;
  /** An infrastructure error's class ("unclassified": an old record whose words say nothing). */
  readonly infraClass?: InfraClass | "unclassified" | null | undefined;
}

/** The one bad way a trial ended, as a key (for counting) and in words; null: it ended well. */
export interface TrialFailure {
  /** "infra:environment", "timeout", "limit:memory", "exit:127", "signal:SIGKILL", "error", "empty". */
  readonly key: string;
  /** Its words after "the tool" or before "in N of M trials". */
  readonly words: string;
}

/** Exit codes a shell gives meaning to. */
const EXIT_WORDS: Readonly<Record<number, string>> = {
  126: "found but not executable",
  127: "command not found",
  137: "killed, by SIGKILL",
  139: "segmentation fault",
};

/** What an exit code means, in a few words ("exited 127 (command not found)"). */
export function describeExit(exitCode: number): string {
  const words = EXIT_WORDS[exitCode];
  return `exited ${String(exitCode)}${words === undefined ? "" : ` (${words})`}`;
}

/**
 * The single worst way a trial ended, most telling first: an infrastructure error, a timeout,
 * a sandbox limit, a non-zero exit or a signal, an error the tool reported, an empty change.
 */
export function trialFailure(facts: TrialFailureFacts): TrialFailure | null {
  if (facts.kind === "infra_error") {
    const infraClass = facts.infraClass ?? "unclassified";
    return { key: `infra:${infraClass}`, words: `an infrastructure error (${infraClass})` };
  }
  if (facts.kind === "tool_timeout") return { key: "timeout", words: "the tool timed out" };
  if (facts.limit !== null && facts.limit !== undefined)
    return {
      key: `limit:${facts.limit}`,
      words: `the tool was stopped by the sandbox's ${facts.limit} limit`,
    };
  if (facts.kind === "tool_crashed") {
    if (facts.exitCode !== null && facts.exitCode !== undefined && facts.exitCode !== 0)
      return {
        key: `exit:${String(facts.exitCode)}`,
        words: `the tool ${describeExit(facts.exitCode)}`,
      };
    if (facts.signal !== null && facts.signal !== undefined)
      return { key: `signal:${facts.signal}`, words: `the tool was killed by ${facts.signal}` };
    return { key: "error", words: "the tool reported an error" };
  }
  if (facts.patchEmpty === true) return { key: "empty", words: "the tool made no change" };
  return null;
}

/** The likely cause of a failure and what to do, after its words; "" when lab cannot say. */
function likelyCause(key: string, hints: FailureHints): string {
  if (key === "empty" && hints.stated === true)
    return ": the predictions give these instances an empty patch (upstream counts them as empty_patch_instances)";
  if (key === "exit:127")
    return hints.mentionsTmp
      ? ": the sandbox hides /tmp (each trial gets a private one); put the script in the work tree or name its folder in paths (lab.config.json) or --path"
      : ": a program the command runs is not visible in the sandbox, which shows the system, PATH, the work tree and the tool's paths; name its folder in paths (lab.config.json) or --path";
  if (key === "exit:126")
    return ": a script it runs lacks its execute bit or sits on a folder mounted noexec";
  if (key === "timeout")
    return ": raise --timeout, or check that the tool does not wait for input (its stdin is empty)";
  if (key === "limit:memory") return ": raise --memory";
  if (key === "limit:disk") return ": raise --disk, or keep the tool from writing large files";
  if (key === "limit:processes") return ": the tool forks without bound";
  if (key === "empty")
    return ": it may write outside the work tree, or not at all ({workdir} is the work tree)";
  if (key.startsWith("infra:"))
    return ": read the messages in the trials' result.json; a resume retries them";
  return "; read its log (tool.log in the trial folders)";
}

/** Whether a command line or a log names a path under /tmp ("/tmp/agent.sh: No such file"). */
export function mentionsTmpPath(text: string): boolean {
  return /(^|[\s'"=:(])\/tmp\//m.test(text);
}

/** What the run knows beyond the records that sharpens a warning's cause. */
export interface FailureHints {
  /** A tool log or the command line names a path under /tmp. */
  readonly mentionsTmp: boolean;
  /** The changes were stated up front (a predictions file), not made by a tool. */
  readonly stated?: boolean | undefined;
}

/**
 * A warning when most trials (more than half) ended the same bad way, naming the likely cause:
 * "the tool exited 127 (command not found) in 10 of 10 trials: the sandbox hides /tmp; ...".
 * Null when no one way is most. `expectsEmpty` (noop) leaves empty changes out.
 */
export function describeFailurePattern(
  trials: readonly TrialFailureFacts[],
  hints: FailureHints = { mentionsTmp: false },
  options: { readonly expectsEmpty?: boolean } = {},
): string | null {
  const counts = new Map<string, { failure: TrialFailure; count: number }>();
  for (const facts of trials) {
    const failure = trialFailure(facts);
    if (failure === null || (failure.key === "empty" && options.expectsEmpty === true)) continue;
    const entry = counts.get(failure.key) ?? { failure, count: 0 };
    counts.set(failure.key, { failure, count: entry.count + 1 });
  }
  const top = [...counts.values()].sort((a, b) => b.count - a.count)[0];
  if (top === undefined || top.count * 2 <= trials.length) return null;
  const { failure, count } = top;
  const words =
    failure.key === "empty" && hints.stated === true ? "the prediction was empty" : failure.words;
  return `${words} in ${String(count)} of ${String(trials.length)} trials${likelyCause(failure.key, hints)}`;
}
