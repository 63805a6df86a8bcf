import type { Sandbox, SandboxLimits, SandboxProvider } from "../core/index.js";
import { createConfinement, describeLimitEnforcement } from "./limits.js";

/**
 * No isolation: commands run on the host as lab's user, seeing everything lab can. Only by
 * explicit choice (`--sandbox none`); the run warns that the trust boundary is not enforced.
 * Resource limits (memory, processes, disk) still apply: they need no isolation.
 */
export function createNoneProvider(): SandboxProvider {
  return {
    name: "none",
    isolatesFilesystem: false,
    canIsolateNetwork: false,
    checkReady: () => Promise.resolve(),
    describeLimits: (limits: SandboxLimits) => describeLimitEnforcement(limits),
    async create(spec): Promise<Sandbox> {
      const confinement = await createConfinement(spec.limits);
      const diskRoots = [spec.workTree, ...spec.writablePaths];
      let disposed = false;
      return {
        name: "none",
        isolatesFilesystem: false,
        canIsolateNetwork: false,
        homeDir: undefined,
        async exec(argv, options) {
          if (disposed) throw new Error("exec on a disposed sandbox");
          return await confinement.run(argv, argv, options, diskRoots);
        },
        async dispose() {
          if (disposed) return;
          disposed = true;
          await confinement.dispose();
        },
      };
    },
  };
}
