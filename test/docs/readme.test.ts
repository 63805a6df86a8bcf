/**
 * The README is a guide whose commands must work: every `lab ...` command in it is checked
 * against the built CLI's own help (`node bin/lab.js CMD --help`, real processes): the command
 * exists, its verb too, every option is one it takes and has its value. The cheap ones (the
 * starter suite's gold and noop runs on one task, scenarios, report, plan, tools list, cache
 * list) are run for real in a temporary folder. Its links, paths and npm scripts must exist.
 */
import { execFile, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";
import {
  commandProblems,
  isPlaceholder,
  labCommands,
  parseCommandHelp,
  parseCommandList,
  type CliHelp,
  type DocCommand,
} from "./readme-commands.js";

const labBin = path.join(repoRoot, "bin", "lab.js");
const readmeFile = path.join(repoRoot, "README.md");
const readme = readFileSync(readmeFile, "utf8");
/** Where the README's commands run (removed after the file: tempDir's afterAll). */
const root = tempDir("lab-readme-");
/** The one starter task the README's runs are cut down to. */
const oneTask = "textkit-slugify-max-length";

/** Runs the built lab in `cwd`, with the tests' shared environment cache. */
function lab(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [labBin, ...args], {
    cwd,
    env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir, CI: "1", ...env },
    encoding: "utf8",
    timeout: 10 * 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let cli: CliHelp = new Map();

/** A help text of the built lab (`args` end in --help), read in a process of its own. */
async function helpText(args: readonly string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [labBin, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  return stdout;
}

beforeAll(async () => {
  if (!existsSync(path.join(repoRoot, "dist", "cli", "bin.js")))
    throw new Error("bin/lab.js needs the build: run `npm run build` (npm test does) first.");
  const names = parseCommandList(await helpText(["--help"]));
  const helps = await Promise.all(names.map((name) => helpText([name, "--help"])));
  cli = new Map(names.map((name, i) => [name, parseCommandHelp(helps[i] ?? "")]));
  expect(cli.size).toBeGreaterThanOrEqual(12);
});

/** The value of `--name` in a command's words. */
function optionValue(words: readonly string[], name: string): string | undefined {
  const at = words.indexOf(name);
  return at === -1 ? undefined : words[at + 1];
}

/**
 * The arguments to run a README command with for real, when it is cheap and needs nothing the
 * test cannot give (an agent's key, a queue, a suite to generate): runs are cut to one task.
 */
function cheapArgs(command: DocCommand): string[] | undefined {
  const [, name, ...rest] = command.words;
  if (command.from !== "block" || rest.some(isPlaceholder)) return undefined;
  const onStarter = optionValue(rest, "--suite") === "starter";
  switch (name) {
    case "scenarios":
    case "report":
    case "calibrate":
      return onStarter ? [name, ...rest] : undefined;
    // A plan without --suite reads nothing.
    case "plan":
      return onStarter || optionValue(rest, "--suite") === undefined ? [name, ...rest] : undefined;
    case "run": {
      const cheap = (rest[0] === "gold" || rest[0] === "noop") && !rest.includes("--queue");
      if (!cheap || !onStarter) return undefined;
      return rest.includes("--tasks") ? [name, ...rest] : [name, ...rest, "--tasks", oneTask];
    }
    // `list` only: `lab cache clear` would empty the environment cache every test shares.
    case "tools":
    case "cache":
      return rest[0] === "list" && rest.length === 1 ? [name, "list"] : undefined;
    default:
      return undefined;
  }
}

describe("the README's commands", () => {
  const commands = labCommands(readme);

  it("are found: the guide's blocks and inline spans hold lab commands", () => {
    expect(commands.filter((command) => command.from === "block").length).toBeGreaterThan(20);
    expect(commands.map((command) => command.words[1])).toEqual(
      expect.arrayContaining(["run", "report", "plan", "gen", "worker", "tools", "audit"]),
    );
  });

  it("each names a command lab has, options it takes and their values", () => {
    const problems = commands.flatMap((command) =>
      commandProblems(command, cli).map((problem) => `${command.text}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it("a misspelt option, an unknown command or verb, a missing value would fail the check", () => {
    const broken = readme
      .replace("lab scenarios --suite starter ", "lab scenarioz --suite starter ")
      .replace("--trials 3 --concurrency 2", "--trails 3 --concurrency 2")
      .replace("lab tools list ", "lab tools lst ")
      .replace("--baseline 0.4 --difference 0.05", "--baseline 0.4 --difference");
    const problems = labCommands(broken).flatMap((command) => commandProblems(command, cli));
    expect(problems).toEqual([
      'unknown command "scenarioz"',
      "lab run has no option --trails",
      "lab plan --difference needs a value",
      'lab tools has no "lst" (it takes list, install)',
    ]);
  });

  it("the cheap ones run for real: the starter suite's runs, its report, scenarios and plan", () => {
    // A copy of the suite in ./evals, where lab looks first: nothing is written into the checkout.
    cpSync(path.join(repoRoot, "evals", "starter"), path.join(root, "evals", "starter"), {
      recursive: true,
    });
    const ran: string[] = [];
    for (const command of commands) {
      const args = cheapArgs(command);
      if (args === undefined) continue;
      const result = lab(args, root, { LAB_TOOLS_DIR: path.join(root, "tools") });
      const said = `lab ${args.join(" ")}\n${result.stderr}`;
      expect(result.code, said).toBe(0);
      const [name] = args;
      if (name === "scenarios") expect(result.stdout, said).toContain(oneTask);
      if (name === "run") expect(result.stderr, said).toMatch(/run starter-\w+ completed/);
      if (name === "report") {
        expect(result.stdout, said).toContain("### Paired comparisons");
        expect(result.stdout, said).toMatch(/^- gold .* noop/m);
        const html = optionValue(args, "--html");
        if (html !== undefined) expect(existsSync(path.join(root, html)), said).toBe(true);
      }
      if (name === "plan") {
        // The figures the README quotes are the plan's own rows.
        const figures = quotedPlanFigures(command);
        expect(figures, said).not.toEqual([]);
        for (const [trials, tasks] of figures)
          expect(result.stdout, said).toMatch(
            new RegExp(`^\\|\\s+${trials} \\|[^|]+\\|\\s+${tasks} \\|`, "m"),
          );
      }
      ran.push(name ?? "");
    }
    expect([...new Set(ran)]).toEqual(
      expect.arrayContaining(["scenarios", "run", "report", "plan", "tools", "cache"]),
    );
  }, 900_000);
});

/** The figures a README line's comment quotes from `lab plan` ("1574 tasks at 1 trial"): [trials, tasks]. */
function quotedPlanFigures(command: DocCommand): [string, string][] {
  const line = readme.split("\n").find((text) => text.includes(command.text)) ?? "";
  const comment = line.slice(line.indexOf("#"));
  return [...comment.matchAll(/(\d+) tasks at (\d+)|(\d+) at (\d+)/g)].map((match) => [
    match[2] ?? match[4] ?? "",
    match[1] ?? match[3] ?? "",
  ]);
}

describe("the README's other references", () => {
  it("is a guide of about 300 lines, its measurements left to docs/performance.md", () => {
    // Issue 28: it had grown to 665 lines, half of them benchmarks and experiments.
    expect(readme.split("\n").length).toBeLessThanOrEqual(340);
    expect(readme).not.toMatch(/load average/i);
    expect(readme).toContain("docs/performance.md");
  });

  it("keeps the two quick-start commands, and CI runs the second", () => {
    const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    expect(block.split("\n").map((line) => line.split("#")[0]?.trim())).toEqual([
      "bash scripts/quickstart.sh",
      "bash scripts/test.sh",
      "",
    ]);
    for (const script of ["scripts/quickstart.sh", "scripts/test.sh"])
      expect(existsSync(path.join(repoRoot, script)), script).toBe(true);
    expect(readFileSync(path.join(repoRoot, ".ci", "run"), "utf8")).toContain(
      "exec bash scripts/test.sh",
    );
  });

  it("links, and names paths, that exist (the README and docs/performance.md)", () => {
    const missing: string[] = [];
    for (const file of [readmeFile, path.join(repoRoot, "docs", "performance.md")]) {
      const text = readFileSync(file, "utf8");
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? "");
      const paths = [
        ...text.matchAll(/`((?:\.ci|bench|data|docs|evals|scripts|src|test)\/[^`\s]+)`/g),
      ]
        .map((match) => match[1] ?? "")
        .filter((name) => !name.split("/").some(isPlaceholder));
      for (const target of links.filter((link) => !/^(\w+:|#)/.test(link)))
        if (!existsSync(path.resolve(path.dirname(file), target.split("#")[0] ?? "")))
          missing.push(`${path.relative(repoRoot, file)}: link ${target}`);
      for (const name of paths)
        if (!existsSync(path.join(repoRoot, name)))
          missing.push(`${path.relative(repoRoot, file)}: ${name}`);
    }
    expect(missing).toEqual([]);
  });

  it("names npm scripts that package.json has", () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const named = [readme, readFileSync(path.join(repoRoot, "docs", "performance.md"), "utf8")]
      .flatMap((text) => [...text.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1] ?? ""))
      .filter((name) => !name.endsWith(":"));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((name) => !(name in scripts))).toEqual([]);
  });

  it("keeps the markers npm run eval-docs writes the tiers' results between", () => {
    const script = readFileSync(path.join(repoRoot, "scripts", "eval-docs.ts"), "utf8");
    const [start, end] = ["<!-- results:start -->", "<!-- results:end -->"];
    expect(script).toContain(`"${start}"`);
    expect(script).toContain(`"${end}"`);
    const tiers = readdirSync(path.join(repoRoot, "evals"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(repoRoot, "evals", entry.name, "README.md"))
      .filter((file) => existsSync(file) && readFileSync(file, "utf8").includes(start));
    expect(tiers.map((file) => path.basename(path.dirname(file)))).toContain("starter");
    for (const file of tiers) {
      const text = readFileSync(file, "utf8");
      expect(text.indexOf(end, text.indexOf(start)), file).toBeGreaterThan(-1);
    }
  });
});
