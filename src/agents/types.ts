/**
 * Adapters for coding-agent CLIs (Claude Code, Codex CLI, Gemini CLI, opencode, Qwen Code,
 * aider, mini-swe-agent): how each is installed, invoked headless inside a trial's sandbox, and
 * how its final machine-readable output becomes telemetry. See docs/design/agents.md.
 */
import type { Telemetry } from "../core/index.js";

/** What a CLI's own output says about one run, normalised across CLIs. */
export interface AgentOutcome {
  /**
   * Tokens and turns as the CLI reported them. `inputTokens` never includes cache reads or
   * cache writes (CLIs that fold cached tokens into their input count are subtracted), so each
   * category can be priced apart. `costUsd` is set only when the CLI itself reported a cost.
   */
  readonly telemetry: Telemetry;
  /** The CLI's own failure message when it reports one, even with exit status 0. */
  readonly error?: string;
  /** The CLI's session or thread id, to find its transcript. */
  readonly sessionId?: string;
  /** The final message of the agent, when the output has one. */
  readonly finalText?: string;
}

/** Parses a CLI's captured stdout (and stderr, where some CLIs put errors) into an outcome. */
export type OutputParser = (stdout: string, stderr: string) => AgentOutcome;

/** Where a CLI comes from, at a pinned version. */
export interface AgentPackage {
  /** The registry that carries it. */
  readonly manager: "npm" | "pypi";
  /** The package name in that registry. */
  readonly name: string;
  /** The version lab pins by default; `lab tools install NAME --version V` overrides it. */
  readonly version: string;
  /** The executable the package installs. */
  readonly bin: string;
}

/** What the user sets for an agent (lab.config.json `agents.<name>`, or flags). */
export interface AgentSettings {
  /** The model name passed to the CLI; the CLI's default when unset. */
  readonly model?: string | undefined;
  /** The model API's base URL (a proxy, a gateway, or a local server). */
  readonly baseUrl?: string | undefined;
  /** A spending cap per trial in USD, for CLIs that support one. */
  readonly maxCostUsd?: number | undefined;
  /** More arguments for the CLI, appended to lab's. */
  readonly extraArgs?: readonly string[] | undefined;
}

/** A file the adapter writes before the CLI starts (its settings), at a host path. */
export interface AgentFile {
  readonly path: string;
  readonly content: string;
}

/** Everything an adapter needs to build one headless invocation. Paths are host paths. */
export interface InvocationInput {
  /** The CLI's executable inside its lab-managed installation. */
  readonly executable: string;
  /** The installation's folder. */
  readonly installDir: string;
  /** The prompt (issue text plus ground rules). */
  readonly prompt: string;
  /** A file holding the prompt, readable in the sandbox. */
  readonly promptFile: string;
  /** The work tree; the CLI's working directory. */
  readonly workTree: string;
  /** The sandbox's private HOME, where CLIs keep settings and transcripts. */
  readonly home: string;
  /** A writable folder beside the trial for outputs the CLI writes (trajectories). */
  readonly artifactsDir: string;
  /** The trial's wall-clock limit, for CLIs that accept one. */
  readonly timeoutMs: number;
  readonly settings: AgentSettings;
  /** The credentials found, by variable name. */
  readonly credentials: Readonly<Record<string, string>>;
}

/** One headless run of a CLI. */
export interface Invocation {
  /** argv; argv[0] is an absolute path. stdout is captured to a file and parsed. */
  readonly argv: readonly string[];
  /** Variables added to the trial's environment (credentials, base URL, switches). */
  readonly env: Readonly<Record<string, string>>;
  /** Settings files to write first (inside `home` or `artifactsDir`). */
  readonly files: readonly AgentFile[];
  /**
   * A file (inside artifactsDir) the CLI writes its machine-readable result to (a trajectory),
   * parsed instead of stdout when it exists.
   */
  readonly outputFile?: string | undefined;
}

/** One coding-agent CLI: how to install, run and read it. */
export interface AgentAdapter {
  /** The name users give to `lab run` and `lab tools install`. */
  readonly name: string;
  /** One line for `lab tools list`. */
  readonly description: string;
  readonly package: AgentPackage;
  /**
   * Credentials by variable name: each inner list is alternatives, one of which must be set
   * (e.g. [["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]]).
   */
  readonly credentials: readonly (readonly string[])[];
  /** Other variables passed through when set (base URLs, regions). */
  readonly optionalEnv: readonly string[];
  /** Builds the command line, its environment and its settings files. */
  invocation(input: InvocationInput): Invocation;
  /** Reads the CLI's captured output. */
  readonly parse: OutputParser;
  /**
   * Where the CLI left its transcript in `home` (paths relative to it, or absolute inside it),
   * for the outcome just parsed; lab copies these beside the trial. Files the CLI wrote into
   * artifactsDir are there already.
   */
  transcripts(home: string, outcome: AgentOutcome): Promise<readonly string[]>;
}
