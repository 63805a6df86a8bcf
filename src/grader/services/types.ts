import type { EnvironmentOptions } from "../../environment/index.js";
import type { CertificateAuthority } from "./certificates.js";

/** What a service is given when it starts. */
export interface ServiceContext {
  /** How to build the service's own Python environment, if it needs one. */
  readonly environment: EnvironmentOptions;
  /** Where the service writes its log and files (the grade's scratch folder). */
  readonly logDir: string;
  /** Aborted when the services stop. */
  readonly signal: AbortSignal;
  /** The CA of this test run, made on first use; only the run's own processes trust it. */
  authority(): CertificateAuthority;
  /** The services started before this one, by name (those it `requires` among them). */
  readonly started: Readonly<Record<string, StartedService>>;
}

/** A service that is up. */
export interface StartedService {
  /** Variables for the test run. */
  readonly env: Readonly<Record<string, string>>;
  /** A folder to put on the tests' PYTHONPATH (holding a `sitecustomize` that chains on). */
  readonly pythonPath?: string;
  /** Where it answers, for the services that build on it. */
  readonly endpoint?: { readonly host: string; readonly port: number };
  /** Stops it; called once the shared signal is aborted. */
  stop(): Promise<void>;
}

/**
 * A local stand-in for a network service a test suite calls, served on loopback during the
 * test run so the suite can be graded offline.
 */
export interface ServiceDefinition {
  /** One line for errors and docs. */
  readonly description: string;
  /** Services that must be listed, and so started, before this one. */
  readonly requires: readonly string[];
  /** Starts it and resolves once it answers. */
  start(context: ServiceContext): Promise<StartedService>;
}
