/**
 * What a trial's tokens cost: the CLI's own figure when it reports one, otherwise tokens times a
 * price table, otherwise unknown. Prices are USD per million tokens.
 */
import { z } from "zod";
import type { Telemetry } from "../core/index.js";

/** A model's prices in USD per million tokens, one per token category of `Telemetry`. */
export interface ModelPrice {
  /** Uncached input tokens. */
  readonly input: number;
  /** Output tokens, reasoning included. */
  readonly output: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheRead: number;
  /** Input tokens written to the prompt cache. */
  readonly cacheWrite: number;
}

/** Prices by model name (or name prefix, see `findModelPrice`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Where a cost came from: the CLI, lab's price table, or nowhere. */
export type CostSource = "reported" | "computed" | "unknown";

/** A trial's cost and its source. */
export interface PricedCost {
  /** USD; unset when the cost is unknown. */
  readonly costUsd?: number;
  readonly costSource: CostSource;
}

/**
 * List prices as known when this table was written (short-context tier, standard service, no
 * batch discount); providers change them, so users override them in lab.config.json `prices`.
 * Cache writes are the 5-minute write price for Anthropic; OpenAI and Gemini charge no per-token
 * write premium, so theirs is the input price. Long-context tiers (Sonnet and Gemini Pro above
 * 200k input tokens, Qwen above 32k) are not modelled: costs there are underestimated.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  // Anthropic
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-opus-4-0": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-opus-4-20250514": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-sonnet-4-5": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-sonnet-4-0": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-sonnet-4-20250514": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  // OpenAI
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gpt-5-codex": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 },
  "gpt-5-pro": { input: 15, output: 120, cacheRead: 15, cacheWrite: 15 },
  "gpt-5.1": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gpt-5.1-codex": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gpt-5.1-codex-mini": { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  // Google
  "gemini-2.5-pro": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0.3 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cacheRead: 0.01, cacheWrite: 0.1 },
  "gemini-3-pro": { input: 2, output: 12, cacheRead: 0.2, cacheWrite: 2 },
  // Alibaba Cloud Model Studio (international), first input tier
  "qwen3-coder-plus": { input: 1, output: 5, cacheRead: 0.2, cacheWrite: 1.25 },
  "qwen3-coder-flash": { input: 0.3, output: 1.5, cacheRead: 0.06, cacheWrite: 0.375 },
};

/**
 * What can follow a known name for a longer name to share its price: a date or variant
 * (`-20250929`, `-preview-06-05`), a Vertex version (`@20250929`), a tag (`[1m]`, `:free`). Not
 * `.`, so `gpt-5.5` is not priced as `gpt-5`.
 */
const SUFFIX_START = new Set(["-", "@", ":", "[", "_"]);

/**
 * A model's prices: the exact name, else the longest known name it starts with (followed by one
 * of SUFFIX_START), case-insensitively; then the same for the part after a `provider/` prefix.
 */
export function findModelPrice(model: string, table: PriceTable): ModelPrice | undefined {
  const candidates = [model, model.slice(model.lastIndexOf("/") + 1)];
  for (const name of candidates) {
    if (name === "") continue;
    const exact = table[name];
    if (exact !== undefined) return exact;
    const lower = name.toLowerCase();
    let best: { key: string; price: ModelPrice } | undefined;
    for (const [key, price] of Object.entries(table)) {
      const known = key.toLowerCase();
      const matches =
        lower === known ||
        (lower.startsWith(known) && SUFFIX_START.has(lower.charAt(known.length)));
      if (matches && (best === undefined || key.length > best.key.length)) best = { key, price };
    }
    if (best !== undefined) return best.price;
  }
  return undefined;
}

/**
 * A trial's cost: the CLI's reported cost when there is one; otherwise its tokens at the table's
 * prices, when the model is priced and some token count is known (missing counts are 0);
 * otherwise unknown.
 */
export function priceTelemetry(telemetry: Telemetry, table: PriceTable): PricedCost {
  if (telemetry.costUsd !== undefined)
    return { costUsd: telemetry.costUsd, costSource: "reported" };
  const price = telemetry.model === undefined ? undefined : findModelPrice(telemetry.model, table);
  const counts = [
    telemetry.inputTokens,
    telemetry.outputTokens,
    telemetry.cacheReadTokens,
    telemetry.cacheWriteTokens,
  ];
  if (price === undefined || counts.every((count) => count === undefined)) {
    return { costSource: "unknown" };
  }
  const microDollars =
    (telemetry.inputTokens ?? 0) * price.input +
    (telemetry.outputTokens ?? 0) * price.output +
    (telemetry.cacheReadTokens ?? 0) * price.cacheRead +
    (telemetry.cacheWriteTokens ?? 0) * price.cacheWrite;
  return { costUsd: microDollars / 1_000_000, costSource: "computed" };
}

const perMillion = z.number().nonnegative();

/**
 * User prices (lab.config.json `prices`): model name → USD per million tokens. Cache prices may
 * be left out; see `mergePriceTables` for what they become.
 */
export const priceTableSchema = z.record(
  z.string().min(1),
  z.strictObject({
    input: perMillion,
    output: perMillion,
    cacheRead: perMillion.optional(),
    cacheWrite: perMillion.optional(),
  }),
);

/** Prices as the user writes them. */
export type PriceOverrides = z.infer<typeof priceTableSchema>;

/**
 * The defaults with the user's prices laid over them, model by model. A cache price the user
 * leaves out keeps the default model's, or for a model the defaults lack, is the input price
 * (the dearest a cached token can plausibly cost).
 */
export function mergePriceTables(defaults: PriceTable, overrides: PriceOverrides): PriceTable {
  const merged: Record<string, ModelPrice> = { ...defaults };
  for (const [model, price] of Object.entries(overrides)) {
    const base = defaults[model];
    merged[model] = {
      input: price.input,
      output: price.output,
      cacheRead: price.cacheRead ?? base?.cacheRead ?? price.input,
      cacheWrite: price.cacheWrite ?? base?.cacheWrite ?? price.input,
    };
  }
  return merged;
}
