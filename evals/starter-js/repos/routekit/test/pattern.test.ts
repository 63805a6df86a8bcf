import { describe, expect, it } from "vitest";
import { compilePattern, parsePattern, PatternError, specificity } from "../src/index.ts";

describe("parsePattern", () => {
  it("reads static, parameter and splat segments", () => {
    expect(parsePattern("/users/:id/files/*path")).toEqual([
      { kind: "static", text: "users" },
      { kind: "param", name: "id", optional: false },
      { kind: "static", text: "files" },
      { kind: "splat", name: "path" },
    ]);
  });

  it("reads an optional parameter", () => {
    expect(parsePattern("/posts/:page?")).toEqual([
      { kind: "static", text: "posts" },
      { kind: "param", name: "page", optional: true },
    ]);
  });

  it("reads the root as no segments", () => {
    expect(parsePattern("/")).toEqual([]);
  });

  it.each([
    ["users", "it must start with /"],
    ["/users//posts", "it has an empty segment"],
    ["/users/:", 'bad parameter name ""'],
    ["/users/:1st", 'bad parameter name "1st"'],
    ["/a/:id/b/:id", "parameter id appears twice"],
    ["/files/*path/raw", "*path must be the last segment"],
    ["/posts/:page?/comments", ":page? must be the last segment"],
    ["/users/a:b", 'unexpected character in "a:b"'],
  ])("rejects %s", (pattern, reason) => {
    expect(() => parsePattern(pattern)).toThrow(new PatternError(pattern, reason));
  });
});

describe("compilePattern", () => {
  it("matches whole paths only", () => {
    const { regex } = compilePattern("/users/:id");
    expect(regex.test("/users/42")).toBe(true);
    expect(regex.test("/users/42/posts")).toBe(false);
    expect(regex.test("/users")).toBe(false);
  });

  it("captures parameters in order", () => {
    const compiled = compilePattern("/orgs/:org/repos/:repo");
    expect(compiled.keys).toEqual(["org", "repo"]);
    expect(compiled.regex.exec("/orgs/acme/repos/lab")?.slice(1)).toEqual(["acme", "lab"]);
  });

  it("lets a splat take several segments", () => {
    const { regex } = compilePattern("/files/*path");
    expect(regex.exec("/files/docs/guide/intro.md")?.[1]).toBe("docs/guide/intro.md");
    expect(regex.test("/files")).toBe(false);
  });

  it("matches static text literally and case-sensitively", () => {
    const { regex } = compilePattern("/v1.0/status");
    expect(regex.test("/v1.0/status")).toBe(true);
    expect(regex.test("/v1x0/status")).toBe(false);
    expect(regex.test("/V1.0/Status")).toBe(false);
  });

  it("compiles the root", () => {
    expect(compilePattern("/").regex.test("/")).toBe(true);
  });
});

describe("specificity", () => {
  it("scores each segment", () => {
    expect(specificity(compilePattern("/users/:id/*rest"))).toEqual([3, 2, 0]);
    expect(specificity(compilePattern("/posts/:page?"))).toEqual([3, 1]);
  });
});
