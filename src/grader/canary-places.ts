/**
 * Where a module's canaries go, for any language (Python: canary-source.ts; JavaScript:
 * js/canaries.ts): which of its tests each copies and before which line it stands. The rules,
 * which docs/design/canaries.md gives with the forgers they answer:
 * - must-fail ones copy the hidden tests that must start passing (`hidden`), different ones
 *   while some are left, and go first to blocks (classes, describes, loops, the module level) no
 *   must-fail one covers yet;
 * - each is put before one of the tests of its model's block at or after the model, or after the
 *   last of them; a must-fail one always after the module's last test (after anything else
 *   planted there), where the runner allows it;
 * - and one before a test (never after the last) of each block holding a hidden test, where no
 *   must-fail one sits yet.
 */

/** A source of numbers in [0, 1). */
export type Random = () => number;

/** One canary as written into a test module (Python: a function; JavaScript: a test call). */
export interface CanaryFunction {
  /** The function's name, which is also the last part of its test id. */
  readonly name: string;
  /** Whether its body fails (an assertion or an exception) or passes. */
  readonly mustFail: boolean;
  /** Whether it registers the end-of-process sentinel (runners without lab's runner guard). */
  readonly carriesSentinel: boolean;
  /** The name of the module's test it was made from, when it is written. */
  readonly model?: string | undefined;
}

/** What a canary function needs said about it before its text is made. */
export type CanaryRequest = Omit<CanaryFunction, "name" | "model">;

/** A test of a module as placement sees it: its block (its container), and its lines [start, end). */
export interface PlacedTest<Block> {
  readonly container: Block;
  readonly start: number;
  readonly end: number;
}

/** What a module's canaries are placed with. */
export interface Placement<T extends PlacedTest<unknown>> {
  /** Every test of the module, in line order. */
  readonly tests: readonly T[];
  /** Those a canary can be made from. */
  readonly candidates: readonly T[];
  /** The candidates that are hidden tests that must start passing. */
  readonly hidden: readonly T[];
  /** Whether a canary may follow a block's last test (SymPy's bin/test: never). */
  readonly afterLast: boolean;
  /** The canary's lines and name for a request from a model; null when that model gives none. */
  make(request: CanaryRequest, model: T): { lines: string[]; name: string; model: string } | null;
  /** The blank lines that set a canary made from `model` apart from its neighbours. */
  gap(model: T): string[];
}

/** One of `items`, drawn with `random`. */
export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** `lines` with canaries for `requests` placed by the rules above; the canaries written. */
export function placeCanaries<T extends PlacedTest<unknown>>(
  lines: readonly string[],
  requests: readonly CanaryRequest[],
  random: Random,
  placement: Placement<T>,
): { lines: string[]; canaries: CanaryFunction[] } {
  const { tests, candidates, hidden } = placement;
  const byPlace = new Map<number, string[]>();
  // The must-fail one after the module's last test, put after anything else planted there.
  let final = null as { place: number; block: string[] } | null;
  const canaries: CanaryFunction[] = [];
  const copied = new Set<T>();
  const covered = new Set<unknown>();
  // Blocks where a must-fail one sits before one of their tests.
  const among = new Set<unknown>();
  const lastTest = tests.at(-1);
  let lastTaken = false;
  const plant = (
    request: CanaryRequest,
    model: T,
    where: (befores: number[], last: T) => number | "after the module's last test",
  ): boolean => {
    const made = placement.make(request, model);
    if (made === null) return false;
    const siblings = tests.filter(
      (test) => test.container === model.container && test.start >= model.start,
    );
    const last = siblings.at(-1) as T;
    const chosen = where(
      siblings.map((test) => test.start),
      last,
    );
    const place = typeof chosen === "number" ? chosen : -last.end;
    const gap = placement.gap(model);
    const block = place < 0 ? [...gap, ...made.lines] : [...made.lines, ...gap];
    if (typeof chosen === "number") byPlace.set(place, [...(byPlace.get(place) ?? []), ...block]);
    else final = { place, block };
    canaries.push({ ...request, name: made.name, model: made.model });
    if (request.mustFail) {
      copied.add(model);
      covered.add(model.container);
      if (place >= 0) among.add(model.container);
    }
    return true;
  };
  for (const request of requests) {
    for (let attempt = 0; attempt < 8 && candidates.length > 0; attempt++) {
      const unseen = hidden.filter((test) => !copied.has(test) && !covered.has(test.container));
      const fresh = unseen.length > 0 ? unseen : hidden.filter((test) => !copied.has(test));
      const model = pick(
        random,
        request.mustFail && hidden.length > 0 && attempt < 4
          ? fresh.length > 0 && attempt < 2
            ? fresh
            : hidden
          : candidates,
      );
      // A must-fail one follows the module's last test, the first whose model's block holds it:
      // a forger that trusts only a module's last test (where a fix's new test often goes), or
      // none but it, flips a canary.
      const placed = plant(request, model, (befores, last) => {
        const afterLast =
          request.mustFail && !lastTaken && placement.afterLast && last === lastTest;
        if (afterLast) lastTaken = true;
        return afterLast
          ? "after the module's last test"
          : pick(random, placement.afterLast ? [...befores, -last.end] : befores);
      });
      if (placed) break;
    }
  }
  const mustFail = { mustFail: true, carriesSentinel: false };
  /** A model in `block`: a hidden test not copied yet, else a hidden one, else any. */
  const modelIn = (block: unknown, attempt: number): T | undefined => {
    const own = candidates.filter((test) => test.container === block);
    const ownHidden = own.filter((test) => hidden.includes(test));
    const fresh = ownHidden.filter((test) => !copied.has(test));
    const pool = attempt < 4 && ownHidden.length > 0 ? (fresh.length > 0 ? fresh : ownHidden) : own;
    return pool.length > 0 ? pick(random, pool) : undefined;
  };
  // One after the module's last test where the requests left none there (they went to other
  // blocks holding hidden tests).
  for (let attempt = 0; attempt < 8 && !lastTaken && placement.afterLast; attempt++) {
    const model = modelIn(lastTest?.container, attempt);
    if (model === undefined) break;
    if (plant(mustFail, model, () => "after the module's last test")) lastTaken = true;
  }
  // And one before a test of each block holding a hidden test where no must-fail one sits yet:
  // a forger that leaves every last test alone (of the module, of each block) and flips the
  // rest would otherwise swallow that block's real failures and flip nothing of lab's, the
  // module-last canary being such a last test (psf__requests-1963's TestRedirects holds both).
  for (const block of new Set(hidden.map((test) => test.container))) {
    for (let attempt = 0; attempt < 8 && !among.has(block); attempt++) {
      const model = modelIn(block, attempt);
      if (model === undefined) break;
      plant(mustFail, model, (befores) => pick(random, befores));
    }
  }
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    out.push(...(byPlace.get(index) ?? []));
    if (index > 0) out.push(...(byPlace.get(-index) ?? []));
    if (index > 0 && final?.place === -index) out.push(...final.block);
    out.push(lines[index] as string);
  }
  out.push(...(byPlace.get(-lines.length) ?? []));
  if (final?.place === -lines.length) out.push(...final.block);
  return { lines: out, canaries };
}
