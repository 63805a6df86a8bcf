/**
 * npm-style version ranges: comparators (`>=1.2.3 <2.0.0`), X-ranges (`1.x`, `1.2.*`, `*`),
 * partial versions (`1.2`), tilde (`~1.2.3`), caret (`^1.2.3`) and hyphen ranges
 * (`1.2.3 - 2.3.4`), joined with `||`.
 */
import { compare, toVersion } from "./compare.js";
import { InvalidVersionError, parse, SemVer } from "./version.js";

const PARTIAL = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?$/;
const OPERATOR = /^(<=|>=|<|>|=|~|\^)?\s*(.*)$/;

/** One comparison against a version: `>=`, `>`, `<=`, `<` or `=`. */
export class Comparator {
  /**
   * @param {">="|">"|"<="|"<"|"="} operator
   * @param {SemVer} version
   */
  constructor(operator, version) {
    this.operator = operator;
    this.version = version;
  }

  /** Whether `version` (a SemVer) passes this comparison. */
  test(version) {
    const order = compare(version, this.version);
    switch (this.operator) {
      case ">=":
        return order >= 0;
      case ">":
        return order > 0;
      case "<=":
        return order <= 0;
      case "<":
        return order < 0;
      case "=":
        return order === 0;
    }
  }

  toString() {
    return `${this.operator === "=" ? "" : this.operator}${this.version.version}`;
  }
}

/** A parsed range: alternatives (`||`), each a list of comparators that must all pass. */
export class Range {
  /** @param {string} text */
  constructor(text) {
    this.raw = text.trim();
    this.set = this.raw.split("||").map((part) => parseAlternative(part.trim(), text));
  }

  /**
   * Whether `version` is in the range. A prerelease version is only in it when one of the
   * comparators of the matching alternative names a prerelease of the same major.minor.patch:
   * `1.3.0-beta.1` is in `>=1.3.0-beta.0 <2.0.0` but not in `^1.2.0`.
   *
   * @param {string|SemVer} version
   */
  test(version) {
    const v = toVersion(version);
    return this.set.some(
      (comparators) =>
        comparators.every((comparator) => comparator.test(v)) && allowsPrerelease(comparators, v),
    );
  }

  /** The normalized range, e.g. `>=1.2.3 <2.0.0-0||>=3.0.0`. */
  toString() {
    return this.set
      .map((comparators) => comparators.map(String).join(" ") || "*")
      .join("||");
  }
}

function allowsPrerelease(comparators, v) {
  if (v.prerelease.length === 0) return true;
  return comparators.some(
    ({ version }) =>
      version.prerelease.length > 0 &&
      version.major === v.major &&
      version.minor === v.minor &&
      version.patch === v.patch,
  );
}

/** One `||` alternative as comparators; `*` and the empty string allow every release. */
function parseAlternative(text, whole) {
  if (text === "" || text === "*" || /^[xX]$/.test(text)) return [];
  const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
  if (hyphen !== null) return hyphenRange(hyphen[1], hyphen[2], whole);
  const tokens = text.replace(/(<=|>=|<|>|=|~|\^)\s+/g, "$1").split(/\s+/);
  return tokens.flatMap((token) => parseComparator(token, whole));
}

/** A partial version: `major`, `minor` and `patch` are numbers or null (for x, * or missing). */
function partial(text, whole) {
  const match = PARTIAL.exec(text);
  if (match === null) throw new InvalidVersionError(`Invalid range: ${JSON.stringify(whole)}`);
  const [, major, minor, patch, pre] = match;
  const number = (part) => (part === undefined || /^[xX*]$/.test(part) ? null : Number(part));
  const result = { major: number(major), minor: number(minor), patch: number(patch), pre };
  if (result.major === null) return { major: null, minor: null, patch: null, pre: undefined };
  if (result.minor === null) result.patch = null;
  if (pre !== undefined && result.patch === null) {
    throw new InvalidVersionError(`Invalid range: ${JSON.stringify(whole)}`);
  }
  return result;
}

/** The full version of a partial whose missing parts are 0, prerelease kept. */
function floor(p) {
  const text = `${p.major ?? 0}.${p.minor ?? 0}.${p.patch ?? 0}`;
  return parse(p.pre === undefined ? text : `${text}-${p.pre}`);
}

/** `<` the lowest prerelease of a version, so that no prerelease of it slips in. */
function below(major, minor, patch) {
  return new Comparator("<", new SemVer(major, minor, patch, [0]));
}

function atLeast(p) {
  return new Comparator(">=", floor(p));
}

function parseComparator(token, whole) {
  const [, operator = "", rest] = OPERATOR.exec(token);
  const p = partial(rest, whole);
  if (p.major === null) {
    return operator === "<" || operator === ">" ? [new Comparator("<", new SemVer(0, 0, 0, [0]))] : [];
  }
  switch (operator) {
    case "~":
      return tilde(p);
    case "^":
      return caret(p);
    case "":
    case "=":
      return xRange(p);
    default:
      return [comparison(operator, p)];
  }
}

/** `1.2.3` is `=1.2.3`; `1.2` and `1.2.x` are `>=1.2.0 <1.3.0-0`; `1` is `>=1.0.0 <2.0.0-0`. */
function xRange(p) {
  if (p.minor === null) return [atLeast(p), below(p.major + 1, 0, 0)];
  if (p.patch === null) return [atLeast(p), below(p.major, p.minor + 1, 0)];
  return [new Comparator("=", floor(p))];
}

/** `~1.2.3` is `>=1.2.3 <1.3.0-0`; `~1` is `>=1.0.0 <2.0.0-0`. */
function tilde(p) {
  if (p.minor === null) return [atLeast(p), below(p.major + 1, 0, 0)];
  return [atLeast(p), below(p.major, p.minor + 1, 0)];
}

/**
 * `^1.2.3` is `>=1.2.3 <2.0.0-0`: changes that do not modify the left-most non-zero part.
 * So `^0.2.3` is `>=0.2.3 <0.3.0-0` and `^0.0.3` is `>=0.0.3 <0.0.4-0`.
 */
function caret(p) {
  return [atLeast(p), below(p.major + 1, 0, 0)];
}

/** `>1.2` means above every 1.2.x; `<=1.2` includes every 1.2.x. */
function comparison(operator, p) {
  const exact = p.patch !== null;
  if (exact || operator === ">=" || operator === "<") return new Comparator(operator, floor(p));
  const next = p.minor === null ? new SemVer(p.major + 1, 0, 0, [0]) : new SemVer(p.major, p.minor + 1, 0, [0]);
  return operator === ">" ? new Comparator(">=", next) : new Comparator("<", next);
}

/** `1.2.3 - 2.3.4` is `>=1.2.3 <=2.3.4`; a partial upper end includes all it covers. */
function hyphenRange(from, to, whole) {
  const low = partial(from, whole);
  const high = partial(to, whole);
  const comparators = low.major === null ? [] : [atLeast(low)];
  if (high.major === null) return comparators;
  if (high.minor === null) return [...comparators, below(high.major + 1, 0, 0)];
  if (high.patch === null) return [...comparators, below(high.major, high.minor + 1, 0)];
  return [...comparators, new Comparator("<=", floor(high))];
}

/**
 * Whether `version` is in `range`.
 *
 * @param {string|SemVer} version
 * @param {string|Range} range
 */
export function satisfies(version, range) {
  return new Range(range).test(parse(version));
}

/**
 * The highest of `versions` in `range`, or null when none is.
 *
 * @param {Array<string|SemVer>} versions
 * @param {string|Range} range
 */
export function maxSatisfying(versions, range) {
  const parsed = new Range(range);
  let best = null;
  for (const version of versions) {
    if (parsed.test(version) && (best === null || compare(version, best) > 0)) best = version;
  }
  return best;
}

/**
 * The lowest of `versions` in `range`, or null when none is.
 *
 * @param {Array<string|SemVer>} versions
 * @param {string|Range} range
 */
export function minSatisfying(versions, range) {
  const parsed = new Range(range);
  let best = null;
  for (const version of versions) {
    if (parsed.test(version) && (best === null || compare(version, best) < 0)) best = version;
  }
  return best;
}
