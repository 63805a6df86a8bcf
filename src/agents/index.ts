export * from "./types.js";
export * from "./install.js";
export * from "./pricing.js";
export * from "./registry.js";
export * from "./tool.js";
