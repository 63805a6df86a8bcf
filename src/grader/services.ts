import { createServer, connect } from "node:net";
import path from "node:path";
import { LabError } from "../core/index.js";
import { prepareEnvironment, type EnvironmentOptions } from "../environment/index.js";
import { runCommand, type ExecResult } from "../process/index.js";

/**
 * A local stand-in for a network service a test suite calls, served on loopback during the
 * test run so the suite can be graded offline.
 */
interface ServiceDefinition {
  /** The environment the service runs in (its own, apart from the graded one). */
  readonly python: string;
  readonly pins: readonly string[];
  /** Python code serving on 127.0.0.1:PORT (PORT is substituted). */
  readonly serve: string;
  /** Variables that point the tests at it. */
  readonly env: (url: string) => Record<string, string>;
}

/** Services lab can serve. httpbin: requests' test suites read HTTPBIN_URL in every era. */
export const SERVICES: Readonly<Record<string, ServiceDefinition>> = {
  httpbin: {
    python: "3.11",
    pins: [
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
    ],
    serve:
      "import httpbin\nfrom werkzeug.serving import run_simple\nrun_simple('127.0.0.1', PORT, httpbin.app, threaded=True)\n",
    env: (url) => ({ HTTPBIN_URL: url }),
  },
};

/** Running services and how to stop them. */
export interface RunningServices {
  /** Variables for the test run. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

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

/** Starts the named services on loopback and waits until each accepts connections. */
export async function startServices(
  names: readonly string[],
  options: { environment: EnvironmentOptions; logDir: string; signal?: AbortSignal | undefined },
): Promise<RunningServices> {
  const controller = new AbortController();
  const onAbort = (): void => {
    controller.abort();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const running: Promise<ExecResult>[] = [];
  const env: Record<string, string> = {};
  const stop = async (): Promise<void> => {
    controller.abort();
    options.signal?.removeEventListener("abort", onAbort);
    await Promise.allSettled(running);
  };
  try {
    for (const name of names) {
      const service = SERVICES[name];
      if (service === undefined) {
        throw new LabError("TASK_INVALID", `Unknown service "${name}" in environment.json.`, {
          hint: `Services lab can serve: ${Object.keys(SERVICES).join(", ")}.`,
        });
      }
      const prepared = await prepareEnvironment(
        {
          python: service.python,
          pins: service.pins,
          preInstall: [],
          install: "",
          testCommand: "",
          env: {},
          logParser: "pytest",
        },
        options.environment,
      );
      const port = await freePort();
      const exited = runCommand(
        [
          prepared.python.path,
          "-c",
          `import site; site.addsitedir(${JSON.stringify(prepared.sitePackages)})\n${service.serve.replace("PORT", String(port))}`,
        ],
        {
          env: { PATH: options.environment.pathEnv, HOME: options.logDir },
          timeoutMs: 24 * 3_600_000,
          signal: controller.signal,
          logFile: path.join(options.logDir, `service-${name}.log`),
          killGraceMs: 1_000,
        },
      );
      running.push(exited);
      // Held in an object: TypeScript does not see the callback assign it.
      const state = { ended: false };
      void exited.then(() => (state.ended = true));
      const deadline = Date.now() + 30_000;
      while (!(await isListening(port))) {
        if (state.ended || Date.now() > deadline) {
          throw new LabError(
            "ENVIRONMENT_FAILED",
            `The ${name} service did not start on 127.0.0.1:${String(port)}.`,
            { hint: `See ${path.join(options.logDir, `service-${name}.log`)}.` },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      Object.assign(env, service.env(`http://127.0.0.1:${String(port)}/`));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { env, stop };
}
