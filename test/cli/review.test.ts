import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { listSuites } from "../../src/suite/index.js";
import reference from "../fixtures/review/kappa-reference.json" with { type: "json" };
import { addTask, writeFixtureSuite } from "../helpers/fixture-suite.js";
import type { CliResult } from "../helpers/lab.js";
import { repoRoot, sharedCacheDir, tempDir } from "../helpers/temp.js";

const root = tempDir();
const evalsDir = path.join(root, "evals");
const starterDir = path.join(evalsDir, "starter");
const reviewsOf = (suite: string) => path.join(evalsDir, suite, "reviews.jsonl");

type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

/** Calls the CLI in-process, like runLab, with a stdin and signal of the test's choosing. */
async function lab(
  argv: readonly string[],
  options: { stdin?: Stdin; signal?: AbortSignal; onStderr?: (all: string) => void } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await main([...argv, "--evals-dir", evalsDir], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: {
      write: (text: string) => {
        stderr += text;
        options.onStderr?.(stderr);
      },
    },
    cwd: root,
    env: { ...process.env, LAB_CACHE_DIR: sharedCacheDir, CI: "1", LAB_REVIEWER: undefined },
    stdin: options.stdin,
    signal: options.signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}

/** Answers typed at a terminal: a stream that says it is a TTY. */
function terminal(...lines: string[]): Stdin {
  return Object.assign(Readable.from(lines.map((line) => `${line}\n`)), { isTTY: true });
}

function readLines(suite: string): Record<string, unknown>[] {
  return readFileSync(reviewsOf(suite), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

let starterTasks: string[] = [];

beforeAll(() => {
  // A copy, so reviews are written beside the copy and not into the checkout.
  cpSync(path.join(repoRoot, "evals", "starter"), starterDir, { recursive: true });
  writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta"), addTask("gamma")]);
  writeFixtureSuite(evalsDir, "bare", [addTask("solo")]);
  writeFixtureSuite(evalsDir, "scripted", [addTask("one"), addTask("two"), addTask("three")]);
  expect(listSuites({ evalsDir, cwd: root })).toContain("starter");
  starterTasks = readdirSync(path.join(starterDir, "tasks")).sort();
});

const RECORD = [
  "--clarity",
  "clear",
  "--tests",
  "adequate",
  "--alternatives",
  "1",
  "--difficulty",
  "3",
];

describe("lab review with flags", () => {
  it("records one review per call, with a timestamp and the schema version", async () => {
    const task = "ledger-allocate-negative";
    const result = await lab([
      "review",
      "--suite",
      "starter",
      "--task",
      task,
      "--reviewer",
      "alice",
      ...RECORD,
      "--notes",
      "a split with remainders first also works",
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `lab: recorded alice's review of ${task}: clear, tests adequate, 1 alternative fix(es), difficulty 3 ("a split with remainders first also works") in ${reviewsOf("starter")}.\n`,
    );
    const [line] = readLines("starter");
    expect(line).toMatchObject({
      schemaVersion: 1,
      task,
      reviewer: "alice",
      clarity: "clear",
      tests: "adequate",
      alternatives: 1,
      difficulty: 3,
      notes: "a split with remainders first also works",
      suiteVersion: "1",
    });
    expect(Date.parse(String(line?.reviewedAt))).toBeGreaterThan(Date.now() - 60_000);

    const again = await lab([
      "review",
      "--suite",
      "starter",
      "--task",
      task,
      "--reviewer",
      "alice",
      "--clarity",
      "ambiguous",
      "--tests",
      "weak",
      "--alternatives",
      "0",
      "--difficulty",
      "2",
    ]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`; it supersedes the review of ${String(line?.reviewedAt)}.`);
    expect(readLines("starter")).toHaveLength(2);
    const status = await lab(["review", "--suite", "starter"]);
    expect(status.stdout).toMatch(
      new RegExp(
        `\\| ${task} +\\| alice +\\| flagged \\(alice: clarity ambiguous, tests weak\\) +\\|`,
      ),
    );
  });

  it("names every bad or missing value at once, exit 2", async () => {
    const result = await lab([
      "review",
      "--suite",
      "starter",
      "--task",
      "ledger-allocate-negative",
      "--reviewer",
      "alice",
      "--clarity",
      "clr",
      "--tests",
      "adequat",
      "--difficulty",
      "7",
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'lab review: --clarity expects clear, ambiguous or insufficient; got "clr". --tests expects adequate, weak or flaky; got "adequat" (did you mean adequate?). --difficulty expects a whole number from 1 to 5; got "7". A review also needs --alternatives (--notes is optional).\nDifficulty: 1 trivial (minutes),',
    );
    expect(result.stderr).toContain("Run `lab review --help` for the usage.");
    const negative = await lab([
      "review",
      "--suite",
      "starter",
      "--task",
      "ledger-allocate-negative",
      "--reviewer",
      "alice",
      ...RECORD.slice(0, 4),
      "--alternatives=-1",
      "--difficulty",
      "2.5",
    ]);
    expect(negative.stderr).toContain(
      '--alternatives expects a whole number of 0 or more; got "-1". --difficulty expects a whole number from 1 to 5; got "2.5".',
    );
  });

  it("asks for the task and the reviewer, and names an unknown task", async () => {
    expect(
      (await lab(["review", "--suite", "starter", "--reviewer", "alice", ...RECORD])).stderr,
    ).toContain(
      "lab review: Recording a review needs --task ID.\nList the tasks with `lab review --suite starter`.",
    );
    expect(
      (await lab(["review", "--suite", "starter", "--task", "ledger-allocate-negative", ...RECORD]))
        .stderr,
    ).toContain("lab review: Recording a review needs --reviewer NAME (or LAB_REVIEWER).");
    const unknown = await lab([
      "review",
      "--suite",
      "starter",
      "--task",
      "ledger-allocate",
      "--reviewer",
      "alice",
      ...RECORD,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'lab review: Unknown task "ledger-allocate" in suite "starter".\nhint: Did you mean ledger-allocate-negative?\n',
    );
    expect(
      (await lab(["review", "--suite", "starter", "--task", "x", "--reviewer", " ", ...RECORD]))
        .stderr,
    ).toContain(
      '--reviewer expects a name of 1 to 64 characters without control characters; got " ".',
    );
  });

  it("shows a task's issue without the ground rules, and the oracle on request", async () => {
    const task = "textkit-slugify-max-length";
    const plain = await lab(["review", "--suite", "starter", "--task", task]);
    expect(plain.code).toBe(0);
    const prompt = readFileSync(path.join(starterDir, "tasks", task, "prompt.txt"), "utf8");
    expect(plain.stdout).toContain(prompt.slice(0, prompt.indexOf("\n---\nGround rules")).trim());
    expect(plain.stdout).not.toContain("Ground rules");
    expect(plain.stdout).not.toContain("### Gold patch");
    expect(plain.stdout).toContain("No review yet.");
    const full = await lab([
      "review",
      "--suite",
      "starter",
      "--task",
      task,
      "--show-gold",
      "--show-tests",
    ]);
    const oracle = path.join(starterDir, "oracle", task);
    expect(full.stdout).toContain(
      `### Gold patch\n\n${readFileSync(path.join(oracle, "gold.patch"), "utf8").trimEnd()}`,
    );
    expect(full.stdout).toContain(readFileSync(path.join(oracle, "test.patch"), "utf8").trimEnd());
    const lists = JSON.parse(readFileSync(path.join(oracle, "tests.json"), "utf8")) as {
      FAIL_TO_PASS: string[];
    };
    expect(full.stdout).toContain(
      `FAIL_TO_PASS (${String(lists.FAIL_TO_PASS.length)}): ${lists.FAIL_TO_PASS.join(" ")}`,
    );
  });
});

describe("lab review at a terminal", () => {
  it("asks task after task, re-asks on a bad answer, shows patches, skips and stops", async () => {
    const result = await lab(["review", "--suite", "scripted"], {
      stdin: terminal(
        "carol",
        "x",
        "c", // clarity: a bad answer, then a prefix
        "g",
        "a", // tests: the gold patch, then adequate
        "0",
        "9",
        "2", // alternatives, then a difficulty out of range and a good one
        "fine",
        "s", // skip the second task
        "ins",
        "w",
        "1", // third task, then the input ends mid-review
      ),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "Your name (recorded with each review): Reviewing 3 task(s) of scripted as carol.",
    );
    expect(result.stderr).toContain(
      'Expected clear, ambiguous or insufficient (or g, t, s, q); got "x".',
    );
    expect(result.stderr).toContain(
      'Expected a whole number from 1 to 5 (or g, t, s, q); got "9".',
    );
    expect(result.stderr).toContain("Skipped three.");
    expect(result.stderr).toContain("The review of two was not finished and is not recorded.");
    expect(result.stderr).toContain(
      `lab: 1 review(s) recorded in ${reviewsOf("scripted")}, 1 task(s) skipped.`,
    );
    // Tasks come in id order: one, three, two.
    expect(result.stdout).toMatch(
      /--- task 1 of 3 ---\n## one\n[\s\S]*### Gold patch\n\ndiff --git[\s\S]*--- task 2 of 3 ---\n## three\n[\s\S]*--- task 3 of 3 ---\n## two\n/,
    );
    expect(readLines("scripted")).toEqual([
      expect.objectContaining({
        task: "one",
        reviewer: "carol",
        clarity: "clear",
        tests: "adequate",
        alternatives: 0,
        difficulty: 2,
        notes: "fine",
      }),
    ]);
  });

  it("resumes where the reviewer stopped, skipping the tasks they reviewed", async () => {
    const result = await lab(["review", "--suite", "scripted", "--reviewer", "carol"], {
      stdin: terminal("clear", "flaky", "0", "1", "", "q"),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "Reviewing 2 task(s) of scripted as carol (1 you reviewed are skipped).",
    );
    expect(result.stdout).toContain("--- task 1 of 2 ---\n## three\n");
    expect(result.stderr).toContain(`lab: 1 review(s) recorded in ${reviewsOf("scripted")}.`);
    expect(readLines("scripted").map((line) => [line.task, line.tests, line.notes])).toEqual([
      ["one", "adequate", "fine"],
      ["three", "flaky", ""],
    ]);
    // Another reviewer starts from the first task.
    const other = await lab(["review", "--suite", "scripted", "--reviewer", "dave"], {
      stdin: terminal("q"),
    });
    expect(other.stdout).toContain("--- task 1 of 3 ---\n## one\n");
  });

  it("reads answers from a pipe with --interactive, and a named task again", async () => {
    const stdin = Readable.from(["ambiguous\nweak\n2\n4\nsecond look\n"]);
    const result = await lab(
      ["review", "--suite", "scripted", "--reviewer", "carol", "--task", "one", "--interactive"],
      { stdin },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("You have reviewed one before; this review will supersede it.");
    expect(readLines("scripted").at(-1)).toMatchObject({
      task: "one",
      clarity: "ambiguous",
      tests: "weak",
      alternatives: 2,
      difficulty: 4,
      notes: "second look",
    });
    // Without --interactive a pipe is not asked anything: the tasks are listed.
    const listed = await lab(["review", "--suite", "scripted"], {
      stdin: Readable.from(["clear\n"]),
    });
    expect(listed.stdout).toMatch(
      /\| one +\| carol +\| flagged \(carol: clarity ambiguous, tests weak\) +\|/,
    );
    expect(
      (await lab(["review", "--suite", "scripted", "--interactive", ...RECORD])).stderr,
    ).toContain("--interactive asks for the answers; do not also give them as flags.");
  });

  it("stops on Ctrl-C with exit 130, keeping the reviews already recorded", async () => {
    const controller = new AbortController();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    let answered = false;
    const result = await lab(["review", "--suite", "bare", "--reviewer", "erin"], {
      stdin,
      signal: controller.signal,
      onStderr: (all) => {
        if (!answered && all.endsWith("Clarity of the issue [clear/ambiguous/insufficient]: ")) {
          answered = true;
          stdin.write("clear\n");
        } else if (answered && all.endsWith("Test adequacy [adequate/weak/flaky]: ")) {
          setImmediate(() => {
            controller.abort();
          });
        }
      },
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("The review of solo was not finished and is not recorded.");
    expect(existsSync(reviewsOf("bare"))).toBe(false);
  });
});

describe("lab calibrate", () => {
  it("reports the reviews of two reviewers, with kappa as sklearn computes it", async () => {
    const tasks = starterTasks;
    expect(tasks.length).toBe(10);
    const record = async (reviewer: string, person: (typeof reference.scenario)["alice"]) => {
      for (const [i, clarity] of person.clarity.entries()) {
        const result = await lab([
          "review",
          "--suite",
          "starter",
          "--task",
          tasks[i] ?? "",
          "--reviewer",
          reviewer,
          "--clarity",
          clarity,
          "--tests",
          person.tests[i] ?? "",
          "--alternatives",
          String(person.alternatives[i]),
          "--difficulty",
          String(person.difficulty[i]),
        ]);
        expect(result.code).toBe(0);
      }
    };
    await record("alice", reference.scenario.alice);
    await record("bob", reference.scenario.bob);
    const json = await lab(["calibrate", "--suite", "starter", "--json"]);
    expect(json.code).toBe(0);
    const calibration = JSON.parse(json.stdout) as {
      reviewedTasks: number;
      supersededReviews: number;
      validity: { valid: number; reviewed: number };
      flagged: { task: string }[];
      difficulty: { mean: number };
      agreement: {
        reviewers: string[];
        tasks: number;
        clarity: { kappa: number };
        tests: { kappa: number };
        validity: { kappa: number };
      }[];
    };
    // alice's two earlier reviews of ledger-allocate-negative are superseded.
    expect(calibration).toMatchObject({
      reviewedTasks: 10,
      supersededReviews: 2,
      validity: { valid: 3, reviewed: 10 },
    });
    expect(calibration.flagged).toHaveLength(7);
    expect(calibration.difficulty.mean).toBeCloseTo(2.55, 12);
    const [pair] = calibration.agreement;
    expect(pair?.reviewers).toEqual(["alice", "bob"]);
    expect(pair?.tasks).toBe(8);
    for (const key of ["clarity", "tests", "validity"] as const)
      expect(pair?.[key].kappa).toBeCloseTo(reference.scenario[key].kappa, 12);

    const markdown = await lab(["calibrate", "--suite", "starter"]);
    expect(markdown.stdout).toContain(
      "# Calibration of starter\n\n10 of 10 tasks reviewed by 2 reviewer(s) (alice, bob): 18 current review(s), 2 superseded.",
    );
    expect(markdown.stdout).toContain(
      "**3 of 10 reviewed tasks are valid: 30.0% [10.8, 60.3] (95% Wilson interval).**",
    );
    expect(markdown.stdout).toContain("## Agreement between reviewers");
  });

  it("says when a suite has no reviews yet", async () => {
    const result = await lab(["calibrate", "--suite", "bare"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `lab: suite bare has no reviews yet (none in ${reviewsOf("bare")}); record some with \`lab review --suite bare\`.`,
    );
    expect(result.stdout).toContain("0 of 1 tasks reviewed");
  });
});

describe("lab run --valid-only", () => {
  it("fails with a clear error when the suite has no reviews", async () => {
    const result = await lab(["run", "gold", "--suite", "bare", "--valid-only"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `lab run: --valid-only needs reviews, and suite "bare" has none (no reviews in ${reviewsOf("bare")}).\nhint: Review its tasks with \`lab review --suite bare\`, or run without --valid-only.\n`,
    );
  });

  it("runs only the tasks reviewed as valid and says how many were left out", async () => {
    for (const args of [
      ["--task", "alpha", "--reviewer", "alice", ...RECORD],
      ["--task", "alpha", "--reviewer", "bob", ...RECORD],
      ["--task", "beta", "--reviewer", "alice", ...RECORD],
      [
        "--task",
        "beta",
        "--reviewer",
        "bob",
        ...RECORD.slice(0, 2),
        "--tests",
        "flaky",
        ...RECORD.slice(4),
      ],
    ])
      expect((await lab(["review", "--suite", "fixture", ...args])).code).toBe(0);
    const runsDir = path.join(root, "runs");
    const result = await lab([
      "run",
      "gold",
      "--suite",
      "fixture",
      "--valid-only",
      "--runs-dir",
      runsDir,
      "--display",
      "plain",
    ]);
    expect(result.stderr).toContain(
      "lab: --valid-only: running the 1 of 3 task(s) reviewed as valid; left out 2: 1 flagged (beta), 1 not reviewed (gamma).\n",
    );
    expect(result.code).toBe(0);
    const record = JSON.parse(
      readFileSync(path.join(runsDir, "fixture-gold", "run.json"), "utf8"),
    ) as { taskIds: string[] };
    expect(record.taskIds).toEqual(["alpha"]);
    expect(result.stderr).toMatch(/run fixture-gold completed: 1\/1 resolved/);

    const none = await lab([
      "run",
      "gold",
      "--suite",
      "fixture",
      "--valid-only",
      "--tasks",
      "beta,gamma",
      "--runs-dir",
      runsDir,
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'lab run: --valid-only leaves nothing to run: none of the 2 task(s) of suite "fixture" asked for is reviewed as valid (1 flagged, 1 not reviewed).\nhint: `lab calibrate --suite fixture` shows why tasks are flagged; `lab review --suite fixture` reviews the rest.\n',
    );
  });
});
