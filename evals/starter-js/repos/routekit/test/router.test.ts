import { describe, expect, it } from "vitest";
import { DuplicateRouteError, Router } from "../src/index.ts";

function router(): Router<string> {
  return new Router<string>()
    .add("GET", "/", "home")
    .add("GET", "/users/:id", "user")
    .add("GET", "/users/new", "new-user")
    .add("POST", "/users", "create-user")
    .add("GET", "/users", "users")
    .add("DELETE", "/users/:id", "delete-user")
    .add("GET", "/files/*path", "file")
    .add("GET", "/files/readme", "readme");
}

describe("Router.lookup", () => {
  it("finds a static route", () => {
    expect(router().lookup("GET", "/")).toEqual({
      status: "found",
      value: "home",
      params: {},
      pattern: "/",
    });
  });

  it("finds a route with parameters", () => {
    expect(router().lookup("GET", "/users/42")).toMatchObject({
      value: "user",
      params: { id: "42" },
    });
  });

  it("prefers a static segment to a parameter, whatever the order of adding", () => {
    expect(router().lookup("GET", "/users/new")).toMatchObject({ value: "new-user", params: {} });
  });

  it("prefers a static segment to a splat", () => {
    expect(router().lookup("GET", "/files/readme")).toMatchObject({ value: "readme" });
    expect(router().lookup("GET", "/files/docs/intro.md")).toMatchObject({
      value: "file",
      params: { path: ["docs", "intro.md"] },
    });
  });

  it("chooses the route by method", () => {
    expect(router().lookup("POST", "/users")).toMatchObject({ value: "create-user" });
    expect(router().lookup("delete", "/users/7")).toMatchObject({ value: "delete-user" });
  });

  it("ignores the query string and the fragment", () => {
    expect(router().lookup("GET", "/users/42?tab=posts#top")).toMatchObject({
      value: "user",
      params: { id: "42" },
    });
  });

  it("decodes parameters", () => {
    expect(router().lookup("GET", "/users/Jos%C3%A9")).toMatchObject({ params: { id: "José" } });
  });

  it("says which methods a path allows when the method has no route", () => {
    expect(router().lookup("PUT", "/users/42")).toEqual({
      status: "method-not-allowed",
      allowed: ["DELETE", "GET"],
    });
  });

  it("says when nothing matches", () => {
    expect(router().lookup("GET", "/nowhere")).toEqual({ status: "not-found" });
    expect(router().lookup("GET", "/users/42/posts")).toEqual({ status: "not-found" });
  });

  it("lets * match every method", () => {
    const any = new Router<string>().add("*", "/health", "health");
    expect(any.lookup("HEAD", "/health")).toMatchObject({ value: "health" });
  });
});

describe("Router.add", () => {
  it("rejects the same method and pattern twice", () => {
    const routes = new Router<string>().add("GET", "/a", "a");
    expect(() => routes.add("get", "/a", "again")).toThrow(DuplicateRouteError);
  });

  it("allows one pattern for several methods", () => {
    const routes = new Router<string>().add("GET", "/a", "read").add("PUT", "/a", "write");
    expect(routes.routes()).toHaveLength(2);
  });

  it("keeps routes most specific first", () => {
    const order = router()
      .routes()
      .map((route) => `${route.method} ${route.pattern.source}`);
    expect(order.indexOf("GET /users/new")).toBeLessThan(order.indexOf("GET /users/:id"));
    expect(order.indexOf("GET /files/readme")).toBeLessThan(order.indexOf("GET /files/*path"));
  });
});
