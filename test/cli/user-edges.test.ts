/**
 * The rough edges a new user met (issue 28, part 2): each test runs lab in a process of its
 * own, the way that user did, and checks what they now see.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECK_SH } from "../../src/datasets/index.js";
import { commandProgram } from "../../src/tools/index.js";
import { describeTool } from "../../src/ui/index.js";
import { withDockerReclaimLock } from "../helpers/docker-reclaim-lock.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { startLab } from "../helpers/lab-process.js";
import { sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runsDir];

/** Runs lab in its own process and waits for it to end. */
async function lab(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = startLab(args, {
    cwd: options.cwd ?? root,
    ...(options.env ? { env: options.env } : {}),
  });
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
});

describe("a command line's program", () => {
  it("is checked only when the line certainly names one", () => {
    expect(commandProgram("my-agent --prompt-file {prompt_file}")).toBe("my-agent");
    expect(commandProgram("true; echo hi")).toBe("true");
    expect(commandProgram("echo;echo")).toBe("echo");
    expect(commandProgram("env; my-agent")).toBe("env");
    expect(commandProgram("env|cat")).toBe("env");
    expect(commandProgram("(echo hi)")).toBeNull();
    expect(commandProgram("{ echo hi; }")).toBeNull();
    expect(commandProgram("FOO=1 my-agent")).toBeNull();
    expect(commandProgram('"my agent" --go')).toBeNull();
    expect(commandProgram("$HOME/bin/agent")).toBeNull();
    expect(commandProgram("~/bin/agent")).toBeNull();
  });

  it("lab run command accepts valid bash the check used to refuse", async () => {
    for (const [index, command] of [
      "true; echo hi",
      "(echo hi)",
      "echo;echo",
      "env; true",
    ].entries()) {
      const result = await lab(
        at(
          "run",
          "command",
          "--suite",
          "fixture",
          "--tasks",
          "alpha",
          "--command",
          command,
          "--run-id",
          `bash-${String(index)}`,
        ),
      );
      expect(result.stderr, command).not.toContain("is not on PATH");
      expect(result.code, `${command}\n${result.stderr}`).toBe(0);
    }
    const missing = await lab(
      at("run", "command", "--suite", "fixture", "--command", "no-such-agent-binary; true"),
    );
    expect(missing.stderr).toContain(
      'Tool "command" cannot run: `no-such-agent-binary` is not on PATH.',
    );
  });
});

describe("--tasks naming a task twice", () => {
  it("runs it once, saying so", async () => {
    const result = await lab(
      at("run", "gold", "--suite", "fixture", "--tasks", "alpha,alpha,beta", "--run-id", "twice"),
    );
    expect(result.stderr).toContain(
      "--tasks names alpha more than once; each task runs once (--trials K runs it K times)",
    );
    expect(result.code, result.stderr).toBe(0);
    const results = readFileSync(path.join(runsDir, "twice", "results.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(results).toHaveLength(2);
    expect(readdirSync(path.join(runsDir, "twice", "trials", "alpha"))).toHaveLength(1);
    expect(result.stderr).toMatch(/2\/2 resolved/);
  });
});

describe("lab report --html", () => {
  it("refuses a folder, an empty name and a missing folder plainly, before any work", async () => {
    // A run to report on: without one, lab stopped at "no runs" before it reached the page.
    const run = await lab(
      at("run", "gold", "--suite", "fixture", "--tasks", "alpha", "--run-id", "html"),
    );
    expect(run.code, run.stderr).toBe(0);
    const missing = path.join(root, "no-such-dir", "r.html");
    for (const [given, message] of [
      [root, `lab report: --html ${root} is a folder, not a file.`],
      ["", "lab report: --html was given an empty value."],
      [
        missing,
        `lab report: --html ${missing}: the folder ${path.dirname(missing)} does not exist.`,
      ],
    ] as const) {
      const result = await lab(at("report", "--suite", "fixture", "--html", given));
      expect(result.stderr, given).toContain(message);
      expect(result.stderr, given).not.toMatch(/^\s+at /m);
      expect(result.code, given).toBe(2);
    }
    expect(existsSync(path.dirname(missing))).toBe(false);
  });
});

describe("lab grade", () => {
  it("exits 0 resolved, 1 unresolved, 2 when it cannot grade, and leaves no log behind", async () => {
    const tmp = path.join(root, "grade-tmp");
    mkdirSync(tmp);
    const env = { TMPDIR: tmp };
    const task = path.join(evalsDir, "fixture", "tasks", "alpha");
    const gold = path.join(evalsDir, "fixture", "oracle", "alpha", "gold.patch");
    const resolved = await lab(["grade", "--task-dir", task, "--patch", gold], { env });
    expect(resolved.stdout).toBe("alpha: resolved\n");
    expect(resolved.code, resolved.stderr).toBe(0);
    const tree = path.join(root, "alpha-untouched");
    execFileSync("bash", [path.join(task, "setup.sh"), tree]);
    const unresolved = await lab(["grade", "--task-dir", task, tree], { env });
    expect(unresolved.stdout).toMatch(/^alpha: unresolved: /);
    expect(unresolved.code, unresolved.stderr).toBe(1);
    const missing = await lab(["grade", "--task-dir", task, path.join(root, "no-such-tree")], {
      env,
    });
    expect(missing.stderr).toContain(
      `Work tree ${path.join(root, "no-such-tree")} does not exist.`,
    );
    expect(missing.code).toBe(2);
    expect(readdirSync(tmp).filter((name) => name.startsWith("lab-grade-"))).toEqual([]);
    const help = await lab(["grade", "--help"]);
    expect(help.stdout).toContain(
      "Exit 0 when resolved, 1 when not, 2 when it could not be graded",
    );
  });
});

describe("lab gen --from-repo with nothing to keep", () => {
  it("says plainly that nothing was kept and why, exit 1", async () => {
    const repo = path.join(root, "repos", "quiet");
    mkdirSync(repo, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=lab", "-c", "user.email=lab@localhost", ...args], {
        cwd: repo,
      });
    git("init", "-q", "-b", "main");
    writeFileSync(path.join(repo, "a.py"), "x = 1\n");
    git("add", ".");
    git("commit", "-qm", "init");
    const result = await lab(
      at("gen", "--suite", "quiet", "--from-repo", repo, "--since", "2030-01-01"),
    );
    expect(result.stderr).toContain(
      'lab gen: Nothing was kept: suite "quiet" has no tasks. No merged change was found on main since 2030-01-01.\nhint: Name a branch with merged changes, or an earlier --since.\n',
    );
    expect(result.code).toBe(1);
  });
});

describe("tool names in reports", () => {
  it("stay as they were when another tool comes, and a clash is said", async () => {
    const runs = path.join(root, "names");
    const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runs];
    const run = async (...args: string[]) => {
      const result = await lab(
        at("run", ...args, "--suite", "fixture", "--tasks", "alpha", "--sandbox", "none"),
      );
      expect(result.code, result.stderr).toBe(0);
      return /run (\S+) completed/.exec(result.stderr)?.[1] ?? "?";
    };
    const labels = async () => {
      const report = await lab(at("report", "--suite", "fixture", "--format", "json-full"));
      expect(report.code, report.stderr).toBe(0);
      const parsed = JSON.parse(report.stdout) as {
        runs: { run_id: string; label: string; note: string | null }[];
      };
      return Object.fromEntries(parsed.runs.map((row) => [row.run_id, row]));
    };
    const first = await run("command", "--command", "true");
    expect((await labels())[first]?.label).toBe("command");
    const second = await run("command", "--command", "echo second");
    const both = await labels();
    expect(both[first]?.label).toBe("command");
    expect(both[second]?.label).toBe(second);
    // These runs are made with --sandbox none, which the note also says ("not isolated: ...").
    expect(both[second]?.note).toContain(
      `named by its run id: "command" is the name of another tool of this suite, run first in ${first}; name this one with --label`,
    );
    const gold = await run("gold");
    const posing = await run(
      "command",
      "--command",
      "echo posing",
      "--label",
      "gold",
      "--run-id",
      "posing",
    );
    const all = await labels();
    expect(all[first]?.label).toBe("command");
    expect(all[gold]?.label).toBe("gold");
    expect(all[posing]?.label).toBe("posing");
    expect(all[posing]?.note).toContain(
      `named by its run id: "gold" is the name of another tool of this suite, run first in ${gold}; give this one another --label`,
    );
  }, 300_000);
});

describe("lab cache and lab's own uv", () => {
  it("list shows it, and clear removes it", async () => {
    const cacheDir = path.join(root, "uv-cache");
    const uvDir = path.join(cacheDir, "tools", "uv");
    // lab's own uv as findUv leaves it: the shared test cache's copy when lab installed one.
    const shared = path.join(sharedCacheDir, "tools", "uv");
    if (existsSync(shared)) cpSync(shared, uvDir, { recursive: true });
    else {
      mkdirSync(path.join(uvDir, "bin"), { recursive: true });
      writeFileSync(path.join(uvDir, "bin", "uv"), "#!/bin/sh\n");
    }
    const env = { LAB_CACHE_DIR: cacheDir };
    const list = await lab(["cache", "list"], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^uv +uv(-[\d.]+)? +- +- +- +\d/m);
    expect(list.stderr).toMatch(new RegExp(`^lab's own uv: [\\d.]+ [KM]?B, in ${uvDir}$`, "m"));
    // A clear also removes containers of labs that are gone, engine-wide: the lock keeps it
    // from taking the one the docker lifecycle test leaves on purpose.
    const clear = await withDockerReclaimLock(() => lab(["cache", "clear"], { env }));
    expect(clear.stderr).toContain(
      `Removed lab's own uv from ${uvDir} (a grade installs it again when no uv is on PATH)\n`,
    );
    expect(existsSync(uvDir)).toBe(false);
  });
});

describe("where grading runs, as --help says it", () => {
  it("is the sandbox, not the host", async () => {
    for (const command of ["run", "grade"]) {
      const help = await lab([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout, command).not.toMatch(/graded on the host|hidden tests, on the host/);
      expect(help.stdout, command).toMatch(/sandbox/);
    }
    expect((await lab(["run", "--help"])).stdout).toContain(
      "the tool's change is graded by hidden tests in the same sandbox (--sandbox)",
    );
    expect((await lab(["grade", "--help"])).stdout).toContain(
      "its install and tests run in a bwrap sandbox (unconfined on the host only where bwrap cannot run)",
    );
  });

  it("is the sandbox in the check.sh every task ships, too", () => {
    // check.sh runs lab grade: its comment says where as lab grade --help does.
    expect(CHECK_SH).not.toMatch(/on the host/);
    expect(CHECK_SH).toContain(
      "# Grades a work tree (or, with --patch FILE, a diff) against this task's hidden tests,\n# its install and tests run in a bwrap sandbox (unconfined only where bwrap cannot run).",
    );
  });
});

describe("lab calibrate --json", () => {
  it("prints numbers without float noise, as every other JSON does", async () => {
    const thirds = path.join(root, "thirds-evals");
    writeFixtureSuite(thirds, "thirds", [addTask("one"), addTask("two"), addTask("three")]);
    for (const [task, difficulty] of [
      ["one", "2"],
      ["two", "2"],
      ["three", "3"],
    ] as const) {
      const review = await lab([
        ...["review", "--suite", "thirds", "--task", task, "--reviewer", "ann"],
        ...["--clarity", "clear", "--tests", "adequate", "--alternatives", "0"],
        ...["--difficulty", difficulty, "--evals-dir", thirds],
      ]);
      expect(review.code, review.stderr).toBe(0);
    }
    const json = await lab(["calibrate", "--suite", "thirds", "--json", "--evals-dir", thirds]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain('"mean": 2.33333333333');
    expect(json.stdout).not.toMatch(/\d\.\d{13,}/);
  });
});

describe("the predictions tool", () => {
  it("is listed by lab tools list and named in the unknown-tool hint", async () => {
    const list = await lab(["tools", "list"]);
    expect(list.stdout).toMatch(/^predictions +built in /m);
    const unknown = await lab(at("run", "nosuchtool", "--suite", "fixture"));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/hint: Tools here: gold, noop, command, predictions, /);
  });
});

describe("misspelt names", () => {
  it("get a did-you-mean: suites, tools and tasks", async () => {
    const suite = await lab(at("run", "gold", "--suite", "fixtrue"));
    expect(suite.stderr).toContain("hint: Did you mean fixture? Suites here: ");
    const tool = await lab(at("run", "gld", "--suite", "fixture"));
    expect(tool.stderr).toContain('Unknown tool "gld" (did you mean gold?).');
    const task = await lab(at("run", "gold", "--suite", "fixture", "--tasks", "alpah"));
    expect(task.stderr).toContain(
      'Unknown task "alpah" in suite "fixture".\nhint: Did you mean alpha?',
    );
    for (const result of [suite, tool, task]) expect(result.code).toBe(1);
  });
});

describe("--display json", () => {
  it("stamps every event with the time it happened", async () => {
    const before = new Date().toISOString();
    const result = await lab(
      at(
        "run",
        "gold",
        "--suite",
        "fixture",
        "--tasks",
        "beta",
        "--run-id",
        "stamped",
        "--display",
        "json",
      ),
    );
    expect(result.code, result.stderr).toBe(0);
    const events = result.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; time: string });
    expect(events.map((event) => event.type)).toContain("trial:end");
    const times = events.map((event) => event.time);
    for (const time of times) expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect([...times].sort()).toEqual(times);
    expect((times[0] ?? "") >= before).toBe(true);
  });
});

describe('a "gold" entry in lab.config.json', () => {
  it("is said to be ignored, since lab's own gold runs", async () => {
    const dir = path.join(root, "gold-config");
    mkdirSync(dir);
    const config = path.join(dir, "lab.config.json");
    writeFileSync(config, JSON.stringify({ tools: { gold: { command: "echo mine" } } }));
    const result = await lab(
      at("run", "gold", "--suite", "fixture", "--tasks", "alpha", "--run-id", "own-gold"),
      { cwd: dir },
    );
    expect(result.stderr).toContain(
      `lab: warning: ${config} declares a tool "gold", which is lab's own: that entry is ignored; give it another name to run it.\n`,
    );
    expect(result.code, result.stderr).toBe(0);
  });
});

describe("a tool's telemetry warnings", () => {
  it("are said once per run, with a did-you-mean for a near miss", async () => {
    const telemetry = JSON.stringify({ costUSD: 0.5, cost_usd: 1, inputTokens: 7, colour: 2 });
    const result = await lab(
      at(
        "run",
        "command",
        "--suite",
        "fixture",
        "--trials",
        "2",
        "--sandbox",
        "none",
        "--run-id",
        "telemetry-once",
        "--command",
        `printf '%s' '${telemetry}' > "$LAB_TELEMETRY_FILE"`,
      ),
    );
    expect(result.code, result.stderr).toBe(0);
    const warned = result.stderr.split("\n").filter((line) => line.includes("$LAB_TELEMETRY_FILE"));
    expect(warned).toHaveLength(3);
    expect(warned[0]).toMatch(
      /^lab: warning: alpha #1: \$LAB_TELEMETRY_FILE: unknown field "costUSD" ignored: did you mean costUsd\? \(said once per run; each trial's tool.log has it\)$/,
    );
    expect(warned[1]).toContain('unknown field "cost_usd" ignored: did you mean costUsd?');
    expect(warned[2]).toContain('unknown field "colour" ignored (said once');
    // Every trial's own log keeps what was wrong with its telemetry.
    for (const task of ["alpha", "beta"])
      for (const trial of ["1", "2"]) {
        const log = readFileSync(
          path.join(runsDir, "telemetry-once", "trials", task, trial, "tool.log"),
          "utf8",
        );
        expect(log).toContain(
          'lab: warning: $LAB_TELEMETRY_FILE: unknown field "costUSD" ignored: did you mean costUsd?\n',
        );
      }
  }, 180_000);
});

describe("a run's start line", () => {
  it("names the tool by its --label, and says an unknown version as such", async () => {
    const start = async (...args: string[]) => {
      const result = await lab(
        at(
          "run",
          "command",
          "--suite",
          "fixture",
          "--tasks",
          "alpha",
          "--sandbox",
          "none",
          ...args,
        ),
      );
      expect(result.code, result.stderr).toBe(0);
      return result.stderr.split("\n")[0];
    };
    expect(await start("--command", "true", "--label", "mine", "--run-id", "labelled")).toBe(
      "lab: starting run labelled: mine (command, version unknown) on fixture, 1 trial(s) to do",
    );
    // A resume without --label keeps the run's.
    expect(await start("--command", "true", "--run-id", "labelled")).toBe(
      "lab: resuming run labelled: mine (command, version unknown) on fixture, 0 trial(s) to do, 1 already done",
    );
    expect(await start("--command", "true", "--run-id", "unlabelled")).toBe(
      "lab: starting run unlabelled: command (version unknown) on fixture, 1 trial(s) to do",
    );
    expect(describeTool("aider", "0.86.1", "mine")).toBe("mine (aider 0.86.1)");
    expect(describeTool("gold", "1")).toBe("gold 1");
  }, 120_000);
});

describe("resuming a predictions run with a changed file", () => {
  it("says the predictions file changed, naming it", async () => {
    const gold = readFileSync(
      path.join(evalsDir, "fixture", "oracle", "alpha", "gold.patch"),
      "utf8",
    );
    const write = (file: string, patch: string) => {
      writeFileSync(
        path.join(root, file),
        `${JSON.stringify({ instance_id: "alpha", model_name_or_path: "m", model_patch: patch })}\n`,
      );
    };
    const run = (file: string) =>
      lab(
        at(
          "run",
          "predictions",
          "--predictions",
          file,
          "--suite",
          "fixture",
          "--tasks",
          "alpha",
          "--run-id",
          "preds",
        ),
      );
    write("preds.jsonl", gold);
    const first = await run("preds.jsonl");
    expect(first.code, first.stderr).toBe(0);
    write("preds.jsonl", "");
    const changed = await run("preds.jsonl");
    expect(changed.stderr).toContain(
      `Run "preds" in ${path.join(runsDir, "preds")} was made from the predictions file preds.jsonl as it was then: it has changed since; resuming it with this one would mix results.`,
    );
    expect(changed.stderr).not.toContain("command line");
    expect(changed.code).toBe(1);
    write("other.jsonl", "");
    const other = await run("other.jsonl");
    expect(other.stderr).toContain(
      `was made from other predictions than other.jsonl (run.json: Grades ${path.join(root, "preds.jsonl")} (m)); resuming it`,
    );
    expect(other.code).toBe(1);
  }, 120_000);

  it("warns of empty predictions as such, not as a tool that wrote nowhere", async () => {
    writeFileSync(
      path.join(root, "empty.jsonl"),
      `${JSON.stringify({ instance_id: "alpha", model_name_or_path: "m", model_patch: "" })}\n`,
    );
    const empty = await lab(
      at(
        "run",
        "predictions",
        "--predictions",
        path.join(root, "empty.jsonl"),
        "--suite",
        "fixture",
        "--tasks",
        "alpha",
        "--run-id",
        "empty-preds",
      ),
    );
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stderr).toContain(
      "warning: run empty-preds: the prediction was empty in 1 of 1 trials: the predictions give these instances an empty patch",
    );
    expect(empty.stderr).not.toContain("{workdir}");
  }, 120_000);
});

describe("a run's end line", () => {
  it("counts what the command named against the run's own trials, and a short run against its plan", async () => {
    const first = await lab(
      at(
        "run",
        "gold",
        "--suite",
        "fixture",
        "--tasks",
        "alpha",
        "--trials",
        "2",
        "--run-id",
        "counted",
        "--sandbox",
        "none",
      ),
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("lab: run counted completed: 2/2 resolved; results in ");
    // Resumed naming one trial of the two the run holds: the end line says whose they are.
    const again = await lab(
      at(
        "run",
        "gold",
        "--suite",
        "fixture",
        "--tasks",
        "alpha",
        "--run-id",
        "counted",
        "--sandbox",
        "none",
      ),
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("0 trial(s) to do, 1 already done");
    expect(again.stderr).toContain(
      "lab: run counted completed: 2/2 resolved over the run's 2 trials (this command named 1); results in ",
    );
  }, 180_000);
});
