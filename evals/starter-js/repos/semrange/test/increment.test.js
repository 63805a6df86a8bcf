import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diff, increment, InvalidVersionError } from "../src/index.js";

describe("increment", () => {
  const cases = [
    ["1.2.3", "major", "2.0.0"],
    ["1.2.3", "minor", "1.3.0"],
    ["1.2.3", "patch", "1.2.4"],
    ["1.2.3+build", "patch", "1.2.4"],
    ["2.0.0-rc.1", "major", "2.0.0"],
    ["1.3.0-rc.1", "minor", "1.3.0"],
    ["1.2.4-rc.1", "patch", "1.2.4"],
    ["1.2.4-rc.1", "minor", "1.3.0"],
    ["1.2.3", "prerelease", "1.2.4-0"],
    ["1.2.4-0", "prerelease", "1.2.4-1"],
    ["1.2.4-beta.1", "prerelease", "1.2.4-beta.2"],
    ["1.2.4-beta", "prerelease", "1.2.4-beta.0"],
  ];
  for (const [from, release, expected] of cases) {
    it(`${release} of ${from} is ${expected}`, () => {
      assert.equal(increment(from, release), expected);
    });
  }

  it("starts a named prerelease", () => {
    assert.equal(increment("1.2.3", "prerelease", "beta"), "1.2.4-beta.0");
    assert.equal(increment("1.2.4-alpha.3", "prerelease", "beta"), "1.2.4-beta.0");
  });

  it("rejects an unknown release type", () => {
    assert.throws(() => increment("1.2.3", "micro"), InvalidVersionError);
  });
});

describe("diff", () => {
  it("names the largest part that differs", () => {
    assert.equal(diff("1.2.3", "2.0.0"), "major");
    assert.equal(diff("1.2.3", "1.3.0"), "minor");
    assert.equal(diff("1.2.3", "1.2.4"), "patch");
    assert.equal(diff("1.2.3-rc.1", "1.2.3"), "prerelease");
  });

  it("is null for equal versions, build metadata aside", () => {
    assert.equal(diff("1.2.3+a", "1.2.3+b"), null);
  });
});
