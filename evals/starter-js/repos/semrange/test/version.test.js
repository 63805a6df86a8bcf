import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clean, InvalidVersionError, parse, valid } from "../src/index.js";

describe("parse", () => {
  it("reads major, minor and patch", () => {
    const v = parse("1.2.3");
    assert.deepEqual([v.major, v.minor, v.patch], [1, 2, 3]);
    assert.deepEqual(v.prerelease, []);
  });

  it("reads prerelease identifiers, numbers as numbers", () => {
    assert.deepEqual(parse("1.0.0-beta.2").prerelease, ["beta", 2]);
    assert.deepEqual(parse("1.0.0-x-y.01a").prerelease, ["x-y", "01a"]);
  });

  it("keeps build metadata apart from the version", () => {
    const v = parse("1.0.0-rc.1+exp.sha.5114f85");
    assert.deepEqual(v.build, ["exp", "sha", "5114f85"]);
    assert.equal(v.version, "1.0.0-rc.1");
    assert.equal(v.toString(), "1.0.0-rc.1+exp.sha.5114f85");
  });

  it("accepts a leading v and surrounding whitespace", () => {
    assert.equal(parse("  v2.0.1 ").toString(), "2.0.1");
  });

  for (const bad of ["1.2", "1.2.3.4", "01.2.3", "1.2.3-", "1.2.3-01", "a.b.c", "", "1.2.3 beta"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parse(bad), InvalidVersionError);
    });
  }

  it("rejects numbers too large to be exact", () => {
    assert.throws(() => parse("1.2.99999999999999999"), /too large/);
  });
});

describe("valid and clean", () => {
  it("tells valid versions from others", () => {
    assert.equal(valid("1.2.3"), true);
    assert.equal(valid("1.2"), false);
  });

  it("gives the normal form", () => {
    assert.equal(clean(" v1.2.3-alpha+build "), "1.2.3-alpha+build");
    assert.equal(clean("not a version"), null);
  });
});
