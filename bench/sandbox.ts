/**
 * The sandbox's start-up overhead per trial: make a trial's sandbox, run `true` in it, dispose
 * of it; against running the same `true` unsandboxed through src/process. Goal: under 100 ms.
 *
 *   npx tsx bench/sandbox.ts [--repeat 50]
 *
 * Each bwrap sample is a whole trial's share: cgroups made and removed, mounts computed, one
 * bwrap process with every namespace. Limits are lab's defaults (disk and processes).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { SandboxLimits, SandboxProvider } from "../src/core/index.js";
import { runCommand } from "../src/process/index.js";
import { createBwrapProvider, createNoneProvider } from "../src/sandbox/index.js";

const { values } = parseArgs({ options: { repeat: { type: "string", default: "50" } } });
const repeat = Number(values.repeat);
const root = mkdtempSync(path.join(os.tmpdir(), "lab-bench-sandbox-"));
const pathEnv = process.env.PATH ?? "/usr/bin:/bin";
const limits: SandboxLimits = { memoryMb: null, diskMb: 10 * 1024, maxProcesses: 4096 };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function sample(run: () => Promise<unknown>): Promise<number[]> {
  await run(); // warm up: first spawn, cgroup detection, page cache
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times;
}

async function trialWith(provider: SandboxProvider, index: number, network = true): Promise<void> {
  const trial = path.join(root, `trial-${String(index)}-${String(Math.random()).slice(2)}`);
  const workTree = path.join(trial, "work");
  mkdirSync(workTree, { recursive: true });
  const sandbox = await provider.create({
    workTree,
    stateDir: path.join(trial, "sandbox"),
    readOnlyPaths: [],
    toolPaths: [],
    writablePaths: [],
    hiddenPaths: [],
    hostHome: os.homedir(),
    pathEnv,
    network,
    limits,
  });
  try {
    const result = await sandbox.exec(["true"], {
      cwd: workTree,
      env: { PATH: pathEnv },
      timeoutMs: 30_000,
    });
    if (result.exitCode !== 0) throw new Error(`sandboxed true failed: ${result.stderrTail}`);
  } finally {
    await sandbox.dispose();
  }
}

function describe(name: string, times: number[], baseline?: number): string {
  const sorted = [...times].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  const mid = median(times);
  const extra = baseline === undefined ? "" : `  overhead ${(mid - baseline).toFixed(1)} ms`;
  return `${name.padEnd(34)} median ${mid.toFixed(1).padStart(6)} ms  p95 ${p95.toFixed(1).padStart(6)} ms${extra}`;
}

const bwrap = createBwrapProvider({ pathEnv: `${pathEnv}:/usr/bin:/bin` });
await bwrap.checkReady();
const none = createNoneProvider();
let index = 0;
const direct = await sample(() =>
  runCommand(["true"], { cwd: root, env: { PATH: pathEnv }, timeoutMs: 30_000 }),
);
const noneTimes = await sample(() => trialWith(none, index++));
const bwrapTimes = await sample(() => trialWith(bwrap, index++));
const offline = await sample(() => trialWith(bwrap, index++, false));
rmSync(root, { recursive: true, force: true });

const base = median(direct);
console.log(
  `sandbox start-up per trial, ${String(repeat)} runs each of \`true\` (${(await bwrap.describeLimits(limits)).summary})`,
);
console.log(describe("unsandboxed (runCommand)", direct));
console.log(describe("none (limits only)", noneTimes, base));
console.log(describe("bwrap", bwrapTimes, base));
console.log(describe("bwrap, network off", offline, base));
const overhead = median(bwrapTimes) - base;
console.log(
  `bwrap overhead ${overhead.toFixed(1)} ms per trial: ${overhead < 100 ? "under" : "OVER"} the 100 ms goal`,
);
