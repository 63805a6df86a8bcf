export * from "./command.js";
export * from "./gold.js";
export * from "./noop.js";
export * from "./resolve.js";
