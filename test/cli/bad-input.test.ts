import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

beforeAll(() => {
  writeFixtureSuite(path.join(root, "evals"), "fixture", [addTask("alpha")]);
});

describe("the CLI on bad input", () => {
  it("prints its version and help", async () => {
    expect((await runLab(["--version"], { cwd: root })).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await runLab(["--help"], { cwd: root });
    expect(help.code).toBe(0);
    for (const command of ["gen", "scenarios", "run", "report"])
      expect(help.stdout).toContain(`  ${command} `);
    for (const command of ["gen", "scenarios", "run", "report", "grade", "cache"]) {
      const sub = await runLab([command, "--help"], { cwd: root });
      expect(sub.code).toBe(0);
      expect(sub.stdout).toMatch(new RegExp(`^Usage: lab ${command}`));
    }
  });

  it("names an unknown command and lists the real ones, exit 2", async () => {
    const result = await runLab(["rnu"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'lab: unknown command "rnu". Commands: gen, scenarios, run, worker, report, runs, show, regrade, plan, review, calibrate, audit, grade, tools, cache.',
    );
  });

  it("names an unknown option and says where the usage is, exit 2", async () => {
    const result = await runLab(["run", "gold", "--suite", "fixture", "--trails", "3"], {
      cwd: root,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("lab run: Unknown option '--trails'.");
    expect(result.stderr).toContain("Run `lab run --help` for the usage.");
  });

  it("asks for --suite when it is missing", async () => {
    const result = await runLab(["run", "gold"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("lab run needs --suite NAME.");
  });

  it("rejects a malformed number or duration, naming the option", async () => {
    expect(
      (await runLab(["run", "gold", "--suite", "fixture", "--trials", "two"], { cwd: root }))
        .stderr,
    ).toContain('--trials expects a whole number of 1 or more; got "two".');
    expect(
      (await runLab(["run", "gold", "--suite", "fixture", "--timeout", "soon"], { cwd: root }))
        .stderr,
    ).toContain('--timeout expects a duration such as 90s, 30m or 1h; got "soon".');
    expect(
      (
        await runLab(["run", "gold", "--suite", "fixture", "--concurrency", "0"], {
          cwd: root,
          env: {},
        })
      ).code,
    ).toBe(2);
  });

  it("names an unknown suite and lists the suites there", async () => {
    const result = await runLab(["run", "gold", "--suite", "nope"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('lab run: Unknown suite "nope"');
    expect(result.stderr).toMatch(/hint: Suites here: .*fixture/);
  });

  it("names an unknown tool and lists the tools", async () => {
    const result = await runLab(["run", "claude-cod", "--suite", "fixture"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown tool "claude-cod" (did you mean claude-code?).');
    expect(result.stderr).toContain(
      "hint: Tools here: gold, noop, command, predictions, claude-code, codex, gemini, opencode, qwen-code",
    );
  });

  it("names an unknown task and suggests close ones", async () => {
    const result = await runLab(["run", "gold", "--suite", "fixture", "--tasks", "alph"], {
      cwd: root,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown task "alph" in suite "fixture".');
    expect(result.stderr).toContain("Did you mean alpha?");
  });

  it("reports a config file that does not parse, with its place, and writes nothing", async () => {
    const cwd = path.join(root, "badconfig");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      path.join(cwd, "lab.config.json"),
      '{\n  "tools": {\n    "mine": { "command": "x", }\n  }\n}\n',
    );
    const result = await runLab(
      ["run", "mine", "--suite", "fixture", "--evals-dir", path.join(root, "evals")],
      { cwd },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Config file .*lab\.config\.json is not valid JSON at line 3, column \d+/,
    );
    const invalid = path.join(cwd, "invalid.json");
    writeFileSync(invalid, JSON.stringify({ tools: { mine: { comand: "x" } } }));
    const second = await runLab(
      [
        "run",
        "mine",
        "--suite",
        "fixture",
        "--config",
        invalid,
        "--evals-dir",
        path.join(root, "evals"),
      ],
      { cwd },
    );
    expect(second.stderr).toContain(
      "is invalid: tools.mine.command: Invalid input: expected string, received undefined; tools.mine: Unrecognized key",
    );
    expect(second.stderr).not.toContain("internal error");
    const { existsSync } = await import("node:fs");
    expect(existsSync(path.join(cwd, "runs"))).toBe(false);
  });

  it("says which variables a configured tool lacks before any trial starts", async () => {
    const cwd = path.join(root, "needsenv");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      path.join(cwd, "lab.config.json"),
      JSON.stringify({ tools: { agent: { command: "true", env: ["LAB_TEST_SURELY_UNSET_KEY"] } } }),
    );
    const result = await runLab(
      ["run", "agent", "--suite", "fixture", "--evals-dir", path.join(root, "evals")],
      { cwd },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Tool "agent" needs LAB_TEST_SURELY_UNSET_KEY, which is not set.',
    );
    const missing = await runLab(
      [
        "run",
        "command",
        "--suite",
        "fixture",
        "--command",
        "no-such-agent-binary --go",
        "--evals-dir",
        path.join(root, "evals"),
      ],
      { cwd },
    );
    expect(missing.stderr).toContain(
      'Tool "command" cannot run: `no-such-agent-binary` is not on PATH.',
    );
    const { existsSync } = await import("node:fs");
    expect(existsSync(path.join(cwd, "runs"))).toBe(false);
  });

  it("names the file and field of a malformed task folder", async () => {
    const evals = path.join(root, "malformed-evals");
    writeFixtureSuite(evals, "bad", [addTask("one"), addTask("two"), addTask("three")]);
    rmSync(path.join(evals, "bad/tasks/one/check.sh"));
    writeFileSync(
      path.join(evals, "bad/tasks/two/task.json"),
      JSON.stringify({ id: "two", repo: "two", baseCommit: "abc", metadata: {} }),
    );
    writeFileSync(path.join(evals, "bad/oracle/three/tests.json"), "{ not json");
    const args = (task: string) => [
      "run",
      "gold",
      "--suite",
      "bad",
      "--tasks",
      task,
      "--evals-dir",
      evals,
    ];
    expect((await runLab(args("one"), { cwd: root })).stderr).toMatch(
      /Task folder .*bad\/tasks\/one is missing check\.sh\./,
    );
    expect((await runLab(args("two"), { cwd: root })).stderr).toMatch(
      /bad\/tasks\/two\/task\.json is malformed: baseCommit: a 40-character commit hash\./,
    );
    expect((await runLab(args("three"), { cwd: root })).stderr).toMatch(
      /bad\/oracle\/three\/tests\.json is not valid JSON/,
    );
    expect(
      (await runLab(["scenarios", "--suite", "bad", "--evals-dir", evals], { cwd: root })).code,
    ).toBe(1);
  });

  it("reports a missing run or suite without runs", async () => {
    const result = await runLab(
      ["report", "--suite", "fixture", "--evals-dir", path.join(root, "evals")],
      { cwd: path.join(root, "badconfig") },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No runs of suite "fixture"');
    expect(result.stderr).toContain("lab run gold --suite fixture");
  });

  it("rejects a run id that is not a safe folder name", async () => {
    const result = await runLab(
      [
        "run",
        "gold",
        "--suite",
        "fixture",
        "--run-id",
        "../escape",
        "--evals-dir",
        path.join(root, "evals"),
      ],
      { cwd: root },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--run-id expects letters, digits, '.', '_' or '-'`);
  });

  it("refuses a scratch folder in /dev outside /dev/shm, which a sandbox replaces, and says what to use", async () => {
    for (const scratch of ["/dev/lab", "/dev/shm"]) {
      const result = await runLab(
        ["run", "gold", "--suite", "fixture", "--evals-dir", path.join(root, "evals")],
        { cwd: root, env: { LAB_SCRATCH_DIR: scratch } },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `LAB_SCRATCH_DIR=${scratch} is under /dev, which a sandbox replaces with its own`,
      );
      expect(result.stderr).toContain("/dev/shm/lab-scratch");
    }
  });

  it.runIf(existsSync("/dev/shm"))(
    "runs, proves and grades with the scratch folder in /dev/shm, and leaves nothing there",
    async () => {
      const scratch = mkdtempSync(path.join("/dev/shm", "lab-cli-test-"));
      try {
        const result = await runLab(
          [
            "run",
            "gold",
            "--suite",
            "fixture",
            "--evals-dir",
            path.join(root, "evals"),
            "--runs-dir",
            path.join(root, "runs-shm"),
          ],
          { cwd: root, env: { LAB_SCRATCH_DIR: scratch } },
        );
        expect(result.stderr).toContain("1/1 resolved");
        expect(result.code).toBe(0);
        expect(readdirSync(scratch)).toEqual([]);
        // A suite's proofs and `lab grade` make their checkouts there too.
        const proofs = path.join(scratch, "proofs");
        const gen = await runLab(
          ["gen", "--suite", "fixture", "--evals-dir", path.join(root, "evals")],
          { cwd: root, env: { LAB_SCRATCH_DIR: proofs } },
        );
        expect(gen.stderr).toContain("alpha: proven");
        expect(readdirSync(proofs)).toEqual([]);
        const task = path.join(root, "evals", "fixture", "tasks", "alpha");
        const patch = path.join(root, "evals", "fixture", "oracle", "alpha", "gold.patch");
        const grades = path.join(scratch, "grades");
        const grade = await runLab(["grade", "--task-dir", task, "--patch", patch], {
          cwd: root,
          env: { LAB_SCRATCH_DIR: grades },
        });
        expect(grade.stdout).toContain("alpha: resolved");
        expect(readdirSync(grades)).toEqual([]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
});
