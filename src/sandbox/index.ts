export { createBwrapProvider } from "./bwrap.js";
export { createNoneProvider } from "./none.js";
export { createDockerProvider, type DockerProviderOptions } from "./docker.js";
export {
  defaultDockerSettings,
  DOCKER_PASSED_VARIABLES,
  type DockerSettings,
} from "./docker-cli.js";
export { imageTagsFor, prepareToolImage } from "./docker-image.js";
export { clearDockerCache, listDockerCache, type DockerCacheListing } from "./docker-cache.js";
export {
  DEFAULT_SANDBOX,
  checkSandboxName,
  resolveSandboxProvider,
  SANDBOX_PROVIDERS,
  type SandboxProviderOptions,
} from "./providers.js";
export { describeLimitEnforcement } from "./limits.js";
export { diskUsageBytes, watchDiskUsage } from "./disk-usage.js";
export { detectCgroups, type CgroupSupport } from "./cgroup.js";
