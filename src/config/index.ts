export * from "./duration.js";
export * from "./file.js";
export * from "./resolve.js";
