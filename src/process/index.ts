export { runCommand, type ExecResult, type RunOptions } from "./exec.js";
export { killAllChildren } from "./process-groups.js";
export { setMaxConcurrentProcesses } from "./semaphore.js";
export {
  createEnvMarker,
  findProcessesByEnvMarker,
  killProcessesByEnvMarker,
  TRIAL_MARKER_NAME,
  type EnvMarker,
} from "./strays.js";
export { findOnPath } from "./which.js";
