import { errorMessage, isLabError, UsageError } from "../core/index.js";
import { killAllChildren } from "../process/index.js";
import { auditCommand } from "./audit.js";
import { cacheCommand } from "./cache.js";
import { calibrateCommand } from "./calibrate.js";
import { parseCommandArgs, renderCommandHelp, type CliIO, type CommandDef } from "./command.js";
import { planCommand } from "./plan.js";
import { regradeCommand } from "./regrade.js";
import { genCommand } from "./gen.js";
import { gradeCommand } from "./grade.js";
import { reportCommand } from "./report.js";
import { reviewCommand } from "./review.js";
import { runCommand } from "./run.js";
import { runsCommand } from "./runs.js";
import { showCommand } from "./show.js";
import { scenariosCommand } from "./scenarios.js";
import { LAB_VERSION } from "./shared.js";
import { clearLiveDisplays } from "../ui/index.js";
import { toolsCommand } from "./tools.js";
import { workerCommand } from "./worker.js";

/** Every subcommand, in the order help lists them. */
export const COMMANDS: readonly CommandDef[] = [
  genCommand,
  scenariosCommand,
  runCommand,
  workerCommand,
  reportCommand,
  runsCommand,
  showCommand,
  regradeCommand,
  planCommand,
  reviewCommand,
  calibrateCommand,
  auditCommand,
  gradeCommand,
  toolsCommand,
  cacheCommand,
];

function renderMainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    `lab ${LAB_VERSION}: an evaluation lab for coding agents`,
    "",
    "Usage: lab <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map(
      (command) =>
        `  ${command.name.padEnd(width)}  ${command.summary.split(/(?<=\.)\s/)[0] ?? ""}`,
    ),
    "",
    "Quick start:",
    "  lab run gold --suite starter && lab run noop --suite starter && lab report --suite starter",
    "",
    "Run `lab <command> --help` (or `lab help <command>`) for a command's options.",
    "",
  ].join("\n");
}

/**
 * The whole CLI as a function: parses argv, runs a command, and returns the exit code.
 * Expected failures print their message and hint (exit 1), usage errors also the usage
 * (exit 2), and anything else is a bug, printed with its stack.
 */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "help" && rest.length > 0) {
    // `lab help run` is `lab run --help`.
    return main([...rest.slice(0, 1), "--help"], io);
  }
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    io.stdout.write(renderMainHelp());
    return first === undefined ? 2 : 0;
  }
  if (first === "--version" || first === "-v" || first === "-V") {
    io.stdout.write(`${LAB_VERSION}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === first);
  if (command === undefined) {
    io.stderr.write(
      `lab: unknown command "${first}". Commands: ${COMMANDS.map((candidate) => candidate.name).join(", ")}.\nRun \`lab --help\` for the usage.\n`,
    );
    return 2;
  }
  try {
    const args = parseCommandArgs(command, rest);
    if (args.values.help === true) {
      io.stdout.write(renderCommandHelp(command));
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (io.signal.aborted && isLabError(error) && error.code === "CANCELLED") return 130;
    if (error instanceof UsageError) {
      // The error and one line on where the usage is, not the whole help.
      const help = `Run \`lab ${command.name} --help\` for the usage.`;
      const hint = error.hint === undefined || error.hint === help ? "" : `${error.hint}\n`;
      io.stderr.write(`lab ${command.name}: ${error.message}\n${hint}${help}\n`);
      return 2;
    }
    if (isLabError(error)) {
      io.stderr.write(
        `lab ${command.name}: ${error.message}\n${error.hint === undefined ? "" : `hint: ${error.hint}\n`}`,
      );
      return error.code === "USAGE" ? 2 : (command.errorExitCode ?? 1);
    }
    const stack = error instanceof Error ? (error.stack ?? error.message) : errorMessage(error);
    io.stderr.write(
      `lab ${command.name}: internal error (a bug in lab; please report it with this output):\n${stack}\n`,
    );
    return command.errorExitCode ?? 1;
  }
}

/**
 * A standard stream whose reader may go away (`lab tools list | head -1`): once it has, writes
 * are dropped instead of crashing lab with EPIPE, and the command ends as it would have.
 */
function quietWhenClosed(stream: NodeJS.WriteStream): CliIO["stdout"] {
  let isClosed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") isClosed = true;
    else throw error;
  });
  return {
    write: (text: string) => (isClosed ? false : stream.write(text)),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    get rows() {
      return stream.rows;
    },
  };
}

/** The executable's entry: real argv and streams, Ctrl-C cancels the run (a second one forces). */
export async function run(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) {
      clearLiveDisplays();
      process.stderr.write(
        "\nlab: interrupted; stopping (finished trials are kept, rerun the same command to resume). Press Ctrl-C again to force.\n",
      );
      controller.abort();
    } else {
      killAllChildren();
      process.exit(130);
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const code = await main(process.argv.slice(2), {
    stdout: quietWhenClosed(process.stdout),
    stderr: quietWhenClosed(process.stderr),
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    signal: controller.signal,
  });
  process.exitCode = controller.signal.aborted ? 130 : code;
}
