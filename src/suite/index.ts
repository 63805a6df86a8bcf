export * from "./layout.js";
export * from "./load.js";
export * from "./paths.js";
export * from "./proof-file.js";
export * from "./prompt.js";
export * from "./checkout.js";
export * from "./audit-file.js";
