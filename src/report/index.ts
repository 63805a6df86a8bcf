export * from "./summary.js";
export * from "./tables.js";
