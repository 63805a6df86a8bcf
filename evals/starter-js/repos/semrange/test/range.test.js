import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidVersionError, maxSatisfying, minSatisfying, Range, satisfies } from "../src/index.js";

describe("satisfies", () => {
  const inside = [
    ["1.2.3", "1.2.3"],
    ["1.2.3", "=1.2.3"],
    ["1.2.3", ">=1.2.0 <1.3.0"],
    ["1.2.9", "1.2.x"],
    ["1.9.0", "1.x"],
    ["1.9.0", "1"],
    ["1.2.0", "1.2"],
    ["3.1.4", "*"],
    ["3.1.4", ""],
    ["1.2.9", "~1.2.3"],
    ["1.9.9", "~1"],
    ["1.9.9", "^1.2.3"],
    ["2.3.4", "1.2.3 - 2.3.4"],
    ["2.3.9", "1.2.3 - 2.3"],
    ["1.3.0", ">1.2"],
    ["1.2.9", "<=1.2"],
    ["3.0.0", "^1.0.0 || ^3.0.0"],
    ["1.2.3", ">= 1.2.3"],
    ["1.3.0-beta.1", ">=1.3.0-beta.0 <2.0.0"],
  ];
  for (const [version, range] of inside) {
    it(`${version} is in ${JSON.stringify(range)}`, () => {
      assert.equal(satisfies(version, range), true);
    });
  }

  const outside = [
    ["1.2.4", "1.2.3"],
    ["1.3.0", "1.2.x"],
    ["2.0.0", "1.x"],
    ["1.3.0", "~1.2.3"],
    ["2.0.0", "^1.2.3"],
    ["1.2.2", "^1.2.3"],
    ["2.3.5", "1.2.3 - 2.3.4"],
    ["1.2.9", ">1.2"],
    ["2.0.0", "^1.0.0 || ^3.0.0"],
    ["1.3.0-beta.1", "^1.2.0"],
    ["2.0.0-rc.1", "^1.0.0"],
  ];
  for (const [version, range] of outside) {
    it(`${version} is not in ${JSON.stringify(range)}`, () => {
      assert.equal(satisfies(version, range), false);
    });
  }

  it("rejects a malformed range", () => {
    assert.throws(() => satisfies("1.2.3", ">=1.2.3.4"), InvalidVersionError);
    assert.throws(() => satisfies("1.2.3", "^banana"), InvalidVersionError);
  });
});

describe("Range", () => {
  it("normalizes comparators", () => {
    assert.equal(new Range("~1.2.3").toString(), ">=1.2.3 <1.3.0-0");
    assert.equal(new Range("1.x || >=3").toString(), ">=1.0.0 <2.0.0-0||>=3.0.0");
    assert.equal(new Range("*").toString(), "*");
  });

  it("tests versions", () => {
    const range = new Range("^2.1.0");
    assert.equal(range.test("2.5.0"), true);
    assert.equal(range.test("3.0.0"), false);
  });
});

describe("maxSatisfying and minSatisfying", () => {
  const versions = ["1.2.3", "1.4.0", "1.10.1", "2.0.0", "1.0.0"];

  it("find the highest version in a range", () => {
    assert.equal(maxSatisfying(versions, "^1.2.0"), "1.10.1");
    assert.equal(maxSatisfying(versions, ">=3"), null);
  });

  it("find the lowest version in a range", () => {
    assert.equal(minSatisfying(versions, "~1.4"), "1.4.0");
    assert.equal(minSatisfying(versions, "1.x"), "1.0.0");
  });
});
