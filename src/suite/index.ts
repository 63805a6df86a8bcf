export * from "./load.js";
export * from "./paths.js";
export * from "./prompt.js";
export * from "./checkout.js";
