import { describe, expect, it } from "vitest";
import { parseQueueAddress } from "../../src/queue/index.js";

describe("a queue URL", () => {
  it("reads host, port, database, user and password, and never shows the password", () => {
    const address = parseQueueAddress("redis://lab:s%40cret@queue.example:6380/2", {
      insecure: false,
    });
    expect(address).toMatchObject({
      host: "queue.example",
      port: 6380,
      db: 2,
      username: "lab",
      password: "s@cret",
      tls: false,
      isLoopback: false,
      display: "redis://lab:***@queue.example:6380/2",
    });
  });

  it("takes rediss:// as TLS, and defaults the port and database", () => {
    expect(parseQueueAddress("rediss://:pw@10.0.0.5", { insecure: false })).toMatchObject({
      host: "10.0.0.5",
      port: 6379,
      db: 0,
      tls: true,
      display: "rediss://:***@10.0.0.5:6379",
    });
  });

  it("lets loopback go without a password", () => {
    for (const url of ["redis://127.0.0.1:6379", "redis://localhost", "redis://[::1]:7000"]) {
      expect(parseQueueAddress(url, { insecure: false }).isLoopback).toBe(true);
    }
  });

  it("refuses a passwordless Redis on another machine unless --insecure", () => {
    expect(() => parseQueueAddress("redis://10.0.0.5:6379", { insecure: false })).toThrow(
      "--queue redis://10.0.0.5:6379 is a Redis on another machine without a password: anyone who can reach it could read the tasks, change jobs and plant results.",
    );
    expect(parseQueueAddress("redis://10.0.0.5:6379", { insecure: true }).password).toBeUndefined();
  });

  it("names what is wrong with a malformed URL", () => {
    expect(() => parseQueueAddress("queue-host:6379", { insecure: false })).toThrow(
      '--queue expects a URL starting with redis:// or rediss://; got one starting "queue-host:".',
    );
    expect(() => parseQueueAddress("redis://127.0.0.1:6379/x", { insecure: false })).toThrow(
      "--queue's path must be a database number",
    );
    expect(() => parseQueueAddress("not a url", { insecure: false })).toThrow(
      "--queue expects a Redis URL such as redis://:PASSWORD@HOST:6379",
    );
  });
});
