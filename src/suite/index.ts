export * from "./layout.js";
export * from "./load.js";
export * from "./paths.js";
export * from "./prompt.js";
