import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import {
  createEnvMarker,
  findProcessesByEnvMarker,
  killProcessesByEnvMarker,
  runCommand,
  TRIAL_MARKER_NAME,
} from "../../src/process/index.js";
import {
  expectDead,
  fixtureEnv,
  isAlive,
  killQuietly,
  makeTempDir,
  readPidFile,
} from "./helpers.js";

let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  await temp.remove();
});

test("createEnvMarker makes a fresh LAB_TRIAL_TOKEN value each time", () => {
  const first = createEnvMarker();
  expect(first.name).toBe(TRIAL_MARKER_NAME);
  expect(first.value).not.toBe(createEnvMarker().value);
});

test("findProcessesByEnvMarker finds the processes carrying the marker, and only those", async () => {
  const marker = createEnvMarker();
  const pidFile = join(temp.path, "child.pid");
  const controller = new AbortController();
  const running = runCommand(["forever.mjs", pidFile], {
    env: fixtureEnv({ [marker.name]: marker.value }),
    timeoutMs: 10_000,
    signal: controller.signal,
  });
  try {
    const pid = await readPidFile(pidFile);
    expect(await findProcessesByEnvMarker(marker.name, marker.value)).toEqual([pid]);
    expect(await findProcessesByEnvMarker(marker.name, marker.value.slice(0, -1))).toEqual([]);
    expect(await findProcessesByEnvMarker(marker.name, createEnvMarker().value)).toEqual([]);
  } finally {
    controller.abort();
    await running;
  }
});

test("a setsid daemon survives the group kill, but killProcessesByEnvMarker finds and kills it", async () => {
  const marker = createEnvMarker();
  const pidFile = join(temp.path, "daemon.pid");
  let daemon: number | undefined;
  try {
    const result = await runCommand(["daemonize.mjs", pidFile], {
      env: fixtureEnv({ [marker.name]: marker.value }),
      timeoutMs: 10_000,
    });
    expect(result.exitCode).toBe(0);
    daemon = await readPidFile(pidFile);
    expect(isAlive(daemon)).toBe(true);
    expect(await killProcessesByEnvMarker(marker.name, marker.value)).toBe(1);
    await expectDead(daemon);
    expect(await findProcessesByEnvMarker(marker.name, marker.value)).toEqual([]);
  } finally {
    killQuietly(daemon);
  }
});

test("killProcessesByEnvMarker returns 0 when nothing carries the marker", async () => {
  const marker = createEnvMarker();
  expect(await killProcessesByEnvMarker(marker.name, marker.value)).toBe(0);
});
