import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prepareEnvironment } from "../../src/environment/index.js";
import { gradeChange, startServices, withServices } from "../../src/grader/index.js";
import {
  createCertificateAuthority,
  derInteger,
  issueServerCertificate,
} from "../../src/grader/services/certificates.js";
import { runCommand } from "../../src/process/index.js";
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

/** A client that names httpbin.org outright, over HTTPS, as requests' own tests do. */
const SECURE_CLIENT = `import json, urllib.request

def fetch_args(**params):
    """Asks httpbin.org, over HTTPS, to echo query parameters."""
    query = "&".join(f"{k}={v}" for k, v in params.items())
    with urllib.request.urlopen("https://httpbin.org/get?" + query, timeout=5) as response:
        return json.load(response)["args"]
`;

/**
 * What requests' suites do that needs more than HTTPBIN_URL, asked of a requests of their era
 * (2.7.0: its own urllib3 and CA bundle). Prints one JSON object of what it saw.
 */
const ERA_PROBE = `import builtins, json, os, time
import requests
from requests.exceptions import ConnectionError, ConnectTimeout, ReadTimeout

base = os.environ["HTTPBIN_URL"]
seen = {"grade_site_ran": getattr(builtins, "LAB_GRADE_SITE", False)}
seen["keep_alive"] = requests.get(base + "get").headers["Connection"]
seen["close"] = requests.get(base + "get", headers={"Connection": "close"}).headers["Connection"]
r = requests.post(base + "post", data=iter([b"ab", b"cd"]))
seen["chunked_post"] = [r.status_code, r.json()["data"]]
session = requests.Session()
r = session.send(requests.Request("GET", base.replace("http://", "hTTps://") + "get").prepare())
seen["https_same_port"] = [r.status_code, r.json()["url"].split(":")[0]]
r = requests.get("https://httpbin.org/redirect/2")
seen["httpbin_org"] = [r.status_code, r.url, len(r.history)]
r = requests.get(base + "redirect-to", params={"url": "http://www.google.co.uk"}, auth=("u", "p"))
seen["off_host"] = [r.status_code, r.url, "Authorization" in r.request.headers]
start = time.time()
try:
    requests.get("http://10.255.255.1", timeout=(0.5, None))
except ConnectTimeout:
    seen["unroutable"] = ["ConnectTimeout", 0.45 < time.time() - start < 5]
try:
    requests.get("http://httpbin.org:1", timeout=1)
except ConnectionError as e:
    seen["closed_port"] = "refused" in str(e)
try:
    requests.get("http://doesnotexist.google.com")
except ConnectionError as e:
    seen["unknown_name"] = "Name or service not known" in str(e)
try:
    requests.get(base + "delay/3", timeout=0.5)
except ReadTimeout as e:
    seen["read_timeout"] = "Read timed out" in str(e)
print(json.dumps(seen))
`;

function declareServices(evalsDir: string, id: string, services: readonly string[]): void {
  const envFile = path.join(evalsDir, "net", "oracle", id, "environment.json");
  writeFileSync(
    envFile,
    JSON.stringify({ ...(JSON.parse(readFileSync(envFile, "utf8")) as object), services }),
  );
}

describe("services for tests that call the network", () => {
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
    {
      id: "secure",
      base: {
        "pyproject.toml": pyproject("secure"),
        "src/secure/__init__.py": SECURE_CLIENT.replace(
          'return json.load(response)["args"]',
          "return {}",
        ),
        "tests/test_secure.py": "def test_nothing():\n    pass\n",
      },
      gold: { "src/secure/__init__.py": SECURE_CLIENT },
      tests: {
        "tests/test_secure.py":
          "from secure import fetch_args\n\n\ndef test_nothing():\n    pass\n\n\ndef test_echo():\n    assert fetch_args(a='1') == {'a': '1'}\n",
      },
      failToPass: ["tests/test_secure.py::test_echo"],
      passToPass: ["tests/test_secure.py::test_nothing"],
    },
  ]);
  declareServices(evalsDir, "echo", ["httpbin"]);
  declareServices(evalsDir, "secure", ["httpbin", "internet"]);

  const gradeGold = async (id: string) => {
    const suite = await loadSuite("net", { evalsDir, cwd: root });
    const task = await loadTask(suite, id);
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
    return grade;
  };

  it("serves httpbin on loopback during the test run, so such a task grades offline", async () => {
    const grade = await gradeGold("echo");
    expect(grade.reason).toBeNull();
    expect(grade.statuses["tests/test_echo.py::test_echo"]).toBe("PASSED");
    expect(grade.resolved).toBe(true);
  }, 600_000);

  it("answers https://httpbin.org from the local httpbin when a task declares the internet stand-in", async () => {
    const grade = await gradeGold("secure");
    expect(grade.reason).toBeNull();
    expect(grade.statuses["tests/test_secure.py::test_echo"]).toBe("PASSED");
    expect(grade.resolved).toBe(true);
  }, 600_000);

  it("gives an era requests client what its test suite expects of the network", async () => {
    const environment = testEnvironment();
    const client = await prepareEnvironment(
      {
        python: "3.9",
        pins: ["requests==2.7.0"],
        preInstall: [],
        install: "",
        testCommand: "",
        env: {},
        logParser: "pytest",
      },
      environment,
    );
    const dir = mkdtempSync(path.join(root, "era-"));
    // Stands for the grade's own sitecustomize, which the stand-in's must still run.
    const gradeSite = path.join(dir, "grade-site");
    mkdirSync(gradeSite);
    writeFileSync(
      path.join(gradeSite, "sitecustomize.py"),
      "import builtins\nbuiltins.LAB_GRADE_SITE = True\n",
    );
    writeFileSync(
      path.join(dir, "probe.py"),
      `import site\nsite.addsitedir(${JSON.stringify(client.sitePackages)})\n${ERA_PROBE}`,
    );
    const services = await startServices(["httpbin", "internet"], { environment, logDir: dir });
    try {
      const result = await runCommand([client.python.path, path.join(dir, "probe.py")], {
        env: {
          PATH: environment.pathEnv,
          HOME: dir,
          ...withServices({ PYTHONPATH: gradeSite }, services),
        },
        timeoutMs: 120_000,
      });
      expect(result.stderrTail).toBe("");
      expect(JSON.parse(result.stdoutTail)).toEqual({
        grade_site_ran: true,
        keep_alive: "keep-alive",
        close: "close",
        chunked_post: [200, "abcd"],
        https_same_port: [200, "https"],
        httpbin_org: [200, "https://httpbin.org/get", 2],
        off_host: [200, "http://www.google.co.uk", false],
        unroutable: ["ConnectTimeout", true],
        closed_port: true,
        unknown_name: true,
        read_timeout: true,
      });
    } finally {
      await services.stop();
    }
  }, 600_000);

  it("refuses an unknown service, and one listed before what it needs", async () => {
    const options = { environment: testEnvironment(), logDir: root };
    await expect(startServices(["ftp"], options)).rejects.toThrow(
      'Unknown service "ftp" in environment.json.',
    );
    await expect(startServices(["internet", "httpbin"], options)).rejects.toThrow(
      'Service "internet" in environment.json needs "httpbin" listed before it.',
    );
  });
});

describe("the stand-ins' certificates", () => {
  it("issues a server certificate for names and addresses, signed by a fresh CA", () => {
    const authority = createCertificateAuthority();
    const server = issueServerCertificate(authority, ["127.0.0.1", "httpbin.org"]);
    const ca = new X509Certificate(authority.certPem);
    const leaf = new X509Certificate(server.certPem);
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.subjectAltName).toBe("IP Address:127.0.0.1, DNS:httpbin.org");
    expect(leaf.checkHost("httpbin.org")).toBe("httpbin.org");
    expect(leaf.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(leaf.checkHost("example.com")).toBeUndefined();
  });

  it("writes serial numbers in DER's minimal form, which OpenSSL insists on", () => {
    expect(derInteger(Buffer.from([0, 0, 0x20, 1])).toString("hex")).toBe("02022001");
    expect(derInteger(Buffer.from([0, 0x80])).toString("hex")).toBe("02020080");
    expect(derInteger(Buffer.from([0x80])).toString("hex")).toBe("02020080");
    expect(derInteger(Buffer.from([0, 0])).toString("hex")).toBe("020100");
  });
});
