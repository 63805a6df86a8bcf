export * from "./lines.js";
export * from "./live.js";
export * from "./reporters.js";
