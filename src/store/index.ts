export * from "./atomic.js";
export * from "./runs.js";
export * from "./schemas.js";
