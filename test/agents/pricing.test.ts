import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRICE_TABLE,
  findModelPrice,
  mergePriceTables,
  priceTableSchema,
  priceTelemetry,
  type PriceTable,
} from "../../src/agents/pricing.js";

const SONNET_4_5 = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT_5 = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 };
const GPT_5_MINI = { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 };

describe("findModelPrice", () => {
  it.each([
    ["claude-sonnet-4-5", SONNET_4_5],
    ["claude-sonnet-4-5-20250929", SONNET_4_5],
    ["claude-sonnet-4-5@20250929", SONNET_4_5],
    ["claude-sonnet-4-5[1m]", SONNET_4_5],
    ["anthropic/claude-sonnet-4-5", SONNET_4_5],
    ["Claude-Sonnet-4-5", SONNET_4_5],
    ["gpt-5", GPT_5],
    ["gpt-5-2025-08-07", GPT_5],
    ["gpt-5-mini-2025-08-07", GPT_5_MINI],
    ["openai/gpt-5-mini", GPT_5_MINI],
  ])("prices %s by exact name or longest known prefix", (model, price) => {
    expect(findModelPrice(model, DEFAULT_PRICE_TABLE)).toEqual(price);
  });

  it.each(["gpt-5.5", "claude-opus-4-8", "claude-opus-5-5", "mock-model", "gpt-50", ""])(
    "does not price %s, which only looks like a known model",
    (model) => {
      expect(findModelPrice(model, DEFAULT_PRICE_TABLE)).toBeUndefined();
    },
  );

  it("tells Opus 4.1 from Opus 4.5 by the longest prefix", () => {
    expect(findModelPrice("claude-opus-4-1-20250805", DEFAULT_PRICE_TABLE)?.input).toBe(15);
    expect(findModelPrice("claude-opus-4-5-20251101", DEFAULT_PRICE_TABLE)?.input).toBe(5);
  });
});

describe("priceTelemetry", () => {
  it("keeps a cost the CLI reported", () => {
    const telemetry = { costUsd: 0.01143, inputTokens: 3000, model: "claude-sonnet-4-5" };
    expect(priceTelemetry(telemetry, DEFAULT_PRICE_TABLE)).toEqual({
      costUsd: 0.01143,
      costSource: "reported",
    });
  });

  it("computes Claude Code's own figure from the stream fixture's tokens", () => {
    // claude-2.1.197.stream.jsonl: 3000 input, 150 output, 600 cache read at $3 / $15 / $0.30
    // per MTok is 0.009 + 0.00225 + 0.00018 = 0.01143, the total_cost_usd Claude Code reported.
    const priced = priceTelemetry(
      {
        inputTokens: 3000,
        outputTokens: 150,
        cacheReadTokens: 600,
        cacheWriteTokens: 0,
        model: "claude-sonnet-4-5",
      },
      DEFAULT_PRICE_TABLE,
    );
    expect(priced.costSource).toBe("computed");
    expect(priced.costUsd).toBeCloseTo(0.01143, 12);
  });

  it("prices every token category apart", () => {
    // gpt-5: 3000 × 1.25 + 150 × 10 + 600 × 0.125 + 100 × 1.25 = 5450 µ$.
    const priced = priceTelemetry(
      {
        inputTokens: 3000,
        outputTokens: 150,
        cacheReadTokens: 600,
        cacheWriteTokens: 100,
        model: "gpt-5-2025-08-07",
      },
      DEFAULT_PRICE_TABLE,
    );
    expect(priced.costUsd).toBeCloseTo(0.00545, 12);
    expect(priced.costSource).toBe("computed");
  });

  it("counts missing token categories as zero once one is known", () => {
    const priced = priceTelemetry({ outputTokens: 1_000_000, model: "gpt-5" }, DEFAULT_PRICE_TABLE);
    expect(priced).toEqual({ costUsd: 10, costSource: "computed" });
  });

  it.each([
    ["an unpriced model", { inputTokens: 3000, model: "mock-model" }],
    ["no model", { inputTokens: 3000, outputTokens: 150 }],
    ["no tokens", { model: "gpt-5", turns: 3 }],
  ])("leaves the cost unknown with %s", (_case, telemetry) => {
    expect(priceTelemetry(telemetry, DEFAULT_PRICE_TABLE)).toEqual({ costSource: "unknown" });
  });
});

describe("user prices", () => {
  const defaults: PriceTable = { "gpt-5": GPT_5 };

  it("lay over the defaults model by model, keeping default cache prices left out", () => {
    const overrides = priceTableSchema.parse({
      "gpt-5": { input: 1, output: 8 },
      "mock-model": { input: 2, output: 6, cacheRead: 0.5 },
    });
    expect(mergePriceTables(defaults, overrides)).toEqual({
      "gpt-5": { input: 1, output: 8, cacheRead: 0.125, cacheWrite: 1.25 },
      "mock-model": { input: 2, output: 6, cacheRead: 0.5, cacheWrite: 2 },
    });
    expect(defaults["gpt-5"]).toEqual(GPT_5);
  });

  it("price a model the defaults lack", () => {
    const table = mergePriceTables(
      DEFAULT_PRICE_TABLE,
      priceTableSchema.parse({ "mock-model": { input: 3, output: 15, cacheRead: 0.3 } }),
    );
    // opencode's configured mock price: 1000 × 3 + 50 × 15 + 200 × 0.3 = 3810 µ$ per step.
    const priced = priceTelemetry(
      { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 200, model: "mock-model" },
      table,
    );
    expect(priced.costUsd).toBeCloseTo(0.00381, 12);
  });

  it.each([
    ["a negative price", { m: { input: -1, output: 1 } }],
    ["a missing output price", { m: { input: 1 } }],
    ["an unknown field", { m: { input: 1, output: 1, reasoning: 1 } }],
    ["an empty model name", { "": { input: 1, output: 1 } }],
    ["a price as text", { m: { input: "1", output: 1 } }],
  ])("are rejected with %s", (_case, value) => {
    expect(priceTableSchema.safeParse(value).success).toBe(false);
  });
});
