import { beforeAll, describe, it } from "vitest";
import { createDockerProvider } from "../../src/sandbox/index.js";
import { defineSandboxContract } from "../contracts/sandbox.js";
import { dockerUnavailable, testDockerSettings } from "./helpers.js";

const unavailable = dockerUnavailable();

describe.runIf(unavailable === null)("docker provider", () => {
  // The first run on a machine builds lab's image (debootstrap where no registry answers).
  beforeAll(async () => {
    await createDockerProvider({ settings: testDockerSettings() }).checkReady({
      progress: (message) => {
        process.stderr.write(`docker: ${message}\n`);
      },
    });
  }, 1_800_000);
  defineSandboxContract(() => createDockerProvider({ settings: testDockerSettings() }));
});

if (unavailable !== null) {
  describe(`docker provider (skipped: ${unavailable})`, () => {
    it.todo("needs a Docker engine: scripts/test.sh installs docker.io and starts dockerd as root");
  });
}
