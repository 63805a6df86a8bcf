import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLab } from "../helpers/lab.js";
import { startLab, type LabProcess } from "../helpers/lab-process.js";
import {
  redisMissingMessage,
  redisServerPath,
  startRedis,
  type RedisServer,
} from "../helpers/redis.js";
import { repoRoot, tempDir } from "../helpers/temp.js";

const root = tempDir("lab-queue-starter-");
const evalsDir = path.join(root, "evals");
let redis: RedisServer;
const workers: LabProcess[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

/** A trial's record without what differs from one execution to the next: times. */
function comparable(file: string): unknown {
  const result = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const grade = result.grade as Record<string, unknown> | null;
  return {
    ...result,
    durationMs: 0,
    phaseMs: {},
    startedAt: "",
    finishedAt: "",
    // Canaries are made up per grade: how many of each kind differs from grade to grade.
    grade:
      grade === null
        ? null
        : {
            ...grade,
            phaseMs: {},
            canaries: (grade.canaries as { files?: number } | undefined)?.files,
          },
  };
}

/** Each trial folder of a run: task id to the names of its files. */
function trialFiles(runDir: string): Record<string, string[]> {
  const trials: Record<string, string[]> = {};
  for (const task of readdirSync(path.join(runDir, "trials")).sort())
    trials[task] = readdirSync(path.join(runDir, "trials", task, "1")).sort();
  return trials;
}

describe.skipIf(redisServerPath === null)("the starter suite through a queue", () => {
  beforeAll(async () => {
    cpSync(path.join(repoRoot, "evals", "starter"), path.join(evalsDir, "starter"), {
      recursive: true,
    });
    redis = await startRedis(path.join(root, "redis"));
    // Three workers, each with a cache and a scratch folder of its own, as on three machines.
    for (const name of ["w1", "w2", "w3"]) {
      workers.push(
        startLab(["worker", "--queue", redis.url, "--name", name, "--evals-dir", evalsDir], {
          cwd: root,
          env: {
            LAB_CACHE_DIR: path.join(root, name, "cache"),
            LAB_SCRATCH_DIR: path.join(root, name, "scratch"),
          },
        }),
      );
    }
  });

  afterAll(async () => {
    for (const worker of workers) worker.child.kill("SIGINT");
    await Promise.all(workers.map((worker) => worker.exited));
    await redis.stop();
  });

  it("gives gold the same records as a local run, 10/10", async () => {
    const at = (runs: string) => [
      "run",
      "gold",
      "--suite",
      "starter",
      "--evals-dir",
      evalsDir,
      "--runs-dir",
      path.join(root, runs),
    ];
    const local = await runLab([...at("local"), "--concurrency", "2"], { cwd: root });
    expect(local.code).toBe(0);
    const queued = await runLab([...at("queued"), "--queue", redis.url], { cwd: root });
    expect(queued.stderr).toContain("trial job(s) added");
    expect(queued.stderr).toMatch(/run starter-gold completed: 10\/10 resolved/);
    expect(queued.code).toBe(0);

    const localRun = path.join(root, "local", "starter-gold");
    const queuedRun = path.join(root, "queued", "starter-gold");
    expect(trialFiles(queuedRun)).toEqual(trialFiles(localRun));
    for (const task of Object.keys(trialFiles(localRun))) {
      const trial = (run: string, file: string) => path.join(run, "trials", task, "1", file);
      expect(comparable(trial(queuedRun, "result.json"))).toEqual(
        comparable(trial(localRun, "result.json")),
      );
      expect(readFileSync(trial(queuedRun, "patch.diff"))).toEqual(
        readFileSync(trial(localRun, "patch.diff")),
      );
    }
    const record = JSON.parse(readFileSync(path.join(queuedRun, "run.json"), "utf8")) as {
      status: string;
      config: { queue: string };
    };
    expect(record.status).toBe("completed");
    expect(record.config.queue).toBe(redis.url);

    // The work was spread: every worker took trials.
    const started = workers.map(
      (worker) => worker.stderr().match(/starter-gold: \S+ #1: started/g)?.length ?? 0,
    );
    expect(started.reduce((a, b) => a + b, 0)).toBe(10);
    expect(started.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it("gives noop 0/10, and lab report reads the queued runs like local ones", async () => {
    const runsDir = path.join(root, "queued");
    const noop = await runLab(
      ["run", "noop", "--suite", "starter", "--evals-dir", evalsDir, "--runs-dir", runsDir],
      { cwd: root, env: { LAB_QUEUE: redis.url } },
    );
    expect(noop.stderr).toMatch(/run starter-noop completed: 0\/10 resolved/);
    expect(noop.code).toBe(0);
    const report = await runLab(
      ["report", "--suite", "starter", "--runs-dir", runsDir, "--evals-dir", evalsDir, "--json"],
      { cwd: root },
    );
    const rows = JSON.parse(report.stdout) as { tool: string; resolved: number; tasks: number }[];
    expect(rows.map((row) => [row.tool, row.resolved, row.tasks])).toEqual([
      ["gold", 10, 10],
      ["noop", 0, 10],
    ]);
  }, 300_000);

  it("grades stated changes (a predictions file) on the workers, each job carrying its patch", async () => {
    const oracle = (id: string) =>
      readFileSync(path.join(evalsDir, "starter", "oracle", id, "gold.patch"), "utf8");
    const predictions = path.join(root, "predictions.json");
    writeFileSync(
      predictions,
      JSON.stringify([
        {
          instance_id: "textkit-slugify-max-length",
          model_name_or_path: "m",
          model_patch: oracle("textkit-slugify-max-length"),
        },
        {
          instance_id: "ledger-allocate-negative",
          model_name_or_path: "m",
          model_patch: oracle("ledger-allocate-negative"),
        },
        { instance_id: "envcfg-typed-lists", model_name_or_path: "m", model_patch: "" },
      ]),
    );
    const run = await runLab(
      [
        "run",
        "predictions",
        "--predictions",
        predictions,
        "--suite",
        "starter",
        "--evals-dir",
        evalsDir,
        "--runs-dir",
        path.join(root, "queued"),
        "--queue",
        redis.url,
      ],
      { cwd: root },
    );
    expect(run.stderr).toMatch(/run starter-predictions-m completed: 2\/3 resolved/);
    expect(run.code).toBe(0);
  }, 300_000);
});
