/**
 * The rough edges a new user met (issue 18, item 5): each test runs the CLI the way that user
 * did and checks what they now see.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { quoteShell } from "../../src/core/index.js";
import { CHECK_SH } from "../../src/datasets/index.js";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const runsDir = path.join(root, "runs");
const at = (...args: string[]) => [...args, "--evals-dir", evalsDir, "--runs-dir", runsDir];

beforeAll(() => {
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
});

/** Runs the built lab with its stdout's reader gone before lab writes a byte. */
function runWithClosedStdout(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "lab.js"), ...args], {
      cwd: root,
      env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code: code ?? -1, stderr });
    });
  });
}

describe("the CLI's rough edges", () => {
  it("ends quietly, exit 0, when the reader of its output goes away (| head -1)", async () => {
    for (const args of [
      ["tools", "list"],
      ["tools", "list", "--json"],
      ["--help"],
      ["help", "run"],
      ["cache", "list"],
      ["plan", "--baseline", "0.4", "--difference", "0.1"],
      ["plan", "--baseline", "0.4", "--difference", "0.1", "--json"],
    ]) {
      const result = await runWithClosedStdout(args);
      expect(result.stderr, args.join(" ")).not.toMatch(/EPIPE|Error|at /);
      expect(result.code, args.join(" ")).toBe(0);
    }
    // The user's own pipe, through a shell that reports the first command's failure.
    const piped = spawnSync(
      "bash",
      [
        "-o",
        "pipefail",
        "-c",
        `node ${quoteShell(path.join(repoRoot, "bin", "lab.js"))} tools list | head -1`,
      ],
      { cwd: root, env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir }, encoding: "utf8" },
    );
    expect(piped.stdout).toMatch(/^TOOL\s+KIND/);
    expect(piped.stdout.split("\n")).toHaveLength(2);
    expect(piped.stderr).not.toMatch(/EPIPE|Error|at /);
    expect(piped.status).toBe(0);
  });

  it("`lab help run` is `lab run --help`, and -V prints the version", async () => {
    const help = await runLab(["help", "run"], { cwd: root });
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runLab(["run", "--help"], { cwd: root })).stdout);
    const version = await runLab(["-V"], { cwd: root });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("a usage error prints the error and one line on where the help is, not the whole help", async () => {
    const result = await runLab(at("run", "gold", "--suite", "fixture", "--trails", "3"), {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "lab run: Unknown option '--trails'.\nRun `lab run --help` for the usage.\n",
    );
  });

  it("--concurrency -1 says what is wrong with the number", async () => {
    const result = await runLab(at("run", "gold", "--suite", "fixture", "--concurrency", "-1"), {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--concurrency expects a whole number of 1 or more; got "-1".');
  });

  it('--tasks "" (an unset variable) is an error, and no run starts', async () => {
    const result = await runLab(at("run", "gold", "--suite", "fixture", "--tasks", ""), {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--tasks was given an empty value.");
    expect(result.stderr).toContain("An unset shell variable is the usual cause");
    expect(existsSync(runsDir)).toBe(false);
    const gen = await runLab(at("gen", "--suite", "fixture", "--tasks", " , "), { cwd: root });
    expect(gen.code).toBe(2);
  });

  it("lab report on a suite that exists nowhere says unknown suite, naming the suites that do", async () => {
    const result = await runLab(at("report", "--suite", "fixtrue"), { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('lab report: Unknown suite "fixtrue"');
    expect(result.stderr).toContain("Suites here: fixture");
    expect(result.stderr).not.toContain("lab run gold --suite fixtrue");
    // A real suite without runs is not unknown: it has no runs yet.
    const real = await runLab(at("report", "--suite", "fixture"), { cwd: root });
    expect(real.stderr).toContain('No runs of suite "fixture"');
  });

  it("an upper-case tool name in lab.config.json is refused with the naming rule", async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, "lab.config.json"),
      JSON.stringify({ tools: { MyTool: { command: "true" } } }),
    );
    const result = await runLab(at("run", "MyTool", "--suite", "fixture"), { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `tools.MyTool: "MyTool" is not a tool name: tool names are lower-case letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. "mytool")`,
    );
  });

  it("a predictions file error names the line", async () => {
    const jsonl = path.join(root, "preds.jsonl");
    writeFileSync(
      jsonl,
      [
        JSON.stringify({ instance_id: "alpha", model_name_or_path: "m", model_patch: "" }),
        "",
        '{"instance_id": "beta", "model_patch": nope}',
      ].join("\n"),
    );
    const bad = await runLab(
      at("run", "predictions", "--suite", "fixture", "--predictions", jsonl),
      {
        cwd: root,
      },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`Predictions file ${jsonl}, line 3 is not valid JSON`);
    expect(bad.stderr).not.toContain("position");

    const json = path.join(root, "preds.json");
    writeFileSync(
      json,
      `[\n  {"instance_id": "alpha", "model_patch": ""},\n  {"model_patch": ""}\n]\n`,
    );
    const missing = await runLab(
      at("run", "predictions", "--suite", "fixture", "--predictions", json),
      { cwd: root },
    );
    expect(missing.stderr).toContain(
      `Predictions file ${json}, line 3: the prediction has no instance_id.`,
    );
    writeFileSync(
      json,
      `${readFileSync(jsonl, "utf8").split("\n")[0] ?? ""}\n{"instance_id": 1}\n`,
    );
    const jsonLines = await runLab(
      at("run", "predictions", "--suite", "fixture", "--predictions", json),
      { cwd: root },
    );
    expect(jsonLines.stderr).toMatch(/is not valid JSON/);
    expect(jsonLines.stderr).toContain(
      "It looks like JSON Lines (one object per line): name it .jsonl.",
    );
  });

  it("bad telemetry fields are dropped with a warning, and the valid ones kept", async () => {
    const telemetry = JSON.stringify({
      costUsd: "cheap",
      inputTokens: 1200,
      outputTokens: -3,
      model: "m-1",
      cost_usd: 0.5,
    });
    const result = await runLab(
      at(
        "run",
        "command",
        "--suite",
        "fixture",
        "--tasks",
        "alpha",
        "--run-id",
        "telemetry",
        "--command",
        `printf '%s' '${telemetry}' > "$LAB_TELEMETRY_FILE"`,
      ),
      { cwd: root },
    );
    expect(result.code, result.stderr).toBe(0);
    const trial = path.join(runsDir, "telemetry", "trials", "alpha", "1");
    const stored = JSON.parse(readFileSync(path.join(trial, "result.json"), "utf8")) as {
      telemetry: Record<string, unknown>;
    };
    expect(stored.telemetry).toEqual({ inputTokens: 1200, model: "m-1" });
    for (const text of [result.stderr, readFileSync(path.join(trial, "tool.log"), "utf8")]) {
      expect(text).toContain(
        `$LAB_TELEMETRY_FILE: "costUsd" dropped: "cheap" is not a number of 0 or more`,
      );
      expect(text).toContain(`"outputTokens" dropped: -3 is not a whole number of 0 or more`);
      expect(text).toContain(`unknown field "cost_usd" ignored`);
    }
  }, 120_000);

  it("a resume keeps the run's settings and records its own", async () => {
    const first = await runLab(
      at("run", "gold", "--suite", "fixture", "--tasks", "alpha", "--timeout", "5m"),
      { cwd: root },
    );
    expect(first.code, first.stderr).toBe(0);
    const again = await runLab(
      at(
        "run",
        "gold",
        "--suite",
        "fixture",
        "--trials",
        "2",
        "--timeout",
        "7m",
        "--concurrency",
        "2",
      ),
      { cwd: root },
    );
    expect(again.code, again.stderr).toBe(0);
    const record = JSON.parse(
      readFileSync(path.join(runsDir, "fixture-gold", "run.json"), "utf8"),
    ) as {
      trials: number;
      taskIds: string[];
      config: { trials: number; concurrency: number; limits: { toolMs: number }; tasks: unknown };
      resumes: {
        at: string;
        config: { trials: number; concurrency: number; limits: { toolMs: number } };
      }[];
    };
    expect(record.config).toMatchObject({
      trials: 1,
      concurrency: 1,
      limits: { toolMs: 5 * 60_000 },
      tasks: ["alpha"],
    });
    expect(record.resumes).toHaveLength(1);
    expect(record.resumes[0]?.config).toMatchObject({
      trials: 2,
      concurrency: 2,
      limits: { toolMs: 7 * 60_000 },
    });
    expect(record).toMatchObject({ trials: 2, taskIds: ["alpha", "beta"] });
  }, 180_000);

  it("lab cache list is a table with a header, sizes and the install layers it counts", async () => {
    const result = await runLab(["cache", "list"], { cwd: root });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^KIND\s+KEY\s+PYTHON\s+PINS\s+FILES\s+SIZE\s+BUILT$/);
    const rows = lines.slice(1);
    // The runs above built the fixture's environment in the shared cache. Where a Docker engine
    // answers, the docker sandbox's images of that cache are rows too.
    expect(rows.some((row) => row.startsWith("environment "))).toBe(true);
    for (const row of rows)
      expect(row).toMatch(
        /^(environment|install layer|uv|docker image)\s+\S+\s+\S+\s+\S+\s+\S+\s+\d+(\.\d)? (B|KB|MB|GB)\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
      );
    const counted = /^(\d+) cached environment\(s\) and (\d+) install layer\(s\), /.exec(
      result.stderr,
    );
    expect(Number(counted?.[1])).toBe(rows.filter((row) => row.startsWith("environment")).length);
    expect(Number(counted?.[2])).toBe(rows.filter((row) => row.startsWith("install layer")).length);
  });

  it("lab tools list shows every agent's credential status", async () => {
    const bare = await runLab(["tools", "list"], {
      cwd: root,
      env: {
        ANTHROPIC_API_KEY: undefined,
        ANTHROPIC_AUTH_TOKEN: undefined,
        CLAUDE_CODE_OAUTH_TOKEN: undefined,
      },
    });
    const header = bare.stdout.split("\n")[0] ?? "";
    expect(header).toMatch(/^TOOL\s+KIND\s+INSTALLED\s+PINNED\s+CREDENTIALS$/);
    expect(bare.stdout).toMatch(
      /^claude-code .* missing ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN or …$/m,
    );
    const keyed = await runLab(["tools", "list"], { cwd: root, env: { ANTHROPIC_API_KEY: "x" } });
    expect(keyed.stdout).toMatch(/^claude-code .* set$/m);
  });

  it("a task's check.sh without lab on PATH says how to put it there", () => {
    const starterTasks = path.join(repoRoot, "evals", "starter", "tasks");
    for (const task of readdirSync(starterTasks))
      expect(readFileSync(path.join(starterTasks, task, "check.sh"), "utf8"), task).toBe(CHECK_SH);
    // A PATH with what check.sh needs before it runs lab, and no lab.
    const bin = tempDir();
    const dirname = spawnSync("bash", ["-c", "command -v dirname"], { encoding: "utf8" });
    symlinkSync(dirname.stdout.trim(), path.join(bin, "dirname"));
    const check = path.join(starterTasks, "ledger-allocate-negative", "check.sh");
    const result = spawnSync("/bin/bash", [check, root], { env: { PATH: bin }, encoding: "utf8" });
    expect(result.stderr).toBe(
      "check.sh: cannot run lab (lab): run `npm link` in lab's folder to put it on PATH, or set LAB_BIN=/path/to/lab/bin/lab.js.\n",
    );
    expect(result.status).toBe(127);
  });

  it("two command lines are two tools in the report: the first keeps the name, the later one is named by its run id, or by --label", async () => {
    const runs = path.join(root, "two-commands");
    const run = (...args: string[]) =>
      runLab(
        [
          "run",
          "command",
          "--suite",
          "fixture",
          "--evals-dir",
          evalsDir,
          "--runs-dir",
          runs,
          "--sandbox",
          "none",
          ...args,
        ],
        { cwd: root },
      );
    const fixing = await run("--command", "sed -i 's/a - b/a + b/' src/*/__init__.py");
    expect(fixing.code, fixing.stderr).toBe(0);
    const idle = await run("--command", "true");
    expect(idle.code, idle.stderr).toBe(0);
    const named = await run("--command", "echo looking", "--label", "looker");
    expect(named.code, named.stderr).toBe(0);
    const ids = readdirSync(runs).sort();
    expect(ids).toHaveLength(3);
    const fixingId = /run (fixture-command-\w+) completed/.exec(fixing.stderr)?.[1];
    const idleId = /run (fixture-command-\w+) completed/.exec(idle.stderr)?.[1];
    expect(fixingId).toBeDefined();
    expect(idleId).toBeDefined();
    expect(fixingId).not.toBe(idleId);

    const report = await runLab(
      ["report", "--suite", "fixture", "--evals-dir", evalsDir, "--runs-dir", runs],
      { cwd: root },
    );
    expect(report.code, report.stderr).toBe(0);
    // Three rows in the first table: the latest run did not win, and the first command line,
    // run first, keeps its name.
    const summary =
      report.stdout.split("\n\n").find((block) => block.includes("| resolve rate |")) ?? "";
    expect(summary).toMatch(/^\| command +\| .*\| +2\/2 \| +100\.0% \|/m);
    expect(summary).toMatch(
      new RegExp(`^\\| ${idleId ?? "?"} +\\| .*\\| +0/2 \\| +0\\.0% \\|`, "m"),
    );
    expect(summary).toMatch(/^\| looker +\| .*\| +0\/2 \| +0\.0% \|/m);
    const rows = JSON.parse(
      (
        await runLab(
          ["report", "--suite", "fixture", "--evals-dir", evalsDir, "--runs-dir", runs, "--json"],
          { cwd: root },
        )
      ).stdout,
    ) as { label: string; tool: string }[];
    expect(rows.map((row) => row.label).sort()).toEqual(["command", idleId, "looker"].sort());
  }, 180_000);

  it("lab gen --tasks ONE keeps the other tasks' proofs in proof.json", async () => {
    const all = await runLab(at("gen", "--suite", "fixture"), { cwd: root });
    expect(all.code, all.stderr).toBe(0);
    const proofFile = path.join(evalsDir, "fixture", "proof.json");
    type Proofs = { proofs: { taskId: string; valid: boolean; gold: { phaseMs: unknown } }[] };
    const before = JSON.parse(readFileSync(proofFile, "utf8")) as Proofs;
    expect(before.proofs.map((proof) => proof.taskId)).toEqual(["alpha", "beta"]);
    const one = await runLab(at("gen", "--suite", "fixture", "--tasks", "beta"), { cwd: root });
    expect(one.code, one.stderr).toBe(0);
    const after = JSON.parse(readFileSync(proofFile, "utf8")) as Proofs;
    expect(after.proofs.map((proof) => proof.taskId)).toEqual(["alpha", "beta"]);
    expect(after.proofs[0]).toEqual(before.proofs[0]);
    expect(after.proofs[1]?.valid).toBe(true);
  }, 180_000);
});
