export * from "./duration.js";
export * from "./file.js";
export * from "./resolve.js";
export * from "./worker.js";
