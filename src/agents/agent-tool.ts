import { createHash } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { copyFile, lstat, mkdir, mkdtemp, open, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LabError, quoteShell, type Telemetry, type Tool } from "../core/index.js";
import { findInstalled, installationOf, type InstalledAgent } from "./install-agent.js";
import { priceTelemetry, type PriceTable } from "./pricing.js";
import type { AgentAdapter, AgentOutcome, AgentSettings } from "./types.js";

/** Captured output bigger than this is not read whole (a runaway CLI); its tail is. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** What an agent tool is made from, besides its adapter. */
export interface AgentToolOptions {
  readonly toolsDir: string;
  readonly settings: AgentSettings;
  /** The user's environment, where credentials and optional variables are looked up by name. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly prices: PriceTable;
}

/** The credentials an adapter needs that are missing from `env`, one name list per group. */
export function missingCredentials(
  adapter: AgentAdapter,
  env: Readonly<Record<string, string | undefined>>,
): (readonly string[])[] {
  return adapter.credentials.filter((group) =>
    group.every((name) => env[name] === undefined || env[name] === ""),
  );
}

function pick(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") picked[name] = value;
  }
  return picked;
}

/** Reads a file the tool could have replaced: a symlink is not followed, a huge file only its tail. */
async function readCapped(file: string): Promise<string> {
  try {
    const handle = await open(
      file,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const info = await handle.stat();
      if (!info.isFile()) return "";
      const length = Math.min(info.size, MAX_OUTPUT_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, info.size - length);
      return buffer.toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return "";
  }
}

/**
 * A coding-agent CLI as a lab tool: it runs headless in the trial's sandbox with its settings
 * written into the sandbox's private HOME, its stdout captured to a file beside the trial, and
 * its final output parsed into telemetry, priced, with its transcript copied beside the trial.
 */
export function createAgentTool(adapter: AgentAdapter, options: AgentToolOptions): Tool {
  const installed: InstalledAgent | null = findInstalled(options.toolsDir, adapter.name);
  const credentialNames = adapter.credentials.flat();
  const fingerprint = createHash("sha256")
    .update(
      JSON.stringify([
        adapter.name,
        installed?.version ?? null,
        options.settings.model ?? null,
        options.settings.baseUrl ?? null,
        options.settings.maxCostUsd ?? null,
        options.settings.extraArgs ?? [],
      ]),
    )
    .digest("hex")
    .slice(0, 12);
  return {
    name: adapter.name,
    description: adapter.description,
    readsOracle: false,
    ...(installed === null
      ? {}
      : {
          sandboxPaths: [installed.installDir, ...installed.extraPaths],
          installation: installationOf(installed),
        }),
    fingerprint,
    detectVersion() {
      return Promise.resolve(installed?.version ?? "unknown");
    },
    checkReady() {
      if (installed === null) {
        return Promise.reject(
          new LabError(
            "TOOL_NOT_INSTALLED",
            `${adapter.name} is not installed in ${options.toolsDir}.`,
            {
              hint: `Run \`lab tools install ${adapter.name}\` (${adapter.package.manager} package ${adapter.package.name}@${adapter.package.version}), or set LAB_TOOLS_DIR to where it is installed.`,
            },
          ),
        );
      }
      const missing = missingCredentials(adapter, options.env);
      if (missing.length > 0) {
        const names = missing.map((group) => group.join(" or ")).join(", and ");
        return Promise.reject(
          new LabError("TOOL_NOT_INSTALLED", `${adapter.name} needs ${names}, which is not set.`, {
            hint: `Export ${missing.map((group) => group[0] ?? "").join(" and ")} before \`lab run ${adapter.name}\`; lab passes it to the tool by name and never stores it.`,
          }),
        );
      }
      return Promise.resolve();
    },
    async run(ctx) {
      if (installed === null) throw new Error(`${adapter.name} is not installed`);
      // Without a sandbox of its own HOME (provider "none"), the CLI still gets a private one:
      // its settings must not overwrite the user's.
      const sandboxHome = ctx.sandbox.homeDir;
      const ownHome = sandboxHome !== undefined;
      const home =
        sandboxHome ?? (await mkdtemp(path.join(os.tmpdir(), `lab-${adapter.name}-home-`)));
      try {
        const invocation = adapter.invocation({
          executable: installed.executable,
          installDir: installed.installDir,
          prompt: ctx.prompt,
          promptFile: ctx.promptFile,
          workTree: ctx.workTree,
          home,
          artifactsDir: ctx.artifactsDir,
          timeoutMs: ctx.timeoutMs,
          settings: options.settings,
          credentials: pick(options.env, credentialNames),
        });
        for (const file of invocation.files) {
          await mkdir(path.dirname(file.path), { recursive: true });
          await writeFile(file.path, file.content, { mode: 0o600 });
        }
        const stdoutFile = path.join(ctx.artifactsDir, "agent-stdout.txt");
        const argv = [...invocation.argv, ...(options.settings.extraArgs ?? [])];
        const result = await ctx.sandbox.exec(
          ["/bin/sh", "-c", `exec "$@" > ${quoteShell(stdoutFile)}`, "sh", ...argv],
          {
            cwd: ctx.workTree,
            env: {
              ...ctx.env,
              HOME: home,
              ...pick(options.env, adapter.optionalEnv),
              ...invocation.env,
            },
            timeoutMs: ctx.timeoutMs,
            logFile: ctx.logFile,
            signal: ctx.signal,
          },
        );
        const output =
          invocation.outputFile !== undefined && existsSync(invocation.outputFile)
            ? await readCapped(invocation.outputFile)
            : await readCapped(stdoutFile);
        const outcome = safeParse(adapter, output, result.stderrTail);
        await keepTranscripts(adapter, home, outcome, ctx.artifactsDir);
        const telemetry = price(
          {
            // Some CLIs (Codex) do not say which model answered: the one asked for did.
            ...(options.settings.model === undefined ? {} : { model: options.settings.model }),
            ...outcome.telemetry,
          },
          options.prices,
        );
        return {
          exit: {
            exitCode: result.exitCode,
            signal: result.signal,
            timedOut: result.timedOut,
            ...(result.limitExceeded === null ? {} : { limit: result.limitExceeded }),
            ...(outcome.error === undefined || result.timedOut ? {} : { error: outcome.error }),
          },
          telemetry,
        };
      } finally {
        if (!ownHome) await rm(home, { recursive: true, force: true });
      }
    },
  };
}

function safeParse(adapter: AgentAdapter, stdout: string, stderr: string): AgentOutcome {
  try {
    return adapter.parse(stdout, stderr);
  } catch (error) {
    return {
      telemetry: {},
      error: `lab could not read ${adapter.name}'s output: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function price(reported: Telemetry, prices: PriceTable): Telemetry {
  // A cost of 0 for tokens spent is a CLI without prices for the model (opencode's custom
  // providers), not a free run.
  const tokens =
    (reported.inputTokens ?? 0) +
    (reported.outputTokens ?? 0) +
    (reported.cacheReadTokens ?? 0) +
    (reported.cacheWriteTokens ?? 0);
  const { costUsd, ...rest } = reported;
  const telemetry = costUsd === 0 && tokens > 0 ? rest : reported;
  const priced = priceTelemetry(telemetry, prices);
  if (priced.costUsd === undefined || priced.costSource === "unknown") return telemetry;
  return { ...telemetry, costUsd: priced.costUsd, costSource: priced.costSource };
}

/** Copies the CLI's transcript files from its HOME into the trial's artifacts folder. */
async function keepTranscripts(
  adapter: AgentAdapter,
  home: string,
  outcome: AgentOutcome,
  artifactsDir: string,
): Promise<void> {
  let files: readonly string[];
  try {
    files = await adapter.transcripts(home, outcome);
  } catch {
    return;
  }
  const target = path.join(artifactsDir, "transcripts");
  const homeReal = await realpath(home);
  for (const file of files) {
    const source = path.isAbsolute(file) ? file : path.join(home, file);
    try {
      // The tool wrote HOME: a link out of it would have lab copy a host file for the tool.
      const real = await realpath(source);
      if (!real.startsWith(homeReal + path.sep)) continue;
      const info = await lstat(real);
      if (!info.isFile() || info.size > MAX_OUTPUT_BYTES) continue;
      await mkdir(target, { recursive: true });
      await copyFile(real, path.join(target, path.basename(real)));
    } catch {
      // A transcript the CLI did not write is not an error of the trial.
    }
  }
  // A marker of where the transcripts came from, for people reading the trial folder.
  if (files.length > 0 && existsSync(target)) {
    await writeFile(
      path.join(target, "README.txt"),
      `Copied from the sandbox HOME of ${adapter.name}:\n${files.join("\n")}\n`,
    );
  }
}
