/** semrange: semantic versions and npm-style version ranges, without dependencies. */
export { SemVer, InvalidVersionError, parse, valid, clean } from "./version.js";
export { compare, gt, lt, eq, sort, rsort } from "./compare.js";
export { increment, diff } from "./increment.js";
export { Comparator, Range, satisfies, maxSatisfying, minSatisfying } from "./range.js";
