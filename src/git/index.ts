export * from "./git.js";
export * from "./history.js";
