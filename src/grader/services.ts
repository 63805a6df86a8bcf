import path from "node:path";
import { LabError } from "../core/index.js";
import type { EnvironmentOptions } from "../environment/index.js";
import { createCertificateAuthority, type CertificateAuthority } from "./services/certificates.js";
import { HTTPBIN } from "./services/httpbin.js";
import { INTERNET } from "./services/internet.js";
import type { ServiceDefinition, StartedService } from "./services/types.js";

export type { ServiceDefinition } from "./services/types.js";
export { STAND_IN_HOSTS } from "./services/internet.js";

/** Services lab can serve, by the name environment.json gives them. */
export const SERVICES: Readonly<Record<string, ServiceDefinition>> = {
  httpbin: HTTPBIN,
  internet: INTERNET,
};

/** Running services and how to stop them. */
export interface RunningServices {
  /** Variables for the test run. */
  readonly env: Readonly<Record<string, string>>;
  /** Folders to put first on the tests' PYTHONPATH. */
  readonly pythonPath: readonly string[];
  /** Stops every service and waits for their processes. */
  stop(): Promise<void>;
}

function check(names: readonly string[]): void {
  for (const [index, name] of names.entries()) {
    const service = SERVICES[name];
    if (service === undefined) {
      throw new LabError("TASK_INVALID", `Unknown service "${name}" in environment.json.`, {
        hint: `Services lab can serve: ${Object.keys(SERVICES).join(", ")}.`,
      });
    }
    const missing = service.requires.filter((needed) => !names.slice(0, index).includes(needed));
    if (missing.length > 0) {
      throw new LabError(
        "TASK_INVALID",
        `Service "${name}" in environment.json needs ${missing.map((m) => `"${m}"`).join(", ")} listed before it.`,
        { hint: `Services are started in the order listed; put ${missing.join(", ")} first.` },
      );
    }
  }
}

/** Starts the named services on loopback, in order, each once it accepts connections. */
export async function startServices(
  names: readonly string[],
  options: { environment: EnvironmentOptions; logDir: string; signal?: AbortSignal | undefined },
): Promise<RunningServices> {
  check(names);
  const controller = new AbortController();
  const onAbort = (): void => {
    controller.abort();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const started: Record<string, StartedService> = {};
  let authority: CertificateAuthority | undefined;
  const stop = async (): Promise<void> => {
    controller.abort();
    options.signal?.removeEventListener("abort", onAbort);
    await Promise.allSettled(Object.values(started).map((service) => service.stop()));
  };
  try {
    for (const name of names) {
      const service = SERVICES[name];
      if (service === undefined || name in started) continue;
      started[name] = await service.start({
        environment: options.environment,
        logDir: options.logDir,
        signal: controller.signal,
        authority: () => (authority ??= createCertificateAuthority()),
        started: { ...started },
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const running = Object.values(started);
  return {
    env: Object.assign({}, ...running.map((service) => service.env)) as Record<string, string>,
    pythonPath: running.flatMap((service) =>
      service.pythonPath === undefined ? [] : [service.pythonPath],
    ),
    stop,
  };
}

/**
 * The test run's variables with the services': their PYTHONPATH folders go before the grade's
 * own (whose `sitecustomize` theirs runs in turn).
 */
export function withServices(
  testEnv: Readonly<Record<string, string>>,
  services: RunningServices,
): Record<string, string> {
  const pythonPath = [...services.pythonPath, testEnv.PYTHONPATH ?? ""].filter(Boolean);
  return {
    ...testEnv,
    ...services.env,
    ...(pythonPath.length > 0 ? { PYTHONPATH: pythonPath.join(path.delimiter) } : {}),
  };
}
