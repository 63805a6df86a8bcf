import { describe, expect, it } from "vitest";
import { buildPath, encodeParam, MissingParamError, PatternError } from "../src/index.ts";

describe("encodeParam", () => {
  it("encodes spaces and non-ASCII text", () => {
    expect(encodeParam("my docs")).toBe("my%20docs");
    expect(encodeParam("café")).toBe("caf%C3%A9");
  });

  it("leaves unreserved characters alone", () => {
    expect(encodeParam("report-2024_final.v2~x")).toBe("report-2024_final.v2~x");
  });
});

describe("buildPath", () => {
  it("fills in parameters", () => {
    expect(buildPath("/orgs/:org/repos/:repo", { org: "acme", repo: "lab" })).toBe(
      "/orgs/acme/repos/lab",
    );
  });

  it("encodes values", () => {
    expect(buildPath("/tags/:tag", { tag: "année 2024" })).toBe("/tags/ann%C3%A9e%202024");
  });

  it("drops a missing optional parameter", () => {
    expect(buildPath("/posts/:page?")).toBe("/posts");
    expect(buildPath("/posts/:page?", { page: "3" })).toBe("/posts/3");
  });

  it("takes a splat as an array or a string", () => {
    expect(buildPath("/files/*path", { path: ["docs", "intro.md"] })).toBe("/files/docs/intro.md");
    expect(buildPath("/files/*path", { path: "docs/intro.md" })).toBe("/files/docs/intro.md");
  });

  it("builds the root", () => {
    expect(buildPath("/")).toBe("/");
  });

  it("ignores parameters the pattern does not name", () => {
    expect(buildPath("/users/:id", { id: "ada", tab: "posts" })).toBe("/users/ada");
  });

  it("rejects a missing or empty parameter", () => {
    expect(() => buildPath("/users/:id", {})).toThrow(MissingParamError);
    expect(() => buildPath("/users/:id", { id: "  " })).toThrow(
      'Cannot build "/users/:id": parameter id is missing or empty',
    );
    expect(() => buildPath("/files/*path", { path: [] })).toThrow(MissingParamError);
  });

  it("rejects a bad pattern", () => {
    expect(() => buildPath("users/:id", { id: "1" })).toThrow(PatternError);
  });
});
