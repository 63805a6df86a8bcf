import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { packFolder, unpackBundle, writeBundle } from "../../src/queue/bundle.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

describe("a trial folder sent back by a worker", () => {
  it("comes back byte for byte, binary files and subfolders included", async () => {
    const dir = path.join(root, "whole");
    mkdirSync(path.join(dir, "artifacts", "deep"), { recursive: true });
    writeFileSync(path.join(dir, "result.json"), '{"ok":true}\n');
    writeFileSync(path.join(dir, "patch.diff"), "diff --git a/x b/x\n");
    writeFileSync(path.join(dir, "artifacts", "deep", "blob.bin"), Buffer.from([0, 255, 1, 254]));
    const files = await unpackBundle(
      await packFolder(dir, { first: ["result.json"], where: "worker w" }),
    );
    expect(files.map((file) => file.path)).toEqual([
      "result.json",
      "artifacts/deep/blob.bin",
      "patch.diff",
    ]);
    const copy = path.join(root, "copy");
    await writeBundle(copy, files, ["result.json"]);
    expect(readFileSync(path.join(copy, "artifacts", "deep", "blob.bin"))).toEqual(
      Buffer.from([0, 255, 1, 254]),
    );
    expect(readFileSync(path.join(copy, "result.json"), "utf8")).toBe('{"ok":true}\n');
  });

  it("cuts a file past the limit with a note: a log keeps its end, a patch its start", async () => {
    const dir = path.join(root, "big");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "tool.log"), `${"a".repeat(5000)}THE END`);
    writeFileSync(path.join(dir, "patch.diff"), `THE START${"b".repeat(5000)}`);
    const files = await unpackBundle(
      await packFolder(dir, {
        first: [],
        where: "worker w7",
        limits: { maxFileBytes: 1024, maxTotalBytes: 1 << 20 },
      }),
    );
    const log = files.find((file) => file.path === "tool.log")?.data.toString() ?? "";
    const patch = files.find((file) => file.path === "patch.diff")?.data.toString() ?? "";
    expect(log.length).toBeLessThanOrEqual(1024);
    expect(log).toMatch(
      /^\[lab: tool\.log was cut on worker w7: the last \d+ of 5007 bytes are kept\]\n/,
    );
    expect(log.endsWith("THE END")).toBe(true);
    expect(patch.startsWith("THE START")).toBe(true);
    expect(patch).toMatch(
      /\[lab: patch\.diff was cut on worker w7: the first \d+ of 5009 bytes are kept\]\n$/,
    );
  });

  it("refuses a bundle naming a file outside its folder", async () => {
    const evil = gzipSync(
      Buffer.from(JSON.stringify({ files: [{ path: "../../etc/x", base64: "" }] })),
    ).toString("base64");
    await expect(unpackBundle(evil)).rejects.toThrow(
      'a bundle names a file outside its folder: "../../etc/x"',
    );
  });
});
