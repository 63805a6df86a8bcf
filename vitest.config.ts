import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A user's LAB_* settings never reach a test (test/helpers/isolate-env.ts).
    setupFiles: ["test/helpers/isolate-env.ts"],
    // Grading tests build real Python environments; two cores, so two workers.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
