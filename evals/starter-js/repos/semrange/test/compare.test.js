import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compare, eq, gt, lt, parse, rsort, sort } from "../src/index.js";

describe("compare", () => {
  it("orders by major, then minor, then patch", () => {
    assert.equal(compare("1.2.3", "2.0.0"), -1);
    assert.equal(compare("1.10.0", "1.9.9"), 1);
    assert.equal(compare("1.2.10", "1.2.9"), 1);
    assert.equal(compare("1.2.3", "1.2.3"), 0);
  });

  it("puts a prerelease before its release", () => {
    assert.equal(compare("1.0.0-rc.1", "1.0.0"), -1);
    assert.equal(compare("1.0.0", "1.0.0-alpha"), 1);
  });

  it("compares alphanumeric identifiers in ASCII order", () => {
    assert.equal(compare("1.0.0-alpha", "1.0.0-beta"), -1);
    assert.equal(compare("1.0.0-Beta", "1.0.0-alpha"), -1);
  });

  it("puts numeric identifiers before alphanumeric ones", () => {
    assert.equal(compare("1.0.0-1", "1.0.0-alpha"), -1);
    assert.equal(compare("1.0.0-alpha.beta", "1.0.0-alpha.1"), 1);
  });

  it("puts a shorter prerelease first when it is a prefix", () => {
    assert.equal(compare("1.0.0-alpha", "1.0.0-alpha.1"), -1);
  });

  it("ignores build metadata", () => {
    assert.equal(compare("1.0.0+build.1", "1.0.0+build.2"), 0);
  });

  it("takes SemVer objects as well as strings", () => {
    assert.equal(compare(parse("1.2.3"), "1.2.4"), -1);
  });
});

describe("gt, lt and eq", () => {
  it("agree with compare", () => {
    assert.equal(gt("2.0.0", "1.9.9"), true);
    assert.equal(lt("2.0.0", "1.9.9"), false);
    assert.equal(eq("1.0.0", "v1.0.0"), true);
  });
});

describe("sort and rsort", () => {
  const versions = ["1.0.0", "0.9.0", "1.0.0-rc.1", "1.0.0-alpha", "2.0.0", "1.0.0-beta"];

  it("sort puts the lowest first", () => {
    assert.deepEqual(sort(versions), [
      "0.9.0",
      "1.0.0-alpha",
      "1.0.0-beta",
      "1.0.0-rc.1",
      "1.0.0",
      "2.0.0",
    ]);
  });

  it("rsort puts the highest first", () => {
    assert.deepEqual(rsort(versions)[0], "2.0.0");
    assert.deepEqual(rsort(versions).at(-1), "0.9.0");
  });

  it("leave their input alone", () => {
    const input = ["2.0.0", "1.0.0"];
    sort(input);
    assert.deepEqual(input, ["2.0.0", "1.0.0"]);
  });
});
