import { describe, expect, it } from "vitest";
import { runWithQuotas } from "../../src/gen/repo/quota-pool.js";

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Item {
  readonly id: string;
  readonly size: string;
  readonly keep: boolean;
  readonly ms: number;
}

const item = (id: string, size: string, keep: boolean, ms = 5): Item => ({ id, size, keep, ms });

describe("runWithQuotas", () => {
  it("keeps the first items of each class up to its quota and returns the ones never started", async () => {
    const started: string[] = [];
    const items = [
      item("s1", "small", true),
      item("s2", "small", false),
      item("s3", "small", true),
      item("s4", "small", true),
      item("l1", "large", true),
    ];
    const left = await runWithQuotas(
      items,
      { limit: 1, classOf: (each) => each.size, quotas: { small: 2, large: 1 } },
      async (each) => {
        started.push(each.id);
        await tick(each.ms);
        return each.keep;
      },
    );
    expect(started).toEqual(["s1", "s2", "s3", "l1"]);
    expect(left.map((each) => each.id)).toEqual(["s4"]);
  });

  it("lets other classes go ahead while a class waits on its items in flight", async () => {
    const started: string[] = [];
    const items = [
      item("s1", "small", false, 40),
      item("s2", "small", true),
      item("l1", "large", true),
      item("l2", "large", true),
    ];
    const left = await runWithQuotas(
      items,
      { limit: 2, classOf: (each) => each.size, quotas: { small: 1, large: 2 } },
      async (each) => {
        started.push(each.id);
        await tick(each.ms);
        return each.keep;
      },
    );
    // s2 waits while s1 might still fill the small quota; the large ones do not.
    expect(started).toEqual(["s1", "l1", "l2", "s2"]);
    expect(left).toEqual([]);
  });

  it("starts nothing new after a failure, and throws it once the started items settle", async () => {
    const started: string[] = [];
    let settled = 0;
    const items = ["a", "b", "c", "d", "e"].map((id) => item(id, "all", true, 20));
    const run = runWithQuotas(
      items,
      { limit: 2, classOf: () => "all", quotas: null },
      async (each) => {
        started.push(each.id);
        if (each.id === "b") throw new Error("b failed");
        await tick(each.ms);
        settled++;
        return true;
      },
    );
    await expect(run).rejects.toThrow("b failed");
    expect(started).toEqual(["a", "b"]);
    expect(settled).toBe(1);
  });
});
