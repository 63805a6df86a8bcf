import { describe, expect, it } from "vitest";
import { decodeParam, MalformedPathError, paramsFromMatch } from "../src/index.ts";

describe("decodeParam", () => {
  it("decodes percent-encoded UTF-8", () => {
    expect(decodeParam("caf%C3%A9")).toBe("café");
    expect(decodeParam("hello%20world")).toBe("hello world");
  });

  it("leaves plain text alone", () => {
    expect(decodeParam("report-2024_final")).toBe("report-2024_final");
  });

  it("rejects malformed encoding", () => {
    expect(() => decodeParam("%E0%A4%A")).toThrow(MalformedPathError);
  });
});

describe("paramsFromMatch", () => {
  it("names each group after its key", () => {
    const match = /^\/([^/]+)\/([^/]+)$/.exec("/acme/lab")!;
    expect(paramsFromMatch(["org", "repo"], new Set(), match)).toEqual({ org: "acme", repo: "lab" });
  });

  it("splits a splat into decoded segments", () => {
    const match = /^\/files\/(.+)$/.exec("/files/my%20docs/r%C3%A9sum%C3%A9.pdf")!;
    expect(paramsFromMatch(["path"], new Set(["path"]), match)).toEqual({
      path: ["my docs", "résumé.pdf"],
    });
  });

  it("leaves out a group that did not match", () => {
    const match = /^\/posts(?:\/([^/]+))?$/.exec("/posts")!;
    expect(paramsFromMatch(["page"], new Set(), match)).toEqual({});
  });
});
