/**
 * Token counts the scripted model server reports. They are fixed and distinct for main-loop and
 * side calls so adapter tests can assert a tool's telemetry exactly; each API adds them up its own
 * way (see `anthropicUsage` and friends).
 */

/** The token counts of one answer, before any API's conventions are applied. */
export interface Usage {
  /** Input tokens neither read from nor written to a cache. */
  readonly uncachedInputTokens: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheReadInputTokens: number;
  /** Input tokens written to the prompt cache (only Anthropic reports these). */
  readonly cacheCreationInputTokens: number;
  /** Output tokens. */
  readonly outputTokens: number;
}

/** Usage of every main-loop answer (tool calls, final text, text dialects). */
export const MAIN_USAGE: Usage = Object.freeze({
  uncachedInputTokens: 1000,
  cacheReadInputTokens: 200,
  cacheCreationInputTokens: 30,
  outputTokens: 50,
});

/** Usage of every side call (titles, Gemini's router). */
export const SIDE_USAGE: Usage = Object.freeze({
  uncachedInputTokens: 7,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
  outputTokens: 3,
});

/** Input tokens of a count-tokens route. */
export const COUNTED_INPUT_TOKENS = 1234;

/** Anthropic: `input_tokens` excludes both cache reads and cache writes. */
export function anthropicUsage(usage: Usage): {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
} {
  return {
    input_tokens: usage.uncachedInputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadInputTokens,
    cache_creation_input_tokens: usage.cacheCreationInputTokens,
  };
}

/** OpenAI and Gemini count cached tokens inside the prompt; they have no cache-write count. */
export function promptTokens(usage: Usage): number {
  return usage.uncachedInputTokens + usage.cacheReadInputTokens;
}
