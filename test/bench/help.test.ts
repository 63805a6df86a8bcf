import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runPool } from "../../src/core/index.js";
import { repoRoot } from "../helpers/temp.js";

/** Modules the benches share: no script of their own, so no `bench:*` entry. */
const SHARED = ["gold-grade.ts"];

/** Every `npm run bench:NAME` of package.json, as its name and its file under bench/. */
const benches = Object.entries(
  (
    JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts,
)
  .filter(([script]) => script.startsWith("bench:"))
  .map(([script, command]) => {
    const file = /^tsx bench\/([\w-]+)\.ts$/.exec(command)?.[1];
    if (file === undefined) throw new Error(`${script} is not "tsx bench/NAME.ts": ${command}`);
    return { script, name: file };
  });

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `tsx bench/NAME.ts ARGS` in a process of its own. */
function runBench(name: string, args: readonly string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs"),
        path.join(repoRoot, "bench", `${name}.ts`),
        ...args,
      ],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

const CASES = {
  help: ["--help"],
  unknown: ["--no-such-option"],
} as const;
const outcomes = new Map<string, Outcome>();
const outcome = (name: string, kind: string): Outcome => {
  const found = outcomes.get(`${name} ${kind}`);
  if (found === undefined) throw new Error(`bench/${name}.ts was not run with ${kind}`);
  return found;
};

beforeAll(async () => {
  const runs = [
    ...benches.flatMap(({ name }) =>
      Object.entries(CASES).map(([kind, args]) => ({ key: `${name} ${kind}`, name, args })),
    ),
    { key: "proof-times missing", name: "proof-times", args: ["no/such/suite"] },
    { key: "report repeat", name: "report", args: ["--repeat", "x"] },
  ];
  // Each is a whole tsx start-up; a few at once, the machine has other work.
  await runPool(runs, 4, async ({ key, name, args }) => {
    outcomes.set(key, await runBench(name, args));
  });
}, 300_000);

describe("the bench scripts' command lines", () => {
  it("every script under bench/ has an npm run bench:* entry, so the checks below cover it", () => {
    const files = readdirSync(path.join(repoRoot, "bench")).filter((file) => file.endsWith(".ts"));
    const covered = new Set([...benches.map(({ name }) => `${name}.ts`), ...SHARED]);
    expect(files.filter((file) => !covered.has(file))).toEqual([]);
  });

  describe.each(benches)("$script", ({ name, script }) => {
    it("prints its usage for --help on stdout, exit 0", () => {
      const help = outcome(name, "help");
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: npm run ${script} -- `));
      expect(help.stderr).toBe("");
    });

    it("refuses an unknown option in one line and the usage on stderr, exit 2", () => {
      const unknown = outcome(name, "unknown");
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(
        new RegExp(
          `^${name}: Unknown option '--no-such-option'[^\\n]*\\nusage: npm run ${script} `,
        ),
      );
      expect(unknown.stderr).not.toContain("    at ");
      expect(unknown.stdout).toBe("");
    });
  });

  it("names a suite folder that is not there, and a value that is not a number", () => {
    const missing = outcome("proof-times", "missing");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^proof-times: no folder at no\/such\/suite\nusage: /);
    const repeat = outcome("report", "repeat");
    expect(repeat.code).toBe(2);
    expect(repeat.stderr).toMatch(
      /^report: --repeat expects a whole number of at least 1; got "x"\nusage: /,
    );
  });
});
