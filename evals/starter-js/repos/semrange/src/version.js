/** Semantic versions (https://semver.org): parsing, validation and formatting. */

const VERSION =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** A parsed version. Build metadata is kept but never affects comparisons. */
export class SemVer {
  /**
   * @param {number} major
   * @param {number} minor
   * @param {number} patch
   * @param {Array<string|number>} [prerelease] identifiers; numeric ones are numbers
   * @param {string[]} [build]
   */
  constructor(major, minor, patch, prerelease = [], build = []) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.prerelease = prerelease;
    this.build = build;
  }

  /** The version without build metadata, e.g. `1.2.3-rc.1`. */
  get version() {
    const core = `${this.major}.${this.minor}.${this.patch}`;
    return this.prerelease.length > 0 ? `${core}-${this.prerelease.join(".")}` : core;
  }

  toString() {
    return this.build.length > 0 ? `${this.version}+${this.build.join(".")}` : this.version;
  }
}

/** Thrown for text that is not a version or not a range. */
export class InvalidVersionError extends Error {
  constructor(message) {
    super(message);
    this.name = "InvalidVersionError";
  }
}

/**
 * Parses a version such as `1.2.3`, `v1.2.3` or `1.0.0-beta.2+exp.sha.5114f85`. Surrounding
 * whitespace is ignored. Accepts a string or a SemVer (returned as it is).
 *
 * @param {string|SemVer} input
 * @returns {SemVer}
 */
export function parse(input) {
  const text = input.trim();
  const match = VERSION.exec(text);
  if (match === null) throw new InvalidVersionError(`Invalid version: ${JSON.stringify(input)}`);
  const [, major, minor, patch, pre, build] = match;
  const prerelease = pre === undefined ? [] : pre.split(".").map(identifier);
  for (const part of prerelease) {
    if (typeof part === "string" && /^0\d+$/.test(part)) {
      throw new InvalidVersionError(`Invalid version: ${JSON.stringify(input)} (leading zero)`);
    }
  }
  for (const number of [major, minor, patch]) {
    if (!Number.isSafeInteger(Number(number))) {
      throw new InvalidVersionError(`Invalid version: ${JSON.stringify(input)} (too large)`);
    }
  }
  return new SemVer(
    Number(major),
    Number(minor),
    Number(patch),
    prerelease,
    build === undefined ? [] : build.split("."),
  );
}

/** A prerelease identifier: a number when it is all digits without a leading zero. */
function identifier(part) {
  return /^(0|[1-9]\d*)$/.test(part) ? Number(part) : part;
}

/**
 * Whether `input` is a valid version.
 *
 * @param {string} input
 */
export function valid(input) {
  try {
    parse(input);
    return true;
  } catch (error) {
    if (error instanceof InvalidVersionError) return false;
    throw error;
  }
}

/**
 * The version in its normal form (no `v`, no surrounding whitespace), or null when invalid.
 *
 * @param {string} input
 */
export function clean(input) {
  return valid(input) ? parse(input).toString() : null;
}
