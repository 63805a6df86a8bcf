/**
 * A program on a real pseudo-terminal, read through a terminal emulator: util-linux `script`
 * gives the program a pty (so stderr.isTTY is true and it has a size), and xterm.js's headless
 * terminal applies every byte it writes, escape codes included, to a screen the test can read.
 * A frame that was erased badly stays on that screen, as it would on the user's.
 */
import { spawn } from "node:child_process";
import xterm from "@xterm/headless";
import { quoteShell } from "../../src/core/index.js";

/** A program running on a pseudo-terminal. */
export interface TerminalRun {
  /** Every byte written so far, escape codes included. */
  readonly raw: () => string;
  /** The screen as the user sees it now, scrollback included: one string per line (wrapped rows joined). */
  screen(): Promise<string[]>;
  /** Resolves with the screen once `test` holds for it; fails after `timeoutMs`. */
  waitForScreen(test: (rows: string[]) => boolean, timeoutMs: number): Promise<string[]>;
  /** Types into the terminal: "\u0003" is Ctrl-C. */
  type(text: string): void;
  /** The program's exit code. */
  readonly exited: Promise<number>;
  kill(): void;
}

/**
 * Runs `argv` on a `columns` x `rows` pseudo-terminal, with `env` as its whole environment; with
 * `sized: false` the pty says it has no size (0 x 0, as under a bare `script`) while the
 * emulator still shows `columns` x `rows`.
 */
export function runInTerminal(
  argv: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    columns: number;
    rows: number;
    sized?: boolean;
  },
): TerminalRun {
  const terminal = new xterm.Terminal({
    cols: options.columns,
    rows: options.rows,
    scrollback: 1000,
    allowProposedApi: true,
  });
  // The pty starts with no size; stty gives it the emulator's, then the program replaces the shell.
  const size = `stty cols ${String(options.columns)} rows ${String(options.rows)}; `;
  const line = `${options.sized === false ? "" : size}exec ${argv.map(quoteShell).join(" ")}`;
  const child = spawn("script", ["-q", "-f", "-e", "-c", line, "/dev/null"], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  let pending = Promise.resolve();
  child.stdout.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    raw += text;
    pending = pending.then(
      () =>
        new Promise((resolve) => {
          terminal.write(text, resolve);
        }),
    );
  });
  child.stderr.on("data", (chunk: Buffer) => {
    raw += `[script stderr] ${chunk.toString("utf8")}`;
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      resolve(code ?? -1);
    });
  });
  const screen = async (): Promise<string[]> => {
    await pending;
    const buffer = terminal.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i);
      const text = line?.translateToString(true) ?? "";
      // A row the terminal wrapped onto continues the line above it.
      const last = rows.pop();
      if (line?.isWrapped === true && last !== undefined) rows.push(last + text);
      else rows.push(...(last === undefined ? [] : [last]), text);
    }
    while (rows.length > 0 && rows.at(-1) === "") rows.pop();
    return rows;
  };
  return {
    raw: () => raw,
    screen,
    async waitForScreen(test, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await screen();
        if (test(rows)) return rows;
        if (Date.now() > deadline)
          throw new Error(`the screen never showed what was expected:\n${rows.join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    type: (text) => {
      child.stdin.write(text);
    },
    exited,
    kill: () => child.kill("SIGKILL"),
  };
}
