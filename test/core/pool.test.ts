import { describe, expect, it } from "vitest";
import { runPool } from "../../src/core/index.js";

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("runPool", () => {
  it("runs every item with at most `limit` at once", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await runPool([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running++;
      most = Math.max(most, running);
      await tick(5);
      done.push(item);
      running--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it("starts nothing new after a failure, and throws it once the started items settle", async () => {
    const started: number[] = [];
    let settled = 0;
    const run = runPool([1, 2, 3, 4, 5, 6], 2, async (item) => {
      started.push(item);
      if (item === 2) throw new Error("item 2 failed");
      await tick(20);
      settled++;
    });
    await expect(run).rejects.toThrow("item 2 failed");
    expect(started).toEqual([1, 2]);
    expect(settled).toBe(1);
  });

  it("starts nothing new once the signal aborts", async () => {
    const controller = new AbortController();
    const started: number[] = [];
    await runPool(
      [1, 2, 3, 4],
      1,
      async (item) => {
        started.push(item);
        if (item === 2) controller.abort();
        await tick(1);
      },
      controller.signal,
    );
    expect(started).toEqual([1, 2]);
  });
});
