export * from "./errors.js";
export * from "./types.js";
export * from "./schemas.js";
export * from "./shell.js";
export * from "./tool.js";
export * from "./sandbox.js";
export * from "./events.js";
export * from "./patch-files.js";
