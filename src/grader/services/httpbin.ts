import { connect, createServer } from "node:net";
import path from "node:path";
import { LabError } from "../../core/index.js";
import { prepareEnvironment } from "../../environment/index.js";
import { runCommand } from "../../process/index.js";
import { issueServerCertificate } from "./certificates.js";
import { startFront } from "./front.js";
import type { ServiceDefinition } from "./types.js";

/** httpbin and what it needs, pinned; its environment is lab's own, apart from the task's. */
const HTTPBIN_PINS = [
  "httpbin==0.10.2",
  "flask==3.1.3",
  "werkzeug==3.1.9",
  "flasgger==0.9.7.1",
  "brotlicffi==1.2.1.0",
  "cffi==2.1.1",
  "pycparser==3.12",
  "decorator==5.3.1",
  "greenlet==2.0.2",
  "blinker==1.9.0",
  "click==8.5.1",
  "itsdangerous==2.2.0",
  "jinja2==3.1.6",
  "markupsafe==3.0.4",
  "jsonschema==4.26.0",
  "jsonschema-specifications==2025.9.1",
  "referencing==0.37.0",
  "rpds-py==2026.9.1",
  "attrs==26.1.0",
  "mistune==3.4.0",
  "packaging==26.4",
  "pyyaml==6.0.4",
  "six==1.17.0",
  "typing-extensions==4.16.0",
];

/** The names the front's certificate covers: its own address, and the hosts it stands in for. */
export const FRONT_CERTIFICATE_NAMES = [
  "127.0.0.1",
  "localhost",
  "httpbin.org",
  "www.google.co.uk",
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

async function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
  });
}

/**
 * httpbin on loopback (HTTPBIN_URL): requests' test suites read that variable in every era.
 * werkzeug serves the app on a port of its own; clients reach it through the front, which
 * answers HTTP and HTTPS on one port with keep-alive, like the web server before httpbin.org.
 */
export const HTTPBIN: ServiceDefinition = {
  description: "httpbin on 127.0.0.1, over HTTP and HTTPS on one port (HTTPBIN_URL)",
  requires: [],
  start: async (context) => {
    const prepared = await prepareEnvironment(
      {
        python: "3.11",
        pins: HTTPBIN_PINS,
        preInstall: [],
        install: "",
        testCommand: "",
        env: {},
        logParser: "pytest",
      },
      context.environment,
    );
    const port = await freePort();
    const logFile = path.join(context.logDir, "service-httpbin.log");
    const serve = [
      `import site; site.addsitedir(${JSON.stringify(prepared.sitePackages)})`,
      "import httpbin",
      "from werkzeug.serving import run_simple",
      `run_simple('127.0.0.1', ${String(port)}, httpbin.app, threaded=True)`,
    ].join("\n");
    const exited = runCommand([prepared.python.path, "-c", serve], {
      env: { PATH: context.environment.pathEnv, HOME: context.logDir },
      timeoutMs: 24 * 3_600_000,
      signal: context.signal,
      logFile,
      killGraceMs: 1_000,
    });
    // Held in an object: TypeScript does not see the callback assign it.
    const state = { ended: false };
    void exited.then(() => (state.ended = true));
    const stopApp = async (): Promise<void> => {
      await exited;
    };
    const deadline = Date.now() + 30_000;
    while (!(await isListening(port))) {
      if (state.ended || Date.now() > deadline) {
        throw new LabError(
          "ENVIRONMENT_FAILED",
          `The httpbin service did not start on 127.0.0.1:${String(port)}.`,
          { hint: `See ${logFile}.` },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const front = await startFront({
      upstream: { host: "127.0.0.1", port },
      certificate: issueServerCertificate(context.authority(), FRONT_CERTIFICATE_NAMES),
    });
    return {
      env: { HTTPBIN_URL: `http://127.0.0.1:${String(front.port)}/` },
      endpoint: { host: "127.0.0.1", port: front.port },
      stop: async () => {
        await front.close();
        await stopApp();
      },
    };
  },
};
