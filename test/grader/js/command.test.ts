import { describe, expect, it } from "vitest";
import { isLabError } from "../../../src/core/index.js";
import { jsTestCommand } from "../../../src/grader/js/index.js";

describe("jsTestCommand", () => {
  it("refuses no files, and files that are not plain repository-relative paths", () => {
    for (const files of [
      [],
      [""],
      ["/abs/a.test.js"],
      ["../a.test.js"],
      ["-a.test.js"],
      ["a\nb"],
    ]) {
      let code: string | undefined;
      try {
        jsTestCommand("jest", files, "/results.json");
      } catch (error) {
        code = isLabError(error) ? error.code : "not a LabError";
      }
      expect(code).toBe("TASK_INVALID");
    }
  });

  it("quotes every path for the shell", () => {
    const command = jsTestCommand("jest", ["test/it's here.test.js"], "/tmp/a b/results.json");
    expect(command).toBe(
      "node_modules/.bin/jest --ci --json --outputFile='/tmp/a b/results.json' --runTestsByPath 'test/it'\\''s here.test.js'",
    );
  });
});
