import { readFileSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gradeChange } from "../../src/grader/index.js";
import { loadOracle, loadSuite, loadTask } from "../../src/suite/index.js";
import { pyproject, writeFixtureSuite } from "../helpers/fixture-suite.js";
import { testEnvironment } from "../helpers/lab.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir();

const CLIENT = `import json, os, urllib.request

def fetch_args(**params):
    """Asks httpbin to echo query parameters."""
    base = os.environ.get("HTTPBIN_URL", "http://httpbin.org/")
    query = "&".join(f"{k}={v}" for k, v in params.items())
    with urllib.request.urlopen(base + "get?" + query, timeout=5) as response:
        return json.load(response)["args"]
`;

describe("services for tests that call the network", () => {
  it("serves httpbin on loopback during the test run, so such a task grades offline", async () => {
    const evalsDir = path.join(root, "evals");
    writeFixtureSuite(evalsDir, "net", [
      {
        id: "echo",
        base: {
          "pyproject.toml": pyproject("echo"),
          "src/echo/__init__.py": CLIENT.replace('return json.load(response)["args"]', "return {}"),
          "tests/test_echo.py": "def test_nothing():\n    pass\n",
        },
        gold: { "src/echo/__init__.py": CLIENT },
        tests: {
          "tests/test_echo.py":
            "from echo import fetch_args\n\n\ndef test_nothing():\n    pass\n\n\ndef test_echo():\n    assert fetch_args(a='1') == {'a': '1'}\n",
        },
        failToPass: ["tests/test_echo.py::test_echo"],
        passToPass: ["tests/test_echo.py::test_nothing"],
      },
    ]);
    const envFile = path.join(evalsDir, "net", "oracle", "echo", "environment.json");
    writeFileSync(
      envFile,
      JSON.stringify({
        ...(JSON.parse(readFileSync(envFile, "utf8")) as object),
        services: ["httpbin"],
      }),
    );
    const suite = await loadSuite("net", { evalsDir, cwd: root });
    const task = await loadTask(suite, "echo");
    const oracle = await loadOracle(task);
    const scratch = mkdtempSync(path.join(root, "grade-"));
    const { grade } = await gradeChange(
      task,
      oracle,
      { patch: oracle.goldPatch },
      {
        scratchDir: scratch,
        logFile: `${scratch}.log`,
        environment: testEnvironment(),
        setupTimeoutMs: 60_000,
        installTimeoutMs: 600_000,
        testTimeoutMs: 120_000,
      },
    );
    expect(grade.reason).toBeNull();
    expect(grade.statuses["tests/test_echo.py::test_echo"]).toBe("PASSED");
    expect(grade.resolved).toBe(true);
  }, 600_000);
});
