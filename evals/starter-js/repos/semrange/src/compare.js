/** Ordering of versions by semver precedence. */
import { parse, SemVer } from "./version.js";

/** A SemVer from a string or a SemVer. */
export function toVersion(input) {
  return input instanceof SemVer ? input : parse(input);
}

/**
 * Compares two versions by precedence: -1, 0 or 1. Build metadata is ignored, and a prerelease
 * sorts before its release (`1.0.0-rc.1 < 1.0.0`).
 *
 * @param {string|SemVer} a
 * @param {string|SemVer} b
 * @returns {-1|0|1}
 */
export function compare(a, b) {
  const left = toVersion(a);
  const right = toVersion(b);
  for (const field of ["major", "minor", "patch"]) {
    if (left[field] !== right[field]) return left[field] < right[field] ? -1 : 1;
  }
  return comparePrerelease(left.prerelease, right.prerelease);
}

/**
 * Prerelease precedence: no prerelease beats any; otherwise identifier by identifier, numbers
 * before strings, and a shorter list first when it is a prefix of the longer.
 */
function comparePrerelease(left, right) {
  if (left.length === 0 || right.length === 0) {
    return left.length === right.length ? 0 : left.length === 0 ? 1 : -1;
  }
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const a = left[index];
    const b = right[index];
    if (a === undefined) return -1;
    if (b === undefined) return 1;
    if (a === b) continue;
    const aIsNumber = typeof a === "number";
    const bIsNumber = typeof b === "number";
    if (aIsNumber !== bIsNumber) return aIsNumber ? -1 : 1;
    return String(a) < String(b) ? -1 : 1;
  }
  return 0;
}

/** Whether `a` sorts after `b`. */
export function gt(a, b) {
  return compare(a, b) > 0;
}

/** Whether `a` sorts before `b`. */
export function lt(a, b) {
  return compare(a, b) < 0;
}

/** Whether `a` and `b` have the same precedence. */
export function eq(a, b) {
  return compare(a, b) === 0;
}

/**
 * The versions sorted by precedence, lowest first; a new array.
 *
 * @param {Array<string|SemVer>} versions
 */
export function sort(versions) {
  return [...versions].sort(compare);
}

/**
 * The versions sorted by precedence, highest first; a new array.
 *
 * @param {Array<string|SemVer>} versions
 */
export function rsort(versions) {
  return [...versions].sort((a, b) => compare(b, a));
}
