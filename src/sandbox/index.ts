export { createBwrapProvider } from "./bwrap.js";
export { createNoneProvider } from "./none.js";
export {
  DEFAULT_SANDBOX,
  resolveSandboxProvider,
  SANDBOX_PROVIDERS,
  type SandboxProviderOptions,
} from "./providers.js";
export { describeLimitEnforcement } from "./limits.js";
export { diskUsageBytes, watchDiskUsage } from "./disk-usage.js";
export { detectCgroups, type CgroupSupport } from "./cgroup.js";
