import os from "node:os";
import path from "node:path";
import { UsageError, type SandboxProvider } from "../core/index.js";
import { createBwrapProvider } from "./bwrap.js";
import { defaultDockerSettings, type DockerSettings } from "./docker-cli.js";
import { createDockerProvider } from "./docker.js";
import { SYSTEM_PATH } from "./limits.js";
import { createNoneProvider } from "./none.js";

/** What a provider factory may be told. */
export interface SandboxProviderOptions {
  /** lab's PATH, where the provider's own programs (bwrap, docker) are looked for, then the system's. */
  readonly pathEnv?: string;
  /** How to reach Docker and build its image; by default from pathEnv and ~/.cache/lab. */
  readonly docker?: DockerSettings;
  /** The run the sandboxes belong to: docker labels its containers with it. */
  readonly runId?: string;
}

/** Sandbox providers by the name `--sandbox` takes. */
export const SANDBOX_PROVIDERS: Readonly<
  Record<string, (options: SandboxProviderOptions) => SandboxProvider>
> = {
  bwrap: (options) =>
    createBwrapProvider({
      pathEnv: options.pathEnv === undefined ? SYSTEM_PATH : `${options.pathEnv}:${SYSTEM_PATH}`,
    }),
  docker: (options) =>
    createDockerProvider({
      settings:
        options.docker ??
        defaultDockerSettings(
          options.pathEnv ?? SYSTEM_PATH,
          path.join(os.homedir(), ".cache", "lab"),
        ),
      runId: options.runId,
    }),
  none: () => createNoneProvider(),
};

/** The provider used when none is named: bubblewrap, which fails with how to install it if missing. */
export const DEFAULT_SANDBOX = "bwrap";

/** The provider called `name`; a usage error listing the others when there is none. */
export function resolveSandboxProvider(
  name: string,
  options: SandboxProviderOptions = {},
): SandboxProvider {
  return sandboxFactory(name)(options);
}

/** Fails with a usage error listing the sandboxes when `name` is none of them. */
export function checkSandboxName(name: string): void {
  sandboxFactory(name);
}

function sandboxFactory(name: string): (options: SandboxProviderOptions) => SandboxProvider {
  const factory = SANDBOX_PROVIDERS[name];
  if (factory === undefined) {
    throw new UsageError(
      `Unknown sandbox "${name}".`,
      `Sandboxes: ${Object.keys(SANDBOX_PROVIDERS).join(", ")}.`,
    );
  }
  return factory;
}
