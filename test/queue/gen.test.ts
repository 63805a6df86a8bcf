import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvironmentEntry } from "../../src/datasets/index.js";
import { generateSwebench } from "../../src/gen/index.js";
import { openQueueProver, parseQueueAddress } from "../../src/queue/index.js";
import { loadOracle, loadSuite, loadTask, readProofFile } from "../../src/suite/index.js";
import { addTask, pyproject, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { runLab, testEnvironment } from "../helpers/lab.js";
import { waitFor, type LabProcess } from "../helpers/lab-process.js";
import {
  redisMissingMessage,
  redisServerPath,
  startRedis,
  type RedisServer,
} from "../helpers/redis.js";
import { repoRoot, tempDir } from "../helpers/temp.js";
import { inspectQueue, startWorker, stopAll } from "./helpers.js";

const root = tempDir("lab-queue-gen-");
const evalsDir = path.join(root, "evals");
const LAB_VERSION = (
  JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;
let redis: RedisServer;
const started: LabProcess[] = [];

if (redisServerPath === null) console.warn(redisMissingMessage);

/** A one-commit-fix repository `acme/widget` in a mirrors folder; its base commit and patches. */
function widgetMirror(mirrors: string): { base: string; gold: string; tests: string } {
  const dir = path.join(mirrors, "acme", "widget");
  mkdirSync(path.join(dir, "src", "widget"), { recursive: true });
  mkdirSync(path.join(dir, "tests"), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    }).trim();
  const low = "from widget import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n";
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(dir, "pyproject.toml"), pyproject("widget"));
  writeFileSync(path.join(dir, ".gitignore"), "__pycache__/\n");
  writeFileSync(
    path.join(dir, "src", "widget", "__init__.py"),
    "def clamp(value, low, high):\n    return max(low, value)\n",
  );
  writeFileSync(path.join(dir, "tests", "test_clamp.py"), low);
  git("add", "-A");
  git("commit", "-qm", "widget 0.1");
  const base = git("rev-parse", "HEAD");
  writeFileSync(
    path.join(dir, "src", "widget", "__init__.py"),
    "def clamp(value, low, high):\n    return min(high, max(low, value))\n",
  );
  writeFileSync(
    path.join(dir, "tests", "test_clamp.py"),
    `${low}\n\ndef test_high():\n    assert clamp(50, 0, 10) == 10\n`,
  );
  git("add", "-A");
  git("commit", "-qm", "fix clamp");
  return {
    base,
    gold: `${git("diff", base, "HEAD", "--", "src")}\n`,
    tests: `${git("diff", base, "HEAD", "--", "tests")}\n`,
  };
}

const environment: EnvironmentEntry = {
  repo: "acme/widget",
  version: "0.1",
  python: "3.11",
  pins: ["pytest==8.3.4", "pluggy==1.5.0", "iniconfig==2.0.0", "packaging==24.2"],
  pinsInstallArgs: [],
  installArgs: [],
  preInstall: [],
  install: "pip install -e . --no-deps",
  testCommand: "pytest -rA",
  env: {},
  logParser: "pytest",
  notes: [],
  unmapped: [],
  services: [],
};

describe.skipIf(redisServerPath === null)("gen on a queue", () => {
  beforeAll(async () => {
    writeFixtureSuite(evalsDir, "fixture", [addTask("alpha"), addTask("beta")]);
    redis = await startRedis(path.join(root, "redis"));
  });

  afterAll(async () => {
    await stopAll(started);
    await redis.stop();
  });

  it("proves an existing suite on the workers, and writes the proof and its logs here", async () => {
    for (const name of ["p1", "p2"]) {
      started.push(
        await startWorker(root, redis, name, { evalsDir, cacheDir: path.join(root, name) }),
      );
    }
    const cacheDir = path.join(root, "coordinator-cache");
    const gen = await runLab(
      ["gen", "--suite", "fixture", "--evals-dir", evalsDir, "--queue", redis.url],
      { cwd: root, env: { LAB_CACHE_DIR: cacheDir } },
    );
    expect(gen.stderr).toContain(`proofs go to queue ${redis.url}`);
    expect(gen.stdout).toContain("2/2 task(s) of fixture proven; proof in ");
    expect(gen.code).toBe(0);
    const proofs = (await readProofFile(path.join(evalsDir, "fixture")))?.proofs ?? [];
    expect(proofs.map((proof) => [proof.taskId, proof.valid, proof.labVersion])).toEqual([
      ["alpha", true, LAB_VERSION],
      ["beta", true, LAB_VERSION],
    ]);
    for (const task of ["alpha", "beta"]) {
      const log = path.join(cacheDir, "proof-logs", "fixture", `${task}.gold.log`);
      expect(readFileSync(log, "utf8")).toContain("PASSED");
    }
    // Environments were built where the proofs ran, on the workers.
    expect(existsSync(path.join(cacheDir, "envs"))).toBe(false);
    expect(["p1", "p2"].some((name) => existsSync(path.join(root, name, "envs")))).toBe(true);
    const proven = started.map(
      (worker) => worker.stderr().match(/fixture: proof of \w+: proven/g)?.length ?? 0,
    );
    expect(proven.reduce((a, b) => a + b, 0)).toBe(2);
  }, 300_000);

  it("proves swebench instances on a worker that fetches the base repository and keeps its copy of the task", async () => {
    const mirrors = path.join(root, "mirrors");
    const widget = widgetMirror(mirrors);
    const dataset = path.join(root, "dataset.json");
    writeFileSync(
      dataset,
      JSON.stringify([
        {
          instance_id: "acme__widget-1",
          repo: "acme/widget",
          base_commit: widget.base,
          patch: widget.gold,
          test_patch: widget.tests,
          problem_statement: "clamp() ignores the upper bound: clamp(50, 0, 10) returns 50.",
          hints_text: "",
          created_at: "2024-01-01T00:00:00Z",
          version: "0.1",
          FAIL_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_high"]),
          PASS_TO_PASS: JSON.stringify(["tests/test_clamp.py::test_low"]),
        },
      ]),
    );
    // The first test's workers have no mirrors: stopped, so only this one takes the proofs.
    await stopAll(started.splice(0));
    // The worker has a folder of suites of its own, and fetches from its own mirrors.
    const workerEvals = path.join(root, "worker-evals");
    started.push(
      await startWorker(root, redis, "fetcher", {
        evalsDir: workerEvals,
        cacheDir: path.join(root, "fetcher"),
        args: ["--mirrors", mirrors],
      }),
    );
    const suiteDir = path.join(root, "coordinator-evals", "swebench");
    const signal = new AbortController().signal;
    const logs: string[] = [];
    const queue = await openQueueProver({
      address: parseQueueAddress(redis.url, { insecure: false }),
      suite: { name: "swebench", dir: suiteDir },
      labVersion: LAB_VERSION,
      testTimeoutMs: 120_000,
      attempts: 2,
      signal,
      onLog: (_level, message) => logs.push(message),
    });
    const result = await generateSwebench(
      {
        suiteDir,
        dataset: { file: dataset, name: "lite", split: "test", endpoint: "http://127.0.0.1:9" },
        selection: { all: true },
        repos: {
          cacheDir: path.join(suiteDir, ".cache"),
          reposDir: path.join(root, "coordinator-cache", "swebench", "repos"),
          mirrorsDir: mirrors,
        },
        environment: testEnvironment(),
        validate: true,
        proofRuns: 2,
        hints: false,
        concurrency: 4,
        testTimeoutMs: 120_000,
        labVersion: LAB_VERSION,
        signal,
        prover: queue.prove,
        environmentOf: () => environment,
      },
      { emit: () => undefined },
    ).finally(() => queue.close());
    expect(result.kept).toEqual(["acme__widget-1"]);
    const instance = (await readProofFile(suiteDir))?.instances?.["acme__widget-1"];
    expect(instance?.kept).toBe(true);
    expect(instance?.runs.map((run) => run.gold.resolved)).toEqual([true, true]);
    for (const run of [1, 2]) {
      const log = path.join(suiteDir, ".cache", "proof-logs", `run${String(run)}`);
      expect(readFileSync(path.join(log, "acme__widget-1.gold.log"), "utf8")).toContain("PASSED");
      expect(existsSync(path.join(log, "acme__widget-1.empty.log"))).toBe(true);
    }
    // The worker's copy of the task, ready for runs there.
    const copy = path.join(workerEvals, "swebench");
    expect(readFileSync(path.join(copy, "tasks", "acme__widget-1", "prompt.txt"), "utf8")).toBe(
      readFileSync(path.join(suiteDir, "tasks", "acme__widget-1", "prompt.txt"), "utf8"),
    );
    expect(existsSync(path.join(copy, ".cache"))).toBe(true);
    expect(started.at(-1)?.stderr()).toContain("swebench: proof of acme__widget-1: proven");
  }, 300_000);

  it("queues again, on a rerun, a proof an earlier gen queued with other settings", async () => {
    writeFixtureSuite(evalsDir, "regen", [addTask("gamma")]);
    await stopAll(started.splice(0));
    const queue = inspectQueue(redis);
    const suite = await loadSuite("regen", { cwd: root, evalsDir });
    const task = await loadTask(suite, "gamma");
    const oracle = await loadOracle(task);
    const logs: string[] = [];
    const open = (signal: AbortSignal) =>
      openQueueProver({
        address: parseQueueAddress(redis.url, { insecure: false }),
        suite: { name: "regen", dir: suite.dir },
        labVersion: LAB_VERSION,
        testTimeoutMs: 120_000,
        attempts: 2,
        signal,
        onLog: (_level, message) => logs.push(message),
      });
    const request = (runs: number) => ({
      task,
      oracle,
      runs,
      logDirOf: (run: number) => path.join(root, "regen-logs", `run${String(run)}`),
    });
    // A gen asks for one proof run, then dies before any worker took the job.
    const first = await open(new AbortController().signal);
    first.prove(request(1)).catch(() => undefined);
    await waitFor(
      async () => (await queue.getJobCounts("waiting")).waiting === 1,
      30_000,
      "the proof job",
    );
    await first.close();

    // Rerun with two proof runs: the job that asks for one is replaced, not taken as it is.
    const rerun = await open(new AbortController().signal);
    const proving = rerun.prove(request(2)).finally(() => rerun.close());
    await waitFor(
      () =>
        logs.includes(
          "gamma: replacing its proof job queued by an earlier gen with other settings",
        ),
      30_000,
      "the job replaced",
    );
    started.push(
      await startWorker(root, redis, "regen", { evalsDir, cacheDir: path.join(root, "regen") }),
    );
    const proofs = await proving;
    expect(proofs.map((proof) => proof.valid)).toEqual([true, true]);
    await queue.close();
  }, 300_000);
});
