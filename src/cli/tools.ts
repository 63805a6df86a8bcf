import { existsSync } from "node:fs";
import path from "node:path";
import {
  AGENT_ADAPTERS,
  findInstalled,
  installAgent,
  installationOf,
  listInstalled,
  missingCredentials,
  requireAdapter,
} from "../agents/index.js";
import { environmentOptions } from "../config/index.js";
import { UsageError } from "../core/index.js";
import { checkSandboxName, prepareToolImage } from "../sandbox/index.js";
import { BUILTIN_TOOLS } from "../tools/index.js";
import { defineCommand, flagOption, stringOption } from "./command.js";
import { alignColumns, configFrom, configOption, settingsFrom } from "./shared.js";

/** `lab tools list|install`. */
export const toolsCommand = defineCommand({
  name: "tools",
  summary:
    "List the tools lab can run, or install a coding-agent CLI at a pinned version into lab's tools folder (LAB_TOOLS_DIR, by default ~/.local/share/lab/tools).",
  usage: "tools (list | install NAME...)",
  positionals: { min: 1, max: 8 },
  options: {
    version: {
      type: "string",
      value: "V",
      description: "install: this version instead of the pinned one (one tool only)",
    },
    force: { type: "boolean", description: "install: reinstall even when that version is there" },
    sandbox: {
      type: "string",
      value: "NAME",
      description:
        "install: with docker, also build the image layer the tool runs from in docker sandboxes (otherwise the first `lab run --sandbox docker` builds it) [env: LAB_SANDBOX]",
    },
    json: { type: "boolean", description: "list: one JSON object per tool on stdout" },
    ...configOption,
  },
  details: `Agent CLIs: ${AGENT_ADAPTERS.map((adapter) => `${adapter.name} (${adapter.package.manager} ${adapter.package.name}@${adapter.package.version})`).join(", ")}.

Examples:
  lab tools list
  lab tools install claude-code
  lab tools install codex --version 0.171.0
  lab tools install claude-code --sandbox docker   # also its image layer for docker sandboxes
  lab run claude-code --suite starter --model claude-sonnet-4-5`,
  async run(args, io) {
    const settings = settingsFrom(args, io);
    const [action, ...names] = args.positionals;
    if (action === "list") {
      if (names.length > 0) throw new UsageError("`lab tools list` takes no names.");
      const config = configFrom(args, io);
      const rows = [
        ...BUILTIN_TOOLS.map((name) => ({ name, kind: "builtin" as const })),
        ...AGENT_ADAPTERS.map((adapter) => {
          const installed = findInstalled(settings.toolsDir, adapter.name);
          const missing = missingCredentials(adapter, io.env);
          return {
            name: adapter.name,
            kind: "agent" as const,
            package: `${adapter.package.name}@${adapter.package.version}`,
            installed: installed?.version ?? null,
            executable: installed?.executable ?? null,
            credentials:
              missing.length === 0
                ? "set"
                : `missing ${missing.map((group) => group.join(" or ")).join(", ")}`,
          };
        }),
        ...Object.entries(config.tools).map(([name, entry]) => ({
          name,
          kind: "command" as const,
          command: entry.command,
        })),
      ];
      if (flagOption(args, "json")) {
        for (const row of rows) io.stdout.write(`${JSON.stringify(row)}\n`);
        return 0;
      }
      // Credentials last: the one column whose width varies a lot.
      const table: string[][] = [["TOOL", "KIND", "INSTALLED", "PINNED", "CREDENTIALS"]];
      for (const row of rows) {
        if (row.kind === "builtin") table.push([row.name, "built in", "-", "-", "-"]);
        else if (row.kind === "command")
          table.push([row.name, "command", "-", "-", `- (command: ${row.command})`]);
        else
          table.push([
            row.name,
            "agent",
            row.installed ?? `no (lab tools install ${row.name})`,
            row.package,
            // Two names of each group say enough in a table; --json has them all.
            row.credentials.replace(/((?:\w+ or ){2})\w+(?: or \w+)*/g, "$1…"),
          ]);
      }
      io.stdout.write(alignColumns(table));
      const others = listInstalled(settings.toolsDir).filter((entry) => !entry.current);
      if (others.length > 0) {
        io.stderr.write(
          `Also installed, not current: ${others.map((entry) => `${entry.name}@${entry.version}`).join(", ")}\n`,
        );
      }
      io.stderr.write(`Tools folder: ${settings.toolsDir}\n`);
      return 0;
    }
    if (action === "install") {
      if (names.length === 0) {
        throw new UsageError(
          `Name the tool to install: ${AGENT_ADAPTERS.map((adapter) => adapter.name).join(", ")}.`,
        );
      }
      const version = stringOption(args, "version");
      if (version !== undefined && names.length > 1)
        throw new UsageError("--version goes with one tool at a time.");
      const adapters = names.map(requireAdapter);
      const sandbox =
        stringOption(args, "sandbox") ??
        (io.env.LAB_SANDBOX || undefined) ??
        configFrom(args, io).defaults.sandbox;
      if (sandbox !== undefined) checkSandboxName(sandbox);
      for (const adapter of adapters) {
        const logFile = path.join(settings.toolsDir, adapter.name, "install.log");
        io.stderr.write(
          `Installing ${adapter.package.name}@${version ?? adapter.package.version} (${adapter.package.manager}) into ${settings.toolsDir}… (log: ${logFile})\n`,
        );
        const started = Date.now();
        const installed = await installAgent(adapter, {
          toolsDir: settings.toolsDir,
          version,
          force: flagOption(args, "force"),
          environment: environmentOptions(settings, io.signal),
          signal: io.signal,
          logFile,
        });
        if (sandbox === "docker") {
          const image = await prepareToolImage(
            settings.docker,
            installationOf(installed),
            (message) => io.stderr.write(`docker: ${message}\n`),
            io.signal,
          );
          io.stderr.write(`${adapter.name} ${installed.version} in docker: image ${image}\n`);
        }
        io.stdout.write(`${adapter.name}\t${installed.version}\t${installed.executable}\n`);
        io.stderr.write(
          `${adapter.name} ${installed.version} ready in ${((Date.now() - started) / 1000).toFixed(1)} s${existsSync(installed.executable) ? "" : " (executable missing!)"}\n`,
        );
      }
      return 0;
    }
    throw new UsageError(`Unknown tools action "${String(action)}": use list or install.`);
  },
});
