export { parseQueueAddress, type QueueAddress } from "./address.js";
export { checkQueueReachable } from "./connection.js";
export {
  createQueueExecutor,
  type QueueExecutor,
  type QueueRunOptions,
  type QueueRunStats,
} from "./run-executor.js";
export { openQueueProver, type QueueProver, type QueueProverOptions } from "./prover.js";
export { runWorker, type WorkerSummary } from "./worker.js";
export type { WorkerSettings } from "./worker-context.js";
export { JOB_QUEUE, QUEUE_PREFIX, type ToolRequest } from "./protocol.js";
