export * from "./atomic.js";
export * from "./runs.js";
export * from "./schemas.js";
export * from "./lock.js";
export * from "./run-lock.js";
export * from "./results-index.js";
export * from "./tasks.js";
export * from "./trial-files.js";
