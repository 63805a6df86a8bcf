export * from "./load.js";
export * from "./paths.js";
