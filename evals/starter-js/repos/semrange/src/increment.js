/** Bumping versions: the next major, minor, patch or prerelease. */
import { toVersion } from "./compare.js";
import { InvalidVersionError, SemVer } from "./version.js";

const RELEASES = ["major", "minor", "patch", "prerelease"];

/**
 * The version after `input` for a release type: `major`, `minor`, `patch` or `prerelease`.
 * Build metadata is dropped. A prerelease of the next version is left by `patch` (and by
 * `minor` or `major` when the lower fields are already 0): `1.3.0-rc.1` bumps to `1.3.0` with
 * `minor`. `prerelease` counts up the last numeric identifier, or starts `<id>.0` (with `id`,
 * by default none: just `0`) on a release, after bumping the patch.
 *
 * @param {string|SemVer} input
 * @param {"major"|"minor"|"patch"|"prerelease"} release
 * @param {string} [id] the prerelease identifier for `prerelease`, e.g. `"beta"`
 * @returns {string}
 */
export function increment(input, release, id) {
  if (!RELEASES.includes(release)) {
    throw new InvalidVersionError(`Unknown release type: ${JSON.stringify(release)}`);
  }
  const v = toVersion(input);
  const isPre = v.prerelease.length > 0;
  switch (release) {
    case "major":
      if (isPre && v.minor === 0 && v.patch === 0) return new SemVer(v.major, 0, 0).toString();
      return new SemVer(v.major + 1, 0, 0).toString();
    case "minor":
      if (isPre && v.patch === 0) return new SemVer(v.major, v.minor, 0).toString();
      return new SemVer(v.major, v.minor + 1, 0).toString();
    case "patch":
      if (isPre) return new SemVer(v.major, v.minor, v.patch).toString();
      return new SemVer(v.major, v.minor, v.patch + 1).toString();
    case "prerelease":
      return nextPrerelease(v, id).toString();
  }
}

function nextPrerelease(v, id) {
  const start = id === undefined ? [0] : [id, 0];
  if (v.prerelease.length === 0) return new SemVer(v.major, v.minor, v.patch + 1, start);
  if (id !== undefined && v.prerelease[0] !== id) {
    return new SemVer(v.major, v.minor, v.patch, start);
  }
  const parts = [...v.prerelease];
  for (let index = parts.length - 1; index >= 0; index--) {
    if (typeof parts[index] === "number") {
      parts[index] += 1;
      return new SemVer(v.major, v.minor, v.patch, parts);
    }
  }
  return new SemVer(v.major, v.minor, v.patch, [...parts, 0]);
}

/**
 * The largest release type that differs between two versions (`major`, `minor`, `patch` or
 * `prerelease`), or null when they are equal.
 *
 * @param {string|SemVer} a
 * @param {string|SemVer} b
 */
export function diff(a, b) {
  const left = toVersion(a);
  const right = toVersion(b);
  for (const field of ["major", "minor", "patch"]) {
    if (left[field] !== right[field]) return field;
  }
  return left.version === right.version ? null : "prerelease";
}
