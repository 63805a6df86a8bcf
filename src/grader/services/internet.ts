import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { LabError } from "../../core/index.js";
import { renderNetworkShim } from "./network-shim.js";
import type { ServiceDefinition } from "./types.js";

/**
 * The outside hosts requests' suites name outright (not through HTTPBIN_URL), each given a
 * loopback address of its own; both are answered by the local httpbin on ports 80 and 443.
 * httpbin.org: the service itself, over https:// in several tests. www.google.co.uk: only the
 * target of an off-host redirect, whose test looks at the request, not the page.
 */
export const STAND_IN_HOSTS: Readonly<Record<string, string>> = {
  "httpbin.org": "127.80.0.1",
  "www.google.co.uk": "127.80.0.2",
};

/**
 * The stand-in internet of a test run: the hosts above resolve and are served by the local
 * httpbin, every other name is unknown, every other address off the machine is a blackhole,
 * and the run's CA is trusted. See `renderNetworkShim` and docs/design/requests-offline.md.
 */
export const INTERNET: ServiceDefinition = {
  description:
    "httpbin.org and www.google.co.uk served by the local httpbin over HTTP and HTTPS; other hosts unknown, other addresses a blackhole",
  requires: ["httpbin"],
  start: async (context) => {
    const endpoint = context.started.httpbin?.endpoint;
    if (endpoint === undefined) {
      throw new LabError("TASK_INVALID", 'The "internet" service needs "httpbin" before it.', {
        hint: 'List "httpbin" first in the services of environment.json.',
      });
    }
    const dir = path.join(context.logDir, "lab-network");
    await mkdir(dir, { recursive: true });
    const to = [endpoint.host, endpoint.port] as const;
    await writeFile(
      path.join(dir, "sitecustomize.py"),
      renderNetworkShim({
        hosts: STAND_IN_HOSTS,
        routes: Object.values(STAND_IN_HOSTS).flatMap((address) => [
          { address, port: 80, to },
          { address, port: 443, to },
        ]),
        caPem: context.authority().certPem,
      }),
    );
    return { env: {}, pythonPath: dir, stop: () => Promise.resolve() };
  },
};
