/** lab's programmatic API: what the CLI calls, for tests and embedding. */
export { main } from "./cli/main.js";
export * from "./core/index.js";
export { runSuite, type RunConfig, type RunResult } from "./runner/index.js";
export { gradeChange, type GradeOptions } from "./grader/index.js";
export { proveTask } from "./gen/index.js";
export { loadSuite, loadTask, loadOracle } from "./suite/index.js";
export { summarizeRun, type ToolSummary } from "./report/index.js";
